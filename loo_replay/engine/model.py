"""The engine's inputs and outputs as frozen data.

A deal arrives as a ``DealRecord`` whose players are seat indices and whose
cards are ints; the reader has already turned JSON into this shape.  What the
engine finds comes back as data: ``Violation`` for a broken rule, ``LogError``
for a record that cannot describe a real game.
"""

from __future__ import annotations

import cython

from loo_replay.engine.records import record
from loo_replay.engine.vocab import Action, FindingClass

PLAY, PASS, TAKE_MISS, DEFEND = Action.PLAY, Action.PASS, Action.TAKE_MISS, Action.DEFEND
ACTIONS = tuple(Action)
ACTION_OF: dict[str, Action] = {a.value: a for a in Action}  # a declaration's word to its type

REVOKE_CODES = (
    "lead-top-trump",
    "lead-highest-trump",
    "lead-trump",
    "trump-after-trick",
    "pam-be-civil",
    "follow-suit",
    "head-trick",
    "must-trump",
    "must-overtrump",
)
VIOLATION_CODES = (
    "out-of-turn",
    "declare-out-of-turn",
    "forced-play",
    "misdeal",
    "trump-turn",
    "false-flush",
    "dealer-rotation",
)
FINDING_CODES = REVOKE_CODES + VIOLATION_CODES
# The checks a deal with unknown hands cannot make (docs/log-format.md, "Hands left out"), in the order listed:
UNCHECKED_CHECKS = (
    "misdeal-hand-size",  # each unknown hand was dealt the right number of cards
    "misdeal-miss",  # the unknown Miss was dealt, with the right number of cards
    "flush-at-deal",  # no hand that is not wholly known held a flush where flushes are judged
    "flush-shown",  # a flush shown from a hand that is not wholly known was a flush
    "duplicate-card",  # no card of an unknown hand or Miss is also somewhere else
    "draw-unseen",  # the cards drawn in an exchange were in no unknown hand or Miss
)


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class Declare:
    """A declaration; compiled, an extension type like ``Play`` (six a deal, or more)."""

    index: cython.int  # position in the deal's events, for JSON pointers
    seat: cython.int
    action: Action


@record(slots=True)
class Exchange:
    index: int
    seat: int
    discard: tuple[int, ...]
    draw: tuple[int, ...]


@record(slots=True)
class ShowFlush:
    index: int
    seat: int


@record(slots=True)
class TurnUp:
    index: int
    card: int


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class Play:
    """A card played; compiled, an extension type with C fields (the commonest event: a
    frozen dataclass's ``__init__`` runs in the interpreter, this one does not) that the
    replay reads as struct members (model.pxd).  Every field is given: a default would be
    lost where model.pxd declares the fields."""

    index: cython.int
    seat: cython.int
    card: cython.int
    announce: cython.bint  # "Pam, be civil" announced with this lead


Event = Declare | Exchange | ShowFlush | TurnUp | Play


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # the fields stay Python objects, whatever a caller passes
class DealRecord:
    """One recorded deal; seats are clockwise and the dealer is a seat index.

    A hand of None is one the record leaves out: unknown (docs/log-format.md, "Hands left out"), unless the deal
    is recorded as a misdeal; ``miss`` None is no Miss, or an unknown one in a partial deal.
    """

    number: int
    seats: tuple[str, ...]
    dealer: int
    hands: tuple[tuple[int, ...] | None, ...]
    miss: tuple[int, ...] | None = None
    turn_up: int | None = None
    misdeal: bool = False
    events: tuple[Event, ...] = ()


@record(slots=True)
class LogError:
    """The record cannot describe a real game; ``path`` is a JSON pointer in the deal."""

    path: str
    message: str


@record(slots=True)
class Violation:
    """A broken rule, with everything a reader needs to check the verdict."""

    code: str
    player: str
    message: str
    penalized: bool
    penalty: int = 0
    trick: int | None = None
    card: int | None = None
    held: tuple[int, ...] = ()
    legal: tuple[int, ...] | None = None
    event: int | None = None  # index of the event in the deal, None for omissions
    proved_by: int | None = None  # a derived hand's revoke: the later card that proves it
    proved_trick: int | None = None  # the trick that card was played to, once played

    @property
    def is_revoke(self) -> bool:
        return self.code in REVOKE_CODES

    @property
    def finding_class(self) -> FindingClass:
        return FindingClass.REVOKE if self.code in REVOKE_CODES else FindingClass.VIOLATION


DEAD = -1  # the legal mask of a card played out of turn: dead, never judged (docs/rules.md §2.9)
TrickCard = tuple[int, int, int, int]  # seat, card, legal mask (or DEAD), event index (or -1)


class Trick:
    """One trick as played: ``cards`` in the order they fell, dead ones in place.

    ``led``, ``win``/``win_power`` and ``trumped`` are kept up to date card by card
    (``legal.add_card``) so that judging the next card costs a few integer operations.
    Compiled, it is an extension type with C fields (model.pxd) that legality and the
    solver read as C values.
    """

    number: cython.int
    leader: cython.int
    order: list[int]  # seats due to play, from the leader
    cards: list[TrickCard]
    live: cython.int  # cards played in turn: the position in ``order`` of the next to play
    lead: cython.int  # the card led, once led
    winner: int | None
    void: bool  # someone could not follow the suit led (on_void trump turns)
    led: cython.int  # the suit led, once led
    win: cython.int  # index in ``cards`` of the card winning so far
    win_power: cython.int
    trumped: bool  # led in a plain suit and a trump played to it
    seats: cython.ulonglong  # mask of the seats that have played

    def __init__(
        self,
        number: int,
        leader: int,
        order: list[int] | None = None,
        cards: list[TrickCard] | None = None,
        live: int = 0,
        lead: int = -1,
        winner: int | None = None,
        void: bool = False,
        led: int = -1,
        win: int = 0,
        win_power: int = -2,
        trumped: bool = False,
        seats: int = 0,
    ) -> None:
        self.number = number
        self.leader = leader
        self.order = [] if order is None else order
        self.cards = [] if cards is None else cards
        self.live = live
        self.lead = lead
        self.winner = winner
        self.void = void
        self.led = led
        self.win = win
        self.win_power = win_power
        self.trumped = trumped
        self.seats = seats

    def copy(self) -> Trick:
        """A copy whose cards go on without this one's: a search steps it, or a position
        is kept as it stood."""
        f = self._fields()
        return Trick(f[0], f[1], list(self.order), list(self.cards), *f[4:])  # type: ignore[arg-type]

    def _fields(self) -> tuple[object, ...]:
        return (
            self.number,
            self.leader,
            self.order,
            self.cards,
            self.live,
            self.lead,
            self.winner,
            self.void,
            self.led,
            self.win,
            self.win_power,
            self.trumped,
            self.seats,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trick) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, as a dataclass

    def __repr__(self) -> str:
        return f"Trick(number={self.number}, leader={self.leader}, cards={self.cards!r})"


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class Applied:
    """What one event did, as ``Replay.apply`` returns it (PokerKit's operation record): the
    replayer, the database and the simulator read this instead of comparing states.
    Compiled, an extension type like ``Play``: one is made for every event replayed."""

    event: Event
    judged: cython.bint = True  # False: ignored, the deal had ended (or was rejected) before it
    began: cython.bint = False  # this card closed the declarations (docs/rules.md §2.6)
    led: cython.bint = False  # this card led its trick
    dead: cython.bint = False  # played out of turn: dead, and the player retires (§2.9)
    legal: int | None = None  # a card judged in turn: the mask of the cards that were legal
    violations: tuple[Violation, ...] = ()  # found at this event
    closed: Trick | None = None  # the trick this card completed (``winner`` -1: nobody's)
    trump: int | None = None  # the suit this event fixed as trumps
    error: LogError | None = None  # the record was rejected at this event

    @property
    def winner(self) -> int | None:
        """The seat that won the trick this event closed; None if it closed none or nobody won."""
        if self.closed is None or self.closed.winner is None or self.closed.winner < 0:
            return None
        return self.closed.winner

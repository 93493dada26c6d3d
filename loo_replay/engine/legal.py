"""Which cards a player may play: docs/rules.md §3 (leading) and §4 (following).

``legal_cards`` is the single source of legality; the validator, the
simulator, the replayer and the solver all ask it.  The rules are a sequence
of steps (``_judge``), each narrowing the legal set; a card outside the final
set breaks the first step that excluded it, and that step's code names the
revoke (``breach``).

Compiled (legal.pxd), the state, the trick and the masks are C values: the
solver calls these functions at every node of its search.
"""

from __future__ import annotations

import cython

from loo_replay.engine.cards import (
    PAM,
    SUIT_SYMBOLS,
    display,
    display_cards,
)
from loo_replay.engine.model import REVOKE_CODES, Trick
from loo_replay.engine.options import Options
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, NO_TRUMP, POWER_BYTES, TRUMP_ORDER

# The steps of ``_judge``, numbered as REVOKE_CODES names them.
LEAD_TOP_TRUMP: int = cython.declare(cython.int, 0)
LEAD_HIGHEST_TRUMP: int = cython.declare(cython.int, 1)
LEAD_TRUMP: int = cython.declare(cython.int, 2)
TRUMP_AFTER_TRICK: int = cython.declare(cython.int, 3)
PAM_BE_CIVIL: int = cython.declare(cython.int, 4)
FOLLOW_SUIT: int = cython.declare(cython.int, 5)
HEAD_TRICK: int = cython.declare(cython.int, 6)
MUST_TRUMP: int = cython.declare(cython.int, 7)
MUST_OVERTRUMP: int = cython.declare(cython.int, 8)
ONE: int = cython.declare(cython.ulonglong, 1)
# The tables' constants as C values: compared at every card, a Python global would be boxed.
C_NO_TRUMP: int = cython.declare(cython.int, NO_TRUMP)
C_PAM: int = cython.declare(cython.int, PAM)
# A one-card mask's card, compiled: de Bruijn multiplication (mod 2**64 in both builds).
DEBRUIJN: int = cython.declare(cython.ulonglong, 0x03F79D71B4CB0A89)
WORD: int = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
_DEBRUIJN_TABLE = [0] * 64
for _bit in range(64):
    _DEBRUIJN_TABLE[((1 << _bit) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _bit
DEBRUIJN_INDEX = bytes(_DEBRUIJN_TABLE)
# The two byte tables as the compiled module reads them: C pointers into the bytes their
# modules keep for good (legal.pxd), so a look-up is one C read, not a global's.
_DEBRUIJN = DEBRUIJN_INDEX
_POWER = POWER_BYTES


def add_card(
    state: DealState,
    trick: Trick,
    seat: cython.int,
    card: cython.int,
    legal: cython.longlong,
    event: cython.int = -1,
) -> None:
    """Play ``card`` to ``trick`` as the record has it: ``lay`` decides what it does to the
    trick, and the trick keeps the card, its seat, legal mask and event."""
    if lay(state, trick, seat, card):
        trick.win = len(trick.cards)
    trick.cards.append((seat, card, legal, event))
    hand: cython.ulonglong = state.hands[seat]  # a C value: no Python integer arithmetic
    state.hands[seat] = hand & ~(ONE << card)


@cython.ccall
@cython.exceptval(check=False)
def lay(state: DealState, trick: Trick, seat: cython.int, card: cython.int) -> cython.bint:
    """What ``card`` played by ``seat`` does to ``trick``: the one place where the suit led,
    the winning power and whether the trick is trumped are decided (docs/rules.md §1,
    winning card).  True when the card now wins the trick.  The hands are the caller's: the
    record's (``add_card``) or a search's own."""
    trump: cython.int = state.trump
    pam: cython.bint = state.pam
    led: cython.int
    if trick.live:
        led = trick.led
    else:
        led = trump if pam and card == C_PAM and trump != C_NO_TRUMP else card // 13
        trick.led = led
        trick.lead = card
    power_now: cython.int = power(pam, trump, led, card)
    beats: cython.bint = power_now > trick.win_power
    if beats:
        trick.win_power = power_now
    if trump != C_NO_TRUMP and led != trump and state.trump_mask >> card & 1:
        trick.trumped = True
    trick.live += 1
    trick.seats |= ONE << seat
    state.played |= ONE << card
    return beats


def lift(
    state: DealState,
    trick: Trick,
    seat: cython.int,
    card: cython.int,
    led: cython.int,
    lead: cython.int,
    win_power: cython.int,
    trumped: cython.bint,
) -> None:
    """Undo ``lay`` of ``seat``'s ``card``, given the trick's ``led``, ``lead``,
    ``win_power`` and ``trumped`` from before it: a search steps back with it."""
    trick.live -= 1
    trick.led, trick.lead, trick.win_power, trick.trumped = led, lead, win_power, trumped
    trick.seats &= ~(ONE << seat)
    state.played &= ~(ONE << card)


@cython.ccall
@cython.exceptval(check=False)
def card_of(low: cython.ulonglong) -> cython.int:
    """The card of a mask holding one card."""
    if cython.compiled:
        return _DEBRUIJN[((low * DEBRUIJN) & WORD) >> 58]
    return low.bit_length() - 1


@cython.ccall
@cython.exceptval(check=False)
def power(pam: cython.bint, trump: cython.int, led: cython.int, card: cython.int) -> cython.int:
    """How strongly ``card`` plays to a trick of suit ``led`` (tables.POWER; -1 cannot win)."""
    return _POWER[((pam * 5 + trump) * 4 + led) * 52 + card] - 1


@cython.cfunc
def _higher(
    mask: cython.ulonglong, state: DealState, led: cython.int, than: cython.int
) -> cython.ulonglong:
    out: cython.ulonglong = 0
    low: cython.ulonglong
    card: cython.int
    while mask:
        low = mask & (~mask + 1)
        mask ^= low
        card = card_of(low)
        if power(state.pam, state.trump, led, card) > than:
            out |= low
    return out


@cython.cfunc
def _highest(mask: cython.ulonglong, state: DealState) -> cython.int:
    for card in TRUMP_ORDER[state.pam][state.trump]:
        if mask >> card & 1:
            return card
    raise ValueError("no trump in mask")


@cython.cfunc
def _run_from_highest(mask: cython.ulonglong, state: DealState) -> cython.ulonglong:
    """Trumps held in an unbroken run down from the highest held; gaps filled by
    cards already played or turned up (``lead.highest_trump = "two_players"``)."""
    run: cython.ulonglong = 0
    started: cython.bint = False
    filled: cython.ulonglong = state.played | state.turned
    for card in TRUMP_ORDER[state.pam][state.trump]:
        if mask >> card & 1:
            run |= ONE << card
            started = True
        elif started and not filled >> card & 1:
            break
    return run


@cython.cfunc
@cython.inline
def _breaks(card: cython.int, mask: cython.ulonglong) -> cython.bint:
    """Whether the ``card`` being judged (none when < 0) is outside a step's ``mask``."""
    return card >= 0 and not mask >> card & 1


@cython.cfunc
def _judge(state: DealState, hand: cython.ulonglong, card: cython.int) -> cython.longlong:
    """The steps that bind the player due, holding ``hand``, to play now, in order of
    precedence (docs/rules.md §3 leading, §4 following), each narrowing the legal set.
    The legal mask; judging a ``card`` (>= 0) that a step excludes, ``-1 - i`` for the
    first such step, ``REVOKE_CODES[i]``."""
    legal: cython.ulonglong = hand
    mask: cython.ulonglong
    trump: cython.int = state.trump
    o: Options = state.options  # the options' one typed view: read as struct members
    trick = state.current()
    if trick is None or not trick.live:  # leading: docs/rules.md §3
        if trump == C_NO_TRUMP:
            return legal
        trumps: cython.ulonglong = hand & state.trump_mask
        if not trumps:
            return legal
        number: cython.int = trick.number if trick is not None else len(state.tricks) + 1
        count: cython.int = int(trumps).bit_count()
        top_rule: str = o.lead_top_trump
        if top_rule == "every" or (top_rule == "first" and number == 1):
            top = state.top_trump()
            if top is not None and hand >> top & 1:
                mask = ONE << top
                if _breaks(card, mask):
                    return -1 - LEAD_TOP_TRUMP
                legal &= mask
        rule: str = o.lead_highest_trump
        if count >= 2:
            mask = 0
            if rule == "always" or (rule == "first" and number == 1):
                mask = ONE << _highest(trumps, state)
            elif rule == "two_players" and len(state.playing()) == 2:
                mask = _run_from_highest(trumps, state)
            if mask:
                if _breaks(card, mask):
                    return -1 - LEAD_HIGHEST_TRUMP
                legal &= mask
        trump_if: cython.int = o.lead_trump_if
        if trump_if and count >= trump_if:
            if _breaks(card, trumps):
                return -1 - LEAD_TRUMP
            legal &= trumps
        if o.lead_trump_after_trick and number >= 2:
            if _breaks(card, trumps):
                return -1 - TRUMP_AFTER_TRICK
            legal &= trumps
        return legal
    led: cython.int = trick.led  # following: docs/rules.md §4
    if _pam_barred(state, hand, trick):
        hand &= ~(ONE << C_PAM)
        if _breaks(card, hand):
            return -1 - PAM_BE_CIVIL
        legal &= hand
    led_mask: cython.ulonglong = state.suit_masks[led]  # a C value: a C and, not Python's
    suited: cython.ulonglong = hand & led_mask
    win: cython.int = trick.win_power
    higher: cython.ulonglong
    if suited:
        if _breaks(card, suited):
            return -1 - FOLLOW_SUIT
        legal &= suited
        if o.follow_head and not trick.trumped:
            higher = _higher(suited, state, led, win)
            if higher:
                if _breaks(card, higher):
                    return -1 - HEAD_TRICK
                legal &= higher
        return legal
    if trump == C_NO_TRUMP:
        return legal
    trumps = hand & state.trump_mask
    if not trumps:
        return legal
    higher = _higher(trumps, state, led, win)
    void: str = o.follow_void
    if void == "trump":
        if _breaks(card, trumps):
            return -1 - MUST_TRUMP
        legal &= trumps
        if higher:
            if _breaks(card, higher):
                return -1 - MUST_OVERTRUMP
            legal &= higher
    elif void == "overtrump" and higher:
        if _breaks(card, higher):
            return -1 - (MUST_OVERTRUMP if trick.trumped else MUST_TRUMP)
        legal &= higher
    return legal


@cython.cfunc
def _pam_barred(state: DealState, hand: cython.ulonglong, trick: Trick) -> cython.bint:
    """Whether "Pam, be civil" forbids the holder of ``hand`` to play Pam to ``trick``
    (docs/rules.md §4.1)."""
    trump: cython.int = state.trump
    if not (state.pam and trump != C_NO_TRUMP and hand >> C_PAM & 1):
        return False
    if trick.lead != ACES[trump]:
        return False
    o: Options = state.options
    civil: str = o.follow_pam_civil
    if not (civil == "always" or (civil == "announced" and state.announce)):
        return False
    if o.follow_pam_civil_strict:
        return hand != ONE << C_PAM
    return (hand & state.trump_mask & ~(ONE << C_PAM)) != 0


def legal_cards(state: DealState, seat: cython.int) -> cython.ulonglong:
    """The mask of cards ``seat`` may play now; never empty while he holds a card."""
    return _judge(state, state.hands[seat], -1)


def legal_hand(state: DealState, hand: cython.ulonglong) -> cython.ulonglong:
    """``legal_cards`` for the player due holding ``hand``: a search keeps the hands of
    its position apart from the state's, and a world gives a player a hand they may have held."""
    return _judge(state, hand, -1)


def breach(state: DealState, seat: int, card: int) -> str | None:
    """The code of the first step that ``card`` breaks, or None when it is legal."""
    judged: cython.longlong = _judge(state, state.hands[seat], card)
    return REVOKE_CODES[-1 - judged] if judged < 0 else None


def explain(code: str, state: DealState, seat: int) -> str:
    """Why the step ``code`` bound ``seat``: the clause of docs/rules.md in plain words."""
    trick = state.trick
    trump = SUIT_SYMBOLS[state.trump] if state.trump != NO_TRUMP else "none"
    if code == "lead-top-trump":
        top = state.top_trump()
        if top == PAM:
            return "Pam, the top trump, must be led"
        if top == ACES[state.trump]:
            return "the ace of trumps must be led"
        return f"the top trump {display(top or 0)} must be led (the ace is turned up)"
    if code == "lead-highest-trump":
        if state.options.lead_highest_trump == "two_players":
            return (
                "with two players standing, holding two or more trumps, the highest "
                "(or one in unbroken sequence with it) must be led"
            )
        return "holding two or more trumps, the highest must be led"
    if code == "lead-trump":
        n = state.options.lead_trump_if
        return f"holding {'a trump' if n == 1 else f'{n} or more trumps'}, a trump must be led"
    if code == "trump-after-trick":
        return "the winner of a trick must lead a trump"
    assert trick is not None and trick.live
    led = SUIT_SYMBOLS[trick.led]
    winner = display(trick.cards[trick.win][1])
    if code == "pam-be-civil":
        if state.options.follow_pam_civil_strict:
            return 'the ace of trumps was led: "Pam, be civil" bars Pam unless it is the last card held'
        return 'the ace of trumps was led: "Pam, be civil" bars Pam while another trump is held'
    if code == "follow-suit":
        return f"the suit led ({led}) must be followed"
    if code == "head-trick":
        return f"the trick must be headed with a higher {led} (winning card {winner})"
    if code == "must-trump":
        return f"void in {led}, a trump must be played (trumps {trump})"
    if code == "must-overtrump":
        return f"void in {led}, a trump above the winning {winner} must be played"
    raise ValueError(f"no explanation for {code}")


def describe_play(state: DealState, seat: int, card: int) -> str:
    """The situation of a revoke, the card played after the verb: ``eve led 4♠ holding J♦ 4♠
    (trumps ♦)``, ``eve played J♣ to 4♥, holding 7♥ J♣ A♣ (trumps ♦)``."""
    trick = state.trick
    if trick is None or not trick.live:
        did = f"led {display(card)}"
    else:
        did = f"played {display(card)} to {display(trick.lead)},"
    trump = f"trumps {SUIT_SYMBOLS[state.trump]}" if state.trump != NO_TRUMP else "no trumps"
    return f"{state.seats[seat]} {did} holding {display_cards(state.held(seat))} ({trump})"

"""Seeded simulated sessions with ground truth, played through the engine itself.

Bots declare from ``Replay.legal_actions`` and play from ``legal_cards``, so
a simulated game is legal by the same code that judges it.  Violations are
injected on purpose (a card outside the legal set, a card out of turn, a
pass where play is forced, ...) and each is written to the ground truth with
its deal, trick, player and code.  ``recorded`` blocks come from the
session audit, optionally corrupted, with every corruption listed.
With ``crooked`` and ``riffles`` the dealing itself is made unfair on purpose
(docs/fairness.md, "Simulating unfair dealing") and what was done goes into the ground truth's ``dealing``.
Same seed, same bytes.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from loo_replay.engine.cards import ACE, PAM, canonical, cards_of
from loo_replay.engine.flush import is_flush
from loo_replay.engine.legal import breach, legal_cards
from loo_replay.engine.model import (
    DEFEND,
    PASS,
    PLAY,
    TAKE_MISS,
    Applied,
    DealRecord,
    Declare,
    Event,
    Exchange,
    Play,
    ShowFlush,
    TurnUp,
)
from loo_replay.engine.options import Options
from loo_replay.engine.replay import OVER, PLAYING, DealPlan, Replay, deal_plan
from loo_replay.engine.session import DealAudit, DealInput, SessionAudit
from loo_replay.engine.tables import NO_TRUMP, POWER, TRUMP_ORDER
from loo_replay.engine.vocab import Action, Status
from loo_replay.files import replacing, write_atomic
from loo_replay.logs.reader import TRUTH_SUFFIX

NAMES = (
    "ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal",
    "ivy", "jon", "kit", "lou", "max", "ned", "olive", "pip",
)  # fmt: skip
INJECTABLE = (
    "revoke",
    "out-of-turn",
    "declare-out-of-turn",
    "forced-play",
    "misdeal",
    "trump-turn",
    "false-flush",
    "dealer-rotation",
)


TIMID_POOL = 10**6
RARE_REVOKES = frozenset(
    {"pam-be-civil", "must-overtrump", "trump-after-trick", "head-trick", "lead-highest-trump"}
)


def max_players(o: Options) -> int:
    """How many can sit: hands, the Miss and a turned card must come out of one pack."""
    size = o.deal_hand_size
    return min(len(NAMES), (52 - 1 - (size if o.deal_miss else 0)) // size)


@dataclass(frozen=True)
class TruthFinding:
    session: str
    deal: int
    trick: int | None
    player: str
    code: str


@dataclass(frozen=True)
class TruthDiscrepancy:
    session: str
    deal: int
    field: str
    recorded: int
    expected: int


@dataclass(frozen=True)
class TruthSwap:
    """A crooked dealer's swap: ``card`` came to his hand from ``source`` (a player, "miss"
    or "stock")."""

    session: str
    deal: int
    player: str
    card: str
    source: str


@dataclass
class Truth:
    findings: list[TruthFinding] = field(default_factory=list)
    discrepancies: list[TruthDiscrepancy] = field(default_factory=list)
    dealing: dict[str, Any] | None = None  # only when the dealing was made unfair
    swaps: list[TruthSwap] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "findings": [asdict(f) for f in self.findings],
            "discrepancies": [asdict(d) for d in self.discrepancies],
        }
        if self.dealing is not None:
            out["dealing"] = {**self.dealing, "swaps": [asdict(s) for s in self.swaps]}
        return out


@dataclass(frozen=True)
class Crooked:
    """``simulate --crooked-dealer PLAYER[:RATE]``."""

    player: str
    rate: float = 0.5


def parse_crooked(text: str) -> Crooked:
    name, _, rate = text.partition(":")
    try:
        value = float(rate) if rate else 0.5
    except ValueError:
        value = -1.0
    if not name or not 0.0 < value <= 1.0:
        raise ValueError(f"{text!r}: give PLAYER or PLAYER:RATE with 0 < RATE <= 1")
    return Crooked(name, value)


def parse_shuffle(text: str) -> int | None:
    """``uniform`` -> None, ``riffle:K`` -> K riffles."""
    if text == "uniform":
        return None
    kind, _, count = text.partition(":")
    if kind == "riffle" and count.isdigit() and int(count) >= 1:
        return int(count)
    raise ValueError(f"{text!r}: give uniform or riffle:K with K >= 1")


def riffle(deck: list[int], times: int, rng: random.Random) -> list[int]:
    """``times`` Gilbert-Shannon-Reeds riffles, then one cut at a uniform point.

    Each riffle cuts at a binomial(n, 1/2) point and drops cards from the two
    packets with probability proportional to their sizes (Bayer and Diaconis 1992).
    """
    cards = list(deck)
    n = len(cards)
    for _ in range(times):
        k = sum(rng.random() < 0.5 for _ in range(n))
        left, right = cards[:k], cards[k:]
        merged: list[int] = []
        i = j = 0
        while i < len(left) or j < len(right):
            if rng.random() * (len(left) - i + len(right) - j) < len(left) - i:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        cards = merged
    cut = rng.randrange(n)
    return cards[cut:] + cards[:cut]


def top_trump(pam: bool, turn_up: int | None) -> int | None:
    """The best trump of a deal (docs/rules.md §3): the ace of trumps, Pam where Pam is on, or
    the next one down when that card is turned up; Pam alone while no trump is fixed."""
    if turn_up is None:
        return PAM if pam else None
    order = TRUMP_ORDER[pam][turn_up // 13]
    return order[1] if order[0] == turn_up else order[0]


@dataclass
class _Deal:
    """One deal being built: the JSON record, the engine's replay, the events so far."""

    json: dict[str, Any]
    replay: Replay
    events: list[Event] = field(default_factory=list)


class Simulator:
    """Plays sessions of one ruleset with ``players`` seats from a seeded generator."""

    def __init__(
        self,
        options: Options,
        ruleset: str,
        players: int,
        seed: int,
        violations: float = 0.0,
        corrupt: float = 0.0,
        crooked: Crooked | None = None,
        riffles: int | None = None,
    ) -> None:
        if not 3 <= players <= max_players(options):
            raise ValueError(
                f"{players} players cannot sit at {ruleset}: 3 to {max_players(options)} can"
            )
        if crooked is not None and crooked.player not in NAMES[:players]:
            raise ValueError(
                f"no player {crooked.player!r} to deal crookedly; "
                f"the players are {', '.join(NAMES[:players])}"
            )
        self.o = options
        self.ruleset = ruleset
        self.players = NAMES[:players]
        self.seed = seed
        self.violations = violations
        self.corrupt = corrupt
        self.crooked = crooked
        self.riffles = riffles
        self.truth = Truth()
        if crooked is not None or riffles is not None:
            self.truth.dealing = {
                "crooked_dealer": None if crooked is None else asdict(crooked),
                "shuffle": "uniform" if riffles is None else f"riffle:{riffles}",
            }

    # -- sessions ------------------------------------------------------------

    def sessions(self, count: int, deals: int) -> Iterator[dict[str, Any]]:
        for index in range(count):
            yield self.session(f"sim-{self.ruleset}-{self.seed}-{index + 1}", deals, index)

    def session(self, sid: str, deals: int, index: int = 0) -> dict[str, Any]:
        rng = random.Random(f"{self.seed}:{index}")
        chips = {p: 500 for p in self.players}
        chain = SessionAudit(self.players, self.o, chips)
        out: list[dict[str, Any]] = []
        dealer = self.players[rng.randrange(len(self.players))]
        dealing = _Dealing(self, random.Random(f"{self.seed}:{index}:dealing"), sid)
        for number in range(1, deals + 1):
            code = self._pick_code(rng)
            if code == "dealer-rotation" and number > 1:
                dealer = rng.choice([p for p in self.players if p != dealer])
                self.truth.findings.append(TruthFinding(sid, number, None, dealer, code))
                code = None
            deal = self._deal(rng, chain, number, dealer, code, sid, dealing)
            audit = chain.audit(
                DealInput(number, _record(deal), None, (), dealer, f"/deals/{number - 1}")
            )
            if audit.status == Status.REJECTED:
                raise RuntimeError(f"simulated deal {number} was rejected: {audit.errors}")
            deal.json["recorded"] = self._recorded(rng, audit, sid, number)
            out.append(deal.json)
            dealer = self._next_dealer(audit, dealer)
        return {
            "format": "loo-hand-log",
            "version": 1,
            "session": {
                "id": sid,
                "ruleset": self.ruleset,
                "players": [{"id": p} for p in self.players],
                "chips": chips,
                "meta": {"simulated": True, "seed": self.seed},
            },
            "deals": out,
        }

    def _pick_code(self, rng: random.Random) -> str | None:
        if not self.violations or rng.random() >= self.violations:
            return None
        return rng.choice(INJECTABLE)

    def _next_dealer(self, audit: DealAudit, dealer: str) -> str:
        if audit.status == Status.MISDEAL and self.o.penalties_misdeal_redeal == "same_dealer":
            return dealer
        i = self.players.index(dealer)
        return self.players[(i + 1) % len(self.players)]

    # -- one deal ------------------------------------------------------------

    def _deal(
        self,
        rng: random.Random,
        chain: SessionAudit,
        number: int,
        dealer: str,
        code: str | None,
        sid: str,
        dealing: _Dealing,
    ) -> _Deal:
        o = self.o
        seats = self.players
        opening = chain.open_deal(number, dealer, seats, None)
        plan = deal_plan(o, opening.context)
        size = o.deal_hand_size
        if dealing.previous is None:
            deck = list(range(52))
            rng.shuffle(deck)
            hands = [deck[i * size : (i + 1) * size] for i in range(len(seats))]
            rest = deck[len(seats) * size :]
            miss = [rest.pop() for _ in range(size)] if plan.miss else None
            turn_up = rest.pop() if plan.turn_up else None
        else:
            deck, hands, miss, turn_up, rest = dealing.riffled(seats.index(dealer), plan)
        if self.crooked is not None and dealer == self.crooked.player:
            dealing.crook(number, seats.index(dealer), hands, miss, turn_up, rest)
        deal_json: dict[str, Any] = {"deal": number, "dealer": dealer}
        if code == "misdeal":
            victim = rng.randrange(len(seats))
            hands[victim] = hands[victim][:-1]
            self.truth.findings.append(TruthFinding(sid, number, None, dealer, "misdeal"))
        deal_json["hands"] = {
            p: [canonical(c) for c in h] for p, h in zip(seats, hands, strict=True)
        }
        if miss is not None:
            deal_json["miss"] = [canonical(c) for c in miss]
        if turn_up is not None:
            deal_json["turn_up"] = canonical(turn_up)
        record = DealRecord(
            number,
            seats,
            seats.index(dealer),
            tuple(tuple(h) for h in hands),
            None if miss is None else tuple(miss),
            turn_up,
        )
        deal = _Deal(deal_json, Replay(record, o, opening.context))
        if code != "misdeal" and deal.replay.phase != OVER:
            timid = opening.pool_start is not None and opening.pool_start > TIMID_POOL
            injector = _Injector(code, deal.replay, rng, self.truth, sid)
            _Table(deal, rng, rest, injector, timid).play()
        deal_json["events"] = [_event_json(e, seats) for e in deal.events]
        if self.riffles is not None:
            dealing.gather(deal, seats.index(dealer), hands, miss, turn_up, deck)
        return deal

    def _recorded(
        self, rng: random.Random, audit: DealAudit, sid: str, number: int
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {"pool_start": audit.pool_start}
        for name in ("tricks", "payouts", "looed", "penalties"):
            value = getattr(audit, name)
            if value is not None:
                rec[name] = dict(value)
        rec["pool_next"] = audit.pool_next
        if audit.stacks is not None:
            rec["stacks"] = dict(audit.stacks)
        if self.corrupt and rng.random() < self.corrupt:
            target = rng.choice(["pool_next", "payouts", "stacks"])
            if target == "pool_next":
                expected = int(rec["pool_next"])
                rec["pool_next"] = expected + rng.randint(1, 5)
                self.truth.discrepancies.append(
                    TruthDiscrepancy(sid, number, "pool_next", rec["pool_next"], expected)
                )
            else:
                player = rng.choice(self.players)
                amounts = rec.setdefault(target, {})
                expected = int(amounts.get(player, 0))
                amounts[player] = expected + rng.randint(1, 5)
                self.truth.discrepancies.append(
                    TruthDiscrepancy(sid, number, f"{target}.{player}", amounts[player], expected)
                )
        return rec


class _Dealing:
    """The unfair dealing of one session: the crooked dealer's swaps and the riffled
    pack, drawn from their own generator so the rest of the game keeps its draws."""

    def __init__(self, sim: Simulator, rng: random.Random, sid: str) -> None:
        self.sim, self.rng, self.sid = sim, rng, sid
        self.previous: list[int] | None = None  # the last deal's cards, gathered

    def riffled(
        self, dealer: int, plan: DealPlan
    ) -> tuple[list[int], list[list[int]], list[int] | None, int | None, list[int]]:
        """Deal the gathered cards after K riffles and a cut, one at a time clockwise from
        the eldest and then the Miss; the turn-up from the top of the rest."""
        assert self.previous is not None and self.sim.riffles is not None
        deck = riffle(self.previous, self.sim.riffles, self.rng)
        n, size = len(self.sim.players), self.sim.o.deal_hand_size
        order = [(dealer + 1 + i) % n for i in range(n)] + ([n] if plan.miss else [])
        piles: list[list[int]] = [[] for _ in range(n + 1)]
        top = 0
        for _ in range(size):
            for pile in order:
                piles[pile].append(deck[top])
                top += 1
        turn_up = deck[top] if plan.turn_up else None
        rest = deck[top + (1 if plan.turn_up else 0) :]
        rest.reverse()  # the stock is drawn with pop(): its top card last
        return deck, piles[:n], piles[n] if plan.miss else None, turn_up, rest

    def crook(
        self,
        number: int,
        dealer: int,
        hands: list[list[int]],
        miss: list[int] | None,
        turn_up: int | None,
        stock: list[int],
    ) -> None:
        """With the crooked dealer's rate, swap the best trump into his hand."""
        crooked = self.sim.crooked
        assert crooked is not None
        if self.rng.random() >= crooked.rate:
            return
        best = top_trump(self.sim.o.deal_pam, turn_up)
        if best is None or best in hands[dealer]:
            return
        places: list[tuple[str, list[int]]] = [
            (p, h) for p, h in zip(self.sim.players, hands, strict=True)
        ]
        places += [("miss", miss)] if miss is not None else []
        places.append(("stock", stock))
        source, pile = next((name, pile) for name, pile in places if best in pile)
        mine = hands[dealer]
        k = self.rng.randrange(len(mine))
        pile[pile.index(best)], mine[k] = mine[k], best
        self.sim.truth.swaps.append(
            TruthSwap(self.sid, number, crooked.player, canonical(best), source)
        )

    def gather(
        self,
        deal: _Deal,
        dealer: int,
        hands: list[list[int]],
        miss: list[int] | None,
        turn_up: int | None,
        deck: list[int],
    ) -> None:
        """The cards in the order the tricks were played, then those not played: the hands
        seat by seat from the eldest, the Miss, the turn-up and the stock."""
        n = len(hands)
        order = [e.card for e in deal.events if isinstance(e, Play)]
        for seat in ((dealer + 1 + i) % n for i in range(n)):
            order += hands[seat]
        order += (miss or []) + ([] if turn_up is None else [turn_up]) + deck
        self.previous = list(dict.fromkeys(order))


class Bot:
    """One player's strategy: declares from ``Replay.legal_actions``, exchanges weak cards and
    plays from ``legal_cards``, winning cheaply and leading strong.  It reads the replay and
    never changes it; the deal's generator is shared, so the same seed gives the same game."""

    def __init__(self, seat: int, replay: Replay, rng: random.Random, timid: bool) -> None:
        self.seat = seat
        self.r = replay
        self.rng = rng
        self.timid = timid  # nobody dares a ballooned unlimited pool: pass, the dealer takes it

    def strength(self) -> float:
        hand = self.r.state.hands[self.seat]
        high = sum(1 for c in cards_of(hand) if c % 13 >= 10)
        return high + 1.5 * (hand & self.r.state.trump_mask).bit_count()

    def declare(self, actions: tuple[Action, ...]) -> Action:
        if self.timid and PASS in actions:
            return PASS
        if DEFEND in actions and self.rng.random() < 0.5:
            return DEFEND
        if self.strength() >= 2 or self.rng.random() < 0.25:
            return PLAY
        if TAKE_MISS in actions and self.rng.random() < 0.4:
            return TAKE_MISS
        return PASS if PASS in actions else PLAY

    def declare_early(self) -> Action:
        """Declaring before his turn: play or pass, nothing that needs the order."""
        return PLAY if self.strength() >= 2 else PASS

    def discards(self, stock: int) -> tuple[int, ...]:
        """The weak cards to exchange, leaving four in the ``stock``."""
        state = self.r.state
        keep = state.trump_mask | (1 << PAM if state.pam else 0)
        weak = [c for c in cards_of(state.hands[self.seat] & ~keep) if c % 13 < 9]
        return tuple(weak[: max(0, min(len(weak), stock - 4))])

    def announce(self) -> bool:
        """Leading the ace of trumps, sometimes call "Pam, be civil" where it must be called."""
        state = self.r.state
        if state.options.follow_pam_civil != "announced" or state.trump == NO_TRUMP:
            return False
        ace = state.trump * 13 + ACE
        return bool(state.hands[self.seat] >> ace & 1) and self.rng.random() < 0.7

    def card(self, legal: int) -> int:
        """Win cheaply when possible, else throw the lowest card; lead strong."""
        state = self.r.state
        cards = list(cards_of(legal))
        trick = state.trick
        if trick is None or not trick.live:
            if self.rng.random() < 0.3:
                return self.rng.choice(cards)
            by_suit = POWER[state.pam][state.trump]
            return max(cards, key=lambda c: by_suit[c // 13][c])
        win, led = trick.win_power, trick.led
        powers = POWER[state.pam][state.trump][led]
        winners = [c for c in cards if powers[c] > win]
        if winners:
            return min(winners, key=lambda c: powers[c])
        return min(cards, key=lambda c: (powers[c], c % 13))


class _Injector:
    """The one violation a deal is to carry: injected at its first chance, then written to
    the ground truth with its deal, trick, player and code."""

    def __init__(
        self, code: str | None, replay: Replay, rng: random.Random, truth: Truth, sid: str
    ) -> None:
        self.code = code
        self.r = replay
        self.rng = rng
        self.truth = truth
        self.sid = sid

    def due(self, code: str) -> bool:
        return self.code == code

    def found(self, code: str, seat: int, trick: int | None) -> None:
        self.code = None
        self.truth.findings.append(
            TruthFinding(self.sid, self.r.record.number, trick, self.r.record.seats[seat], code)
        )

    def early_declarer(self, order: list[int]) -> int | None:
        """``declare-out-of-turn``: a seat that swaps places with the one after it (never the
        last non-dealer or the dealer), taken out of ``order``."""
        if not self.due("declare-out-of-turn") or self.r.result.must or len(order) < 4:
            return None
        i = self.rng.randrange(len(order) - 3)
        order[i], order[i + 1] = order[i + 1], order[i]
        return order.pop(i)

    def forced_pass(self, seat: int, actions: tuple[Action, ...]) -> bool:
        """``forced-play``: a pass where the rules allow none."""
        if self.due("forced-play") and PASS not in actions:
            self.found("forced-play", seat, None)
            return True
        return False

    def false_flush(self) -> int | None:
        """``false-flush``: the first player in the play whose hand is no flush shows one."""
        state = self.r.state
        if not self.due("false-flush"):
            return None
        for seat in self.r.clockwise:
            if not is_flush(state.hands[seat], state.trump, state.options):
                self.found("false-flush", seat, None)
                return seat
        return None

    def rogue(self, seat: int, trick_no: int) -> tuple[int, int] | None:
        """``out-of-turn``: a player still to play this trick plays before ``seat``."""
        state = self.r.state
        trick = state.trick
        if not self.due("out-of-turn") or trick is None or not trick.live:
            return None
        done = {s for s, _, _, _ in trick.cards}
        others = [s for s in state.playing() if s != seat and s not in done]
        if not others:
            return None
        rogue = self.rng.choice(others)
        card = self.rng.choice(list(cards_of(state.hands[rogue])))
        self.found("out-of-turn", rogue, trick_no)
        return rogue, card

    def revoke(self, seat: int, legal: int, trick_no: int) -> int | None:
        """A card outside ``legal``: a rare code whenever one is on offer, otherwise now and
        then, so that over many deals every code turns up."""
        if not self.due("revoke"):
            return None
        state = self.r.state
        by_code: dict[str, list[int]] = {}
        for card in cards_of(state.hands[seat] & ~legal):
            code = breach(state, seat, card)
            assert code is not None
            by_code.setdefault(code, []).append(card)
        if not by_code:
            return None
        rare = [c for c in by_code if c in RARE_REVOKES]
        if not rare and self.rng.random() > 0.35:
            return None
        code = self.rng.choice(rare or sorted(by_code))
        card = self.rng.choice(by_code[code])
        self.found(code, seat, trick_no)
        return card

    def trump_turn(self, trick_no: int, due: bool) -> bool | None:
        """``trump-turn``: a due turn left out (False), or one where none is due (True);
        None when nothing is injected."""
        r = self.r
        if not self.due("trump-turn"):
            return None
        if due:
            self.found("trump-turn", r.record.dealer, trick_no)
            return False
        if r.state.trump == NO_TRUMP and trick_no > 1 and r.method == "on_void":
            self.found("trump-turn", r.record.dealer, trick_no)
            return True
        return None


class _Table:
    """Plays one deal: asks each seat's bot, lets the injector break a rule, and feeds every
    event to the engine, whose records say what happened."""

    def __init__(
        self,
        deal: _Deal,
        rng: random.Random,
        stock: list[int],
        injector: _Injector,
        timid: bool,
    ) -> None:
        self.deal = deal
        self.r = deal.replay
        self.stock = stock
        self.inject = injector
        self.bots = [Bot(seat, self.r, rng, timid) for seat in range(self.r.n)]

    def emit(self, event: Event) -> Applied:
        self.deal.events.append(event)
        return self.r.apply(event)

    def index(self) -> int:
        return len(self.deal.events)

    def play(self) -> None:
        r = self.r
        self.declare()
        if r.o.deal_exchange and not r.result.must:
            self.exchange()
        r.begin_play()
        if r.phase == PLAYING:  # a flush is judged on the final hands (docs/rules.md §2.8)
            shower = self.inject.false_flush()
            if shower is not None:
                self.emit(ShowFlush(self.index(), shower))
        while r.phase == PLAYING and self.next_card():
            pass

    def declare(self) -> None:
        order = list(self.r.clockwise)
        early = self.inject.early_declarer(order)
        if early is not None:
            self.emit(Declare(self.index(), early, self.bots[early].declare_early()))
            self.inject.found("declare-out-of-turn", early, None)
        for seat in order:
            actions = self.r.legal_actions(seat)
            forced = self.inject.forced_pass(seat, actions)
            action = PASS if forced else self.bots[seat].declare(actions)
            self.emit(Declare(self.index(), seat, action))

    def exchange(self) -> None:
        for seat in self.r.clockwise:
            if self.r.result.declarations[seat] != PLAY:
                continue
            discard = self.bots[seat].discards(len(self.stock))
            if discard:
                draw = tuple(self.stock.pop() for _ in discard)
                self.emit(Exchange(self.index(), seat, discard, draw))

    def next_card(self) -> bool:
        r, state = self.r, self.r.state
        seat = r.on_turn()
        if seat is None:
            return False
        trick = state.trick
        trick_no = trick.number if trick is not None else len(state.tricks) + 1
        if trick is None:
            self.between_tricks(trick_no)
        rogue = self.inject.rogue(seat, trick_no)
        if rogue is not None:
            self.emit(Play(self.index(), *rogue, False))
            return True
        leading = trick is None or not trick.live
        announce = leading and self.bots[seat].announce()
        legal = legal_cards(state, seat)
        card = self.inject.revoke(seat, legal, trick_no)
        if card is None:
            card = self.bots[seat].card(legal)
        self.emit(Play(self.index(), seat, card, announce))
        return True

    def between_tricks(self, trick_no: int) -> None:
        """The dealer turns a trump when one is due (``on_void``), unless told otherwise."""
        due = self.r.turn_due
        turn = self.inject.trump_turn(trick_no, due)
        if turn if turn is not None else due:
            self.emit(TurnUp(self.index(), self.stock.pop()))


def _record(deal: _Deal) -> DealRecord:
    rec = deal.replay.record
    return DealRecord(
        rec.number,
        rec.seats,
        rec.dealer,
        rec.hands,
        rec.miss,
        rec.turn_up,
        rec.misdeal,
        tuple(deal.events),
    )


def _event_json(event: Event, seats: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(event, Declare):
        return {"type": "declare", "player": seats[event.seat], "action": event.action}
    if isinstance(event, Play):
        play = {"type": "play", "player": seats[event.seat], "card": canonical(event.card)}
        if event.announce:
            play["announce"] = "pam_be_civil"
        return play
    if isinstance(event, Exchange):
        return {
            "type": "exchange",
            "player": seats[event.seat],
            "discard": [canonical(c) for c in event.discard],
            "draw": [canonical(c) for c in event.draw],
        }
    if isinstance(event, ShowFlush):
        return {"type": "show_flush", "player": seats[event.seat]}
    return {"type": "turn_up", "card": canonical(event.card)}


def write_simulation(out: Path, docs: Iterable[dict[str, Any]], count: int, truth: Truth) -> Path:
    """Write ``docs`` as the file name says (.json, .jsonl, .jsonl.gz) and the ground truth
    beside it; returns the truth file's path."""
    name = out.name.lower()
    if name.endswith(".json") and not name.endswith(TRUTH_SUFFIX):
        if count != 1:
            raise ValueError(f"{out}: a .json file holds one session; use .jsonl for {count}")
        (doc,) = list(docs)
        write_atomic(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    elif name.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
        gz = name.endswith(".gz")
        # mtime=0 keeps gzip output byte-identical for the same seed
        with replacing(out) as raw:
            sink: gzip.GzipFile | BinaryIO = (
                gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) if gz else raw
            )
            for doc in docs:
                sink.write(orjson.dumps(doc) + b"\n")
            if gz:
                sink.close()  # the gzip trailer; ``replacing`` closes the file itself
    else:
        raise ValueError(f"{out}: name the output .json, .jsonl or .jsonl.gz")
    stem = out.name[: -len(".gz")] if name.endswith(".gz") else out.name
    truth_path = out.with_name(stem.rsplit(".", 1)[0] + TRUTH_SUFFIX)
    write_atomic(truth_path, orjson.dumps(truth.as_json(), option=orjson.OPT_INDENT_2) + b"\n")
    return truth_path

"""How the cards of a simulated deal come out: a fair shuffle, or, made unfair on purpose
(docs/fairness.md, "Simulating unfair dealing"), a crooked dealer who swaps the best trump
into his hand and a pack dealt from a few riffles of the last deal's cards."""

from __future__ import annotations

import random
from dataclasses import dataclass

from loo_replay.engine.cards import PAM, canonical
from loo_replay.engine.model import Event, Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealPlan
from loo_replay.engine.tables import TRUMP_ORDER
from loo_replay.simulate.truth import Truth, TruthSwap

# The cards of a deal as dealt: the pack, the hands by seat, the Miss, the turn-up, the stock.
Dealt = tuple[list[int], list[list[int]], list[int] | None, int | None, list[int]]


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


def fair_deal(rng: random.Random, seats: int, size: int, plan: DealPlan) -> Dealt:
    """A uniformly shuffled pack: the hands in blocks of ``size``, then the Miss and the
    turn-up from the end of the rest."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[i * size : (i + 1) * size] for i in range(seats)]
    rest = deck[seats * size :]
    miss = [rest.pop() for _ in range(size)] if plan.miss else None
    turn_up = rest.pop() if plan.turn_up else None
    return deck, hands, miss, turn_up, rest


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


class Dealing:
    """The unfair dealing of one session: the crooked dealer's swaps and the riffled
    pack, drawn from their own generator so the rest of the game keeps its draws."""

    def __init__(
        self,
        options: Options,
        players: tuple[str, ...],
        crooked: Crooked | None,
        riffles: int | None,
        truth: Truth,
        rng: random.Random,
        sid: str,
    ) -> None:
        self.o, self.players, self.crooked, self.riffles = options, players, crooked, riffles
        self.truth, self.rng, self.sid = truth, rng, sid
        self.previous: list[int] | None = None  # the last deal's cards, gathered

    def riffled(self, dealer: int, plan: DealPlan) -> Dealt:
        """Deal the gathered cards after K riffles and a cut, one at a time clockwise from
        the eldest and then the Miss; the turn-up from the top of the rest."""
        assert self.previous is not None and self.riffles is not None
        deck = riffle(self.previous, self.riffles, self.rng)
        n, size = len(self.players), self.o.deal_hand_size
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
        crooked = self.crooked
        assert crooked is not None
        if self.rng.random() >= crooked.rate:
            return
        best = top_trump(self.o.deal_pam, turn_up)
        if best is None or best in hands[dealer]:
            return
        places: list[tuple[str, list[int]]] = [
            (p, h) for p, h in zip(self.players, hands, strict=True)
        ]
        places += [("miss", miss)] if miss is not None else []
        places.append(("stock", stock))
        source, pile = next((name, pile) for name, pile in places if best in pile)
        mine = hands[dealer]
        k = self.rng.randrange(len(mine))
        pile[pile.index(best)], mine[k] = mine[k], best
        self.truth.swaps.append(
            TruthSwap(self.sid, number, crooked.player, canonical(best), source)
        )

    def gather(
        self,
        events: list[Event],
        dealer: int,
        hands: list[list[int]],
        miss: list[int] | None,
        turn_up: int | None,
        deck: list[int],
    ) -> None:
        """The cards in the order the tricks were played, then those not played: the hands
        seat by seat from the eldest, the Miss, the turn-up and the stock."""
        n = len(hands)
        order = [e.card for e in events if isinstance(e, Play)]
        for seat in ((dealer + 1 + i) % n for i in range(n)):
            order += hands[seat]
        order += (miss or []) + ([] if turn_up is None else [turn_up]) + deck
        self.previous = list(dict.fromkeys(order))

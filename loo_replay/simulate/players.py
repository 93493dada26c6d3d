"""The simulated players: a ``Bot`` per seat, and the ``Table`` that plays a deal with them.

Bots declare from ``Replay.legal_actions`` and play from ``legal_cards``, so a simulated
game is legal by the same code that judges it; every event goes through the engine, whose
records say what happened, and the injector breaks a rule where it is told to."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from loo_replay.engine.cards import ACE, PAM, cards_of
from loo_replay.engine.legal import legal_cards
from loo_replay.engine.model import (
    DEFEND,
    PASS,
    PLAY,
    TAKE_MISS,
    Applied,
    Declare,
    Event,
    Exchange,
    Play,
    ShowFlush,
    TurnUp,
)
from loo_replay.engine.replay import PLAYING, Replay
from loo_replay.engine.tables import NO_TRUMP, POWER
from loo_replay.engine.vocab import Action
from loo_replay.simulate.colluders import Partners
from loo_replay.simulate.injector import Injector


@dataclass
class Deal:
    """One deal being built: the JSON record, the engine's replay, the events so far."""

    json: dict[str, Any]
    replay: Replay
    events: list[Event] = field(default_factory=list)


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


class Table:
    """Plays one deal: asks each seat's bot, lets the injector break a rule, and feeds every
    event to the engine, whose records say what happened."""

    def __init__(
        self,
        deal: Deal,
        rng: random.Random,
        stock: list[int],
        injector: Injector,
        timid: bool,
        partners: Partners | None = None,
    ) -> None:
        self.deal = deal
        self.r = deal.replay
        self.stock = stock
        self.inject = injector
        self.partners = partners  # colluding players, who may act for each other
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
            if self.partners is not None and not forced:
                strength = self.bots[seat].strength()
                action = self.partners.declare(self.r, seat, actions, action, strength)
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
            if self.partners is not None:
                card = self.partners.card(self.r, seat, legal, card)
        self.emit(Play(self.index(), seat, card, announce))
        return True

    def between_tricks(self, trick_no: int) -> None:
        """The dealer turns a trump when one is due (``on_void``), unless told otherwise."""
        due = self.r.turn_due
        turn = self.inject.trump_turn(trick_no, due)
        if turn if turn is not None else due:
            self.emit(TurnUp(self.index(), self.stock.pop()))

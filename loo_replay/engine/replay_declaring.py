"""The declarations and what goes with them: docs/rules.md §2.5-2.8.

``DeclaringReplay`` adds to ``ReplayBase`` the events of the declaring phase: each
declaration (checked against ``engine.declarations``' rules of the table), their close (the
forced plays, who plays, the flush step where it follows the declarations), the exchanges
with the stock and the flushes shown.  ``engine.replay.Replay`` adds the play.
"""

from __future__ import annotations

from loo_replay.engine.cards import display, display_cards, mask_of
from loo_replay.engine.declarations import Declaring
from loo_replay.engine.flush import is_flush
from loo_replay.engine.model import DEFEND, PASS, PLAY, TAKE_MISS, Declare, Exchange, ShowFlush
from loo_replay.engine.replay_base import DECLARING, OVER, PLAYING, DealResult, ReplayBase
from loo_replay.engine.vocab import Action, Outcome

_PLAYED = Outcome.PLAYED


class DeclaringReplay(ReplayBase):
    """The replay's steps for the declarations, exchanges and flushes shown."""

    # -- declarations (§2.5-2.6) --------------------------------------------

    def _declare(self, ev: Declare) -> None:
        r: DealResult = self.result
        rules: Declaring = self._declaring
        seat: int = ev.seat
        if self._phase != DECLARING:  # the pointers are built only to reject
            raise self.reject(f"/events/{ev.index}", f"{self.name(seat)} declares after play began")
        if r.declarations[seat] is not None:
            raise self.reject(f"/events/{ev.index}", f"second declaration by {self.name(seat)}")
        action = ev.action
        if action in (TAKE_MISS, DEFEND):
            problem = rules.miss_problem(
                r.declarations,
                seat,
                action,
                must=r.must,
                miss_dealt=self.miss_dealt(),
                miss_taker=r.miss_taker,
            )
            if problem is not None:
                raise self.reject(f"/events/{ev.index}/action", problem)
        if not r.must:
            expected = rules.turn(r.declarations)
            if expected != seat:
                amount = self.o.penalties_declare_out_of_turn
                self.charge_current(seat, amount)
                self.violate(
                    "declare-out-of-turn",
                    seat,
                    f"{self.name(seat)} declared {action} before {self.name(expected)}, "
                    "whose turn it was",
                    penalty=amount,
                    event=ev.index,
                )
        elif action == PASS:
            self.violate(
                "forced-play",
                seat,
                f"{self.name(seat)} passed in a must deal, where everyone must play; "
                "the pass stands and they are out",
                event=ev.index,
            )
        r.declarations[seat] = action
        if action in (TAKE_MISS, DEFEND):
            miss = self._miss or ()
            self.state.hands[seat] = mask_of(miss)
            self.state.order[seat] = list(miss)
            if self._partial:
                self._derived_now[seat] = self._miss_derived
                self._known[seat] = self._miss_known
            r.miss_taker = seat
            if action == DEFEND:
                r.defender = seat

    def _close_declarations(self) -> None:
        """All declared: find forced-play breaches, the active players and the outcome."""
        r: DealResult = self.result
        rules: Declaring = self._declaring
        missing: int = rules.missing(r.declarations, r.must)
        if missing >= 0:
            raise self.reject(
                "",
                f"no declaration by {self.name(missing)} (declarations go clockwise "
                f"from {self.name(self.clockwise[0])})",
            )
        if not r.must:
            self._forced_play()
        active, r.outcome = rules.outcome(r.declarations, r.must)
        r.active = self.state.active = active
        self._active_mask = sum(1 << s for s in active)
        if r.outcome == _PLAYED:
            self._leader = active[0]
        # §2.6: all_passed and unopposed end the deal before the flush step (§2.8).
        if self.o.flush_when == "declared" and r.outcome == _PLAYED:
            self._judge_flushes(active, dealt=False)
        if self._flush_view is None:
            for ev in self._shown:
                r.notes.append(
                    f"{self.name(ev.seat)}'s flush shown was not judged: the deal ended "
                    f"{r.outcome.replace('_', ' ')}, before any flush"
                )
        else:
            for ev in self._shown:
                self._judge_show(ev)
        self._shown.clear()
        if self._phase == DECLARING:
            self._phase = PLAYING if r.outcome == _PLAYED else OVER

    def miss_dealt(self) -> bool:
        """A Miss lies on the table: recorded, or unknown in a partial deal that deals one."""
        return self.record.miss is not None or (self._partial and self._plan.miss)

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """The declarations ``seat`` may make now without a violation or a log error."""
        r: DealResult = self.result
        miss_open = self.miss_dealt() and r.miss_taker is None
        return self._declaring.actions(r.declarations, seat, must=r.must, miss_open=miss_open)

    def _forced_play(self) -> None:
        """§2.5: a pass where the rules say play stands, and is a ``forced-play`` violation."""
        rules: Declaring = self._declaring
        decl = self.result.declarations
        for seat in dict.fromkeys((self.clockwise[-2], self.record.dealer)):
            why = rules.forced_reason(decl, seat)
            if why is None or decl[seat] not in (PASS, None):
                continue
            did = "passed" if decl[seat] == PASS else "did not declare"
            event = next(
                (e.index for e in self.record.events if isinstance(e, Declare) and e.seat == seat),
                None,
            )
            self.violate(
                "forced-play", seat, f"{self.name(seat)} {did}: {why}; the pass stands", event=event
            )
            decl[seat] = PASS

    # -- exchanges, flushes shown, trump turns --------------------------------

    def _exchange(self, ev: Exchange) -> None:
        r: DealResult = self.result
        o = self.o
        path = f"/events/{ev.index}"
        who = self.name(ev.seat)
        if not o.deal_exchange or r.must:
            why = "a must deal" if o.deal_exchange else "this ruleset"
            raise self.reject(path, f"{who} exchanges cards, but {why} allows no exchange")
        if self._phase != DECLARING:
            raise self.reject(path, f"{who} exchanges after the first card was played")
        if r.declarations[ev.seat] != PLAY:
            raise self.reject(path, f"{who} exchanges without having declared play")
        if not ev.discard and not ev.draw:
            return  # §2.7: an exchange of no cards is allowed and changes nothing
        if ev.seat in self._exchanged:
            raise self.reject(path, f"{who} exchanges a second time")
        if len(ev.draw) != len(ev.discard):
            raise self.reject(
                f"{path}/draw",
                f"{who} discards {len(ev.discard)} and draws {len(ev.draw)}: draw as many as discarded",
            )
        hand = self.state.hands[ev.seat]
        for i, card in enumerate(ev.discard):
            if not hand >> card & 1:
                raise self.reject(
                    f"{path}/discard/{i}",
                    f"{who} discards {display(card)} but does not hold it "
                    f"({who} holds {display_cards(self.state.held(ev.seat))})",
                )
        if len(ev.draw) > self._stock:
            raise self.reject(
                f"{path}/draw", f"{who} draws {len(ev.draw)} cards; the stock holds {self._stock}"
            )
        if self._partial and ev.draw:
            self._unchecked.add("draw-unseen")
        for i, card in enumerate(ev.draw):
            if self._seen >> card & 1:
                raise self.reject(
                    f"{path}/draw/{i}",
                    f"{who} draws {display(card)}, which was already dealt or drawn: a card in two places",
                )
            self._seen |= 1 << card
        self._stock -= len(ev.draw)
        self._exchanged.add(ev.seat)
        self.state.hands[ev.seat] = hand & ~mask_of(ev.discard) | mask_of(ev.draw)
        self.state.order[ev.seat].extend(ev.draw)

    def _show_flush(self, ev: ShowFlush) -> None:
        """§2.8: judged on the hand the flush step judges, so one shown during the
        declarations waits for it."""
        if self._flush_view is None:
            self._shown.append(ev)
        else:
            self._judge_show(ev)

    def _judge_show(self, ev: ShowFlush) -> None:
        """A flush shown by a player without a flush that counts is ``false-flush``."""
        view = self._flush_view
        assert view is not None
        seat = ev.seat
        if self._partial and not self._known[seat]:
            self._unchecked.add("flush-shown")
            return
        hand = view.hands[seat]
        dealt = self._hands[seat] if view.dealt else self.state.order[seat]
        held = tuple(c for c in dealt or () if hand >> c & 1)
        if not self._flushes_count():
            why = (
                "this ruleset has no flushes"
                if self.o.flush_kind == "none"
                else "flushes count only in a double pool"
            )
        elif seat not in view.group:
            why = f"{self.name(seat)} is not in the play, so a flush would not count"
        elif not is_flush(hand, view.trump, self.o):
            why = "that is not a flush under this ruleset"
        else:
            return
        self.violate(
            "false-flush",
            seat,
            f"{self.name(seat)} showed a flush holding {display_cards(held)}"
            f"{' as dealt' if view.dealt else ''}, but {why}",
            held=held,
            event=ev.index,
        )

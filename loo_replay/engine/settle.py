"""Settling a deal's pool: docs/rules.md §5.1-5.3.

Amounts are per seat.  ``pool`` is the start pool plus single penalties paid
into it during the deal; chips not paid out stay and carry, with loos and
larger penalties, into ``pool_next``.
"""

from __future__ import annotations

import cython

from loo_replay.engine.cards import PAM
from loo_replay.engine.options import Options
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.vocab import Outcome

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
_MISDEAL, _ALL_PASSED, _UNOPPOSED = Outcome.MISDEAL, Outcome.ALL_PASSED, Outcome.UNOPPOSED
_FLUSH, _REVOKE = Outcome.FLUSH, Outcome.REVOKE


class Settlement:
    """A deal's pool settled, amounts by seat.  Compiled, an extension type (settle.pxd)
    whose fields the session reads as struct members: one is made every deal."""

    def __init__(self, pool_start: int, pool: int, penalties: dict[int, int]) -> None:
        self.pool_start: int = pool_start
        self.pool: int = pool
        self.payouts: dict[int, int] = {}
        self.looed: dict[int, int] = {}
        self.penalties: dict[int, int] = penalties  # every penalty, wherever it went
        self.pool_next: int = 0

    def __repr__(self) -> str:
        return (
            f"Settlement(pool_start={self.pool_start}, pool={self.pool}, payouts={self.payouts}, "
            f"looed={self.looed}, penalties={self.penalties}, pool_next={self.pool_next})"
        )

    def paid_by(self, seat: cython.int) -> int:
        """Chips ``seat`` paid during the deal (loo and penalties; antes are the session's):
        a Python integer, since unlimited loos grow past 64 bits."""
        return self.looed.get(seat, 0) + self.penalties.get(seat, 0)


def _add(amounts: dict[int, int], seat: int, chips: int) -> None:
    if chips:
        amounts[seat] = amounts.get(seat, 0) + chips


def _loo(o: Options, pool: int) -> int:
    """What a looed player pays into the next pool (docs/rules.md §5.1)."""
    if o.stakes_loo == "limited":
        return o.stakes_loo_amount
    return min(pool, o.stakes_loo_cap) if o.stakes_loo_cap > 0 else pool


def settle(r: DealResult, o: Options, pool_start: int) -> Settlement:
    """Who takes what from the pool, who is looed for how much, and what carries."""
    dealer = r.record.dealer
    n = len(r.record.seats)
    pool = pool_start + sum(r.current_penalties.values())
    s: Settlement = Settlement(pool_start, pool, dict(r.current_penalties))
    to_next = 0
    if r.outcome == _MISDEAL:
        _add(s.penalties, dealer, o.penalties_misdeal)
        s.pool_next = pool + o.penalties_misdeal
        return s
    everyone = o.stakes_loo_scope == "everyone"
    if r.outcome in (_ALL_PASSED, _UNOPPOSED):
        taker = dealer if r.outcome == _ALL_PASSED else r.active[0]
        s.payouts[taker] = pool
        if everyone:
            for seat in range(n):
                if seat != taker:
                    _add(s.looed, seat, _loo(o, pool))
    elif r.outcome == _FLUSH:
        winner = r.flush_winner
        assert winner is not None
        s.payouts[winner] = pool
        group = r.flush_group if o.flush_looes == "active" else list(range(n))
        pam_holders = {x for x in group if o.deal_pam and r.hands[x] >> PAM & 1}
        for seat in group:
            if seat == winner or seat in r.flush_losers:
                continue
            if o.flush_exempt_pam and seat in pam_holders:
                continue
            _add(s.looed, seat, _loo(o, pool) if o.flush_pay == "loo" else o.stakes_ante)
    else:
        revokers = set(r.revokers)
        for seat in r.revokers:
            _add(s.penalties, seat, o.penalties_revoke_amount)
            to_next += o.penalties_revoke_amount
        if r.outcome == _REVOKE:
            sharers = [x for x in r.active if x not in revokers and x not in r.retired]
            if sharers:
                portion = pool // len(sharers)
                for seat in sharers:
                    if seat != r.defender:
                        _add(s.payouts, seat, portion)
        else:
            share = pool // o.deal_hand_size
            forfeit = o.penalties_revoke == "forfeit"
            for seat in r.active:
                if seat == r.defender or seat in r.retired or (forfeit and seat in revokers):
                    continue
                _add(s.payouts, seat, share * r.tricks_won[seat])
            candidates = range(n) if everyone else r.active
            for seat in candidates:
                if r.tricks_won[seat] == 0 and seat != r.defender and seat not in r.retired:
                    _add(s.looed, seat, _loo(o, pool))
    s.pool_next = pool - sum(s.payouts.values()) + sum(s.looed.values()) + to_next
    return s

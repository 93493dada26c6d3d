"""The rows of the tables with a row a deal, a seat, a trick or a card played (``deals``,
``seats``, ``tricks``, ``plays``): the loader's hot path, one function a table, compiled with
the audit (docs/performance.md, "The loader").

Each function takes its table's columns (``frames.Columns.values``, in the order
``run.rows`` declares the table's row) and adds one audited deal's values straight into
them: integers and card numbers as C integers, texts as codes into the batch's distinct
texts, lists of cards as card numbers (``run.columns``).
"""

from __future__ import annotations

from typing import Any

import cython

from loo_replay.engine.cards import SUITS
from loo_replay.engine.model import DEAD, Trick
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.run.columns import CardLists, Ints, Texts


def deal_row(columns: tuple[Any, ...], sid: str, index: int, d: DealAudit) -> None:
    """The deal's row of ``deals``, a value a column as ``seat_rows`` adds them (a
    ``DealRow`` and its generic path cost a tenth of the frames)."""
    result: DealResult | None = d.result
    assert result is not None
    rec = result.record
    ids = rec.seats
    c_session_id: Texts
    c_deal_index: Ints
    c_deal: Ints
    c_status: Texts
    c_dealer: Texts
    c_seated: Ints
    c_pool: Texts
    c_pool_start: Ints
    c_must: Ints
    c_trump: Texts
    c_turn_up: Ints
    c_miss: CardLists
    c_miss_taker: Texts
    c_defender: Texts
    c_outcome: Texts
    c_pool_next: Ints
    c_violations: Ints
    c_discrepancies: Ints
    c_knowledge: Texts
    (
        c_session_id, c_deal_index, c_deal, c_status, c_dealer, c_seated, c_pool,
        c_pool_start, c_must, c_trump, c_turn_up, c_miss, c_miss_taker, c_defender,
        c_outcome, c_pool_next, c_violations, c_discrepancies, c_notes, c_knowledge,
        c_unchecked,
    ) = columns  # fmt: skip
    c_session_id.append(sid)
    c_deal_index.add(index)
    c_deal.add(rec.number)
    c_status.append(d.status)
    c_dealer.append(ids[rec.dealer])
    c_seated.add(len(ids))
    c_pool.append(d.pool)
    c_pool_start.append(d.pool_start)
    c_must.add(d.must)
    c_trump.append(None if d.trump is None else SUITS[d.trump])
    c_turn_up.append(rec.turn_up)
    c_miss.append(rec.miss)
    c_miss_taker.append(None if result.miss_taker is None else ids[result.miss_taker])
    c_defender.append(None if result.defender is None else ids[result.defender])
    c_outcome.append(d.outcome)
    c_pool_next.append(d.pool_next)
    c_violations.add(len(d.violations))
    c_discrepancies.add(len(d.discrepancies))
    c_notes.append(list(d.notes))
    c_knowledge.append(d.knowledge)
    c_unchecked.append(list(d.unchecked))


def seat_rows(columns: tuple[Any, ...], sid: str, index: int, d: DealAudit) -> None:
    """The deal's rows of ``seats``, one a seat."""
    result: DealResult | None = d.result
    assert result is not None
    rec = result.record
    known = d.payouts is not None
    payouts: dict[str, int] = d.payouts or {}
    looed_by: dict[str, int] = d.looed or {}
    penalties: dict[str, int] = d.penalties or {}
    stacks: dict[str, int] | None = d.stacks
    antes: dict[str, int] = d.antes
    active = set(result.active)
    retired = result.retired
    declarations = result.declarations or [None] * len(rec.seats)
    tricks_won = result.tricks_won or [0] * len(rec.seats)
    dealer: cython.int = rec.dealer
    number: cython.longlong = rec.number
    hands = rec.hands
    c_session_id: Texts
    c_deal_index: Ints
    c_deal: Ints
    c_seat: Ints
    c_player: Texts
    c_dealer: Ints
    c_declaration: Texts
    c_active: Ints
    c_retired: Ints
    c_hand: CardLists
    c_tricks: Ints
    c_ante: Ints
    c_payout: Ints
    c_loo: Ints
    c_looed: Ints
    c_penalties: Ints
    c_net: Ints
    c_stack: Ints
    (
        c_session_id, c_deal_index, c_deal, c_seat, c_player, c_dealer, c_declaration,
        c_active, c_retired, c_hand, c_tricks, c_ante, c_payout, c_loo, c_looed,
        c_penalties, c_net, c_stack,
    ) = columns  # fmt: skip
    session: cython.longlong = c_session_id.code(sid)
    seat: cython.int
    for seat, player in enumerate(rec.seats):
        ante = antes.get(player, 0)
        payout = payouts.get(player, 0) if known else None
        loo = looed_by.get(player, 0) if known else None
        penalty = penalties.get(player, 0) if known else None
        net = None
        if payout is not None and loo is not None and penalty is not None:
            net = payout - loo - penalty - ante
        c_session_id.add(session)
        c_deal_index.add(index)
        c_deal.add(number)
        c_seat.add(seat)
        c_player.append(player)
        c_dealer.add(seat == dealer)
        c_declaration.append(declarations[seat])
        c_active.add(seat in active)
        c_retired.add(seat in retired)
        c_hand.append(hands[seat])
        c_tricks.add(tricks_won[seat])
        c_ante.append(ante)
        c_payout.append(payout)
        c_loo.append(loo)
        c_looed.append(None if loo is None else loo > 0)
        c_penalties.append(penalty)
        c_net.append(net)
        c_stack.append(None if stacks is None else stacks.get(player))


def trick_and_play_rows(
    tricks: tuple[Any, ...], plays: tuple[Any, ...], sid: str, index: int, d: DealAudit
) -> None:
    """The deal's rows of ``tricks`` and of ``plays`` (a card played a row), taken in one
    walk of the tricks: the hot path of the loader."""
    result: DealResult | None = d.result
    assert result is not None
    rec = result.record
    ids = rec.seats
    number: cython.longlong = rec.number
    found = {
        (v.event, v.player, v.card): v.code
        for v in reversed(d.violations)  # the first finding at a card wins
        if v.event is not None and v.card is not None
    }
    t_session_id: Texts
    t_deal_index: Ints
    t_deal: Ints
    t_trick: Ints
    t_leader: Texts
    t_led: Ints
    t_winner: Texts
    t_cards: Ints
    t_dead: Ints
    (
        t_session_id, t_deal_index, t_deal, t_trick, t_leader, t_led, t_winner, t_cards,
        t_dead,
    ) = tricks  # fmt: skip
    p_session_id: Texts
    p_deal_index: Ints
    p_deal: Ints
    p_trick: Ints
    p_position: Ints
    p_event: Ints
    p_seat: Ints
    p_player: Texts
    p_card: Ints
    p_dead: Ints
    p_legal: Ints
    p_legal_cards: CardLists
    p_wins: Ints
    p_finding: Texts
    (
        p_session_id, p_deal_index, p_deal, p_trick, p_position, p_event, p_seat,
        p_player, p_card, p_dead, p_legal, p_legal_cards, p_wins, p_finding,
    ) = plays  # fmt: skip
    # Each text of the deal's rows looked up once: the rows take its code.
    trick_session: cython.longlong = t_session_id.code(sid)
    play_session: cython.longlong = p_session_id.code(sid)
    leaders = [t_leader.code(p) for p in ids]
    winners = [t_winner.code(p) for p in ids]
    players = [p_player.code(p) for p in ids]
    no_finding: cython.longlong = p_finding.code(None)
    not_judged: cython.longlong = DEAD  # a C constant, not a Python integer a card
    position: cython.int
    seat: cython.int
    card: cython.int
    event: cython.int
    winner: cython.int
    mask: cython.longlong
    dead: cython.bint
    t: Trick
    for t in result.tricks:
        winner = t.winner if t.winner is not None and t.winner >= 0 else -1
        t_session_id.add(trick_session)
        t_deal_index.add(index)
        t_deal.add(number)
        t_trick.add(t.number)
        t_leader.add(leaders[t.leader])
        if t.live:
            t_led.add(t.lead)
        else:
            t_led.add_null()
        t_winner.add(winners[winner] if winner >= 0 else t_winner.code(None))
        t_cards.add(t.live)
        t_dead.add(len(t.cards) - t.live)
        played = t.cards
        for position in range(1, len(played) + 1):
            seat, card, mask, event = played[position - 1]
            dead = mask == not_judged
            p_session_id.add(play_session)
            p_deal_index.add(index)
            p_deal.add(number)
            p_trick.add(t.number)
            p_position.add(position)
            p_event.add(event)
            p_seat.add(seat)
            p_player.add(players[seat])
            p_card.add(card)
            p_dead.add(dead)
            if dead:
                p_legal.add_null()
            else:
                p_legal.add(mask >> card & 1)
            p_legal_cards.append_mask(mask)
            p_wins.add(not dead and seat == winner)
            if found:
                p_finding.append(found.get((event, ids[seat], card)))
            else:
                p_finding.add(no_finding)

"""The judged decisions and the seat views on a replay (docs/replay.md, "Judged decisions"
and "Seat views").

The decisions are ``engine.judging.judge_deal``'s, with the seed and samples of
``analyse --decisions``, so the replay and the analysis say the same figures.  What a seat
knew of the others' hands is what their plays revealed, read with ``engine.worlds.Check``:
the very test the judging's worlds avoid cards by (a card that alone, added to what the
player is known to have held then, would have made one of their legal cards illegal), so
the replay lists nothing the judging does not use, and nothing it uses is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loo_replay.engine.cards import FULL_DECK, cards_of, display, parse_card
from loo_replay.engine.model import Play
from loo_replay.engine.records import record, replace
from loo_replay.engine.replay import DECLARING, Replay
from loo_replay.engine.state import DealState
from loo_replay.engine.vocab import Action
from loo_replay.engine.worlds import Check
from loo_replay.replayer.steps import DealReplay, ReplayError, Revealed, Step

if TYPE_CHECKING:  # the judging is imported where it runs: a replay without it does without
    from loo_replay.engine.judging import DealDecisions, Decision

# A declaration option in a player's words.
DECLARATIONS = {
    Action.PLAY: "stand",
    Action.PASS: "pass",
    Action.TAKE_MISS: "take the Miss",
    Action.DEFEND: "defend",
}


def judged(rp: DealReplay, samples: int, seed: int) -> DealReplay:
    """``rp`` with its decisions judged as ``analyse --decisions --samples K --seed S``
    judges them (the same generator: seed, session, deal, decision)."""
    from loo_replay.engine.judging import judge_deal

    return replace(rp, decisions=judge_deal(rp.audit, rp.options, samples, seed, rp.session_id))


def with_views(rp: DealReplay) -> DealReplay:
    """``rp`` with what each step's plays had revealed of every hand (the seat views)."""
    return replace(rp, revealed=revealed_by_step(rp))


def as_loaded(rp: DealReplay, decisions: DealDecisions | None) -> DealReplay:
    """``rp`` as the pages of a database show it: with the decisions the load judged
    (``ingest --decisions``), if any, and the seat views."""
    return with_views(rp if decisions is None else replace(rp, decisions=decisions))


# -- the decisions in words ---------------------------------------------------------


def option_label(key: str) -> str:
    """``play`` → ``stand``, ``9C`` → ``9♣``, ``AD+announce`` → ``A♦ + "Pam, be civil"``."""
    if key in DECLARATIONS:
        return DECLARATIONS[Action(key)]
    card = display(parse_card(key.removesuffix("+announce")))
    return card + ' + "Pam, be civil"' if key.endswith("+announce") else card


def judgement(d: Decision) -> str:
    """The step's ``judgement`` (docs/replay.md, "Hooks"): the class, else ``best`` when the
    choice was the best, ``good`` when it lost too little, or too uncertainly, to class."""
    return d.klass or ("best" if d.chosen == d.best else "good")


def options_line(d: Decision) -> str:
    """Every option with its chips and standard error, the chosen and the best marked."""
    parts = []
    for o in d.options:
        marks = [m for m, on in (("chosen", o.key == d.chosen), ("best", o.key == d.best)) if on]
        said = f" ({', '.join(marks)})" if marks else ""
        parts.append(f"{option_label(o.key)} {o.value:+.2f} ±{o.se:.2f}{said}")
    return " · ".join(parts)


def verdict_line(d: Decision) -> str:
    """The loss and its standard error, and the class it earned."""
    return f"loss {d.loss:.2f} ±{d.loss_se:.2f} chips: {judgement(d)}"


def heading(decisions: DealDecisions) -> str:
    """One line for the deal: how it was judged, or why not."""
    if decisions.reason is not None:
        return f"not judged ({decisions.reason})"
    counts = [sum(d.klass == k for d in decisions.items) for k in ("blunder", "mistake")]
    line = (
        f"{len(decisions.items)} decision(s) judged on {decisions.samples} possible deals each "
        f"(a trick is worth {decisions.unit}); {counts[0]} blunder(s), {counts[1]} mistake(s)"
    )
    if decisions.declarations == "exchange":
        line += "; declarations not judged (discard and draw)"
    if decisions.unjudged:
        line += "; not judged: " + ", ".join(
            f"#{u.index} {u.player} ({u.reason})" for u in decisions.unjudged
        )
    return line


def decision_at(rp: DealReplay, step: Step) -> Decision | None:
    """The judged decision made at ``step`` (its declaration or card), if any."""
    if rp.decisions is None or step.event is None or step.kind not in ("declare", "play"):
        return None
    return next((d for d in rp.decisions.items if d.index == step.event), None)


# -- what the plays revealed ------------------------------------------------------


@record(frozen=False)
class _Shown:
    """One legal card a player played: the position before it, its trick, and the cards
    they played from that hand since (this one included)."""

    state: DealState
    card: int
    trick: int
    later: int


def revealed_by_step(rp: DealReplay) -> tuple[tuple[Revealed, ...], ...]:
    """For each step of ``rp``, what every player's legal plays so far revealed they did
    not hold.  The reading stops at the first broken rule: the plays after it are not
    evidence of the rules (as the judging stops there)."""
    from loo_replay.engine.judging import snapshot

    result = rp.audit.result
    context = rp.audit.context
    if result is None or context is None:
        raise ReplayError(f"deal {rp.number} of session {rp.session_id} was rejected")
    replay = Replay(result.record, rp.options, context)
    shown: dict[int, list[_Shown]] = {}
    ruled: dict[int, dict[int, int]] = {}  # seat -> card ruled out -> the first trick that did
    now: tuple[Revealed, ...] = ()
    by_event: dict[int, tuple[Revealed, ...]] = {}
    for event in result.record.events:
        before = None
        if isinstance(event, Play):
            if replay.phase == DECLARING:
                replay.begin_play()
            before = snapshot(replay.state)
        applied = replay.apply(event)
        if applied.violations or applied.error is not None or not applied.judged:
            break
        if isinstance(event, Play) and before is not None and not applied.dead:
            mine = shown.setdefault(event.seat, [])
            for s in mine:
                s.later |= 1 << event.card
            mine.append(_Shown(before, event.card, replay.state.tricks[-1].number, 1 << event.card))
            # Only the player who played learns anything new; the others' cards ruled out
            # stay ruled out (those played since simply leave the cards still out).
            state = replay.state
            out = FULL_DECK & ~state.played & ~state.turned
            ruled[event.seat] = _ruled_out(event.seat, mine, out)
            now = tuple(f for seat in sorted(ruled) for f in _facts(seat, ruled[seat], out, state))
        by_event[event.index] = now
    out_steps: list[tuple[Revealed, ...]] = []
    last: tuple[Revealed, ...] = ()
    for step in rp.steps:
        if step.event is not None:
            last = by_event.get(step.event, last)
        out_steps.append(last)
    return tuple(out_steps)


def _ruled_out(seat: int, shown: list[_Shown], out: int) -> dict[int, int]:
    """The cards still out that ``seat``'s legal plays rule out of their hand, each with the
    first trick that did (``Check``: a card that alone makes one of them illegal)."""
    first: dict[int, int] = {}
    for s in shown:
        check = Check(s.state, seat, s.card, s.later)
        if not check.reveals():
            continue
        for card in cards_of(out & ~s.later):
            if card not in first and not check.legal(1 << card):
                first[card] = s.trick
    return first


def _facts(seat: int, first: dict[int, int], out: int, state: DealState) -> list[Revealed]:
    """``seat``'s cards ruled out, suit by suit (as cards belong to suits now)."""
    facts = []
    for suit, members in enumerate(state.suit_masks):
        cards = [c for c in first if (out & members) >> c & 1]
        if cards:
            ruled = sum(1 << c for c in cards)
            trick = min(first[c] for c in cards)
            facts.append(Revealed(seat, suit, ruled, out & members & ~ruled, trick))
    return facts

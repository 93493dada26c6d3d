"""The double-dummy analysis on a replay (docs/analysis.md): each player's guarantee G before
each of their cards, "?" on a card that lost a trick, and the deal's notes at the end.

Both renderers (terminal and page) take their words from here, so they cannot say
different things; the analysis itself is ``engine.analysis.analyse_deal``, run once
per replay.
"""

from __future__ import annotations

from loo_replay.engine.analysis import SKIPPED, SOLVED, DealAnalysis
from loo_replay.engine.records import field, record
from loo_replay.output.analysis import SKIP_REASONS
from loo_replay.output.text import safe


@record(slots=True)
class CardMark:
    """What the analysis says of one played card."""

    before: int  # G of its player just before it
    after: int  # and just after it
    lost: str | None  # the lost-trick note's message when ``after < before``


@record(slots=True)
class Marks:
    """The analysis of a replayed deal, in the words a replay shows."""

    heading: str  # one line: G at the start of play, or why skipped / unsolved
    stopped: str | None = None  # why the analysed stretch ends before the deal does
    cards: dict[int, CardMark] = field(default_factory=dict)  # by card (each played once)
    closing: tuple[tuple[str, str], ...] = ()  # (label, message) for the end of the deal


def marks_of(a: DealAnalysis, seats: tuple[str, ...]) -> Marks:
    """The marks of one deal's analysis; ``seats`` names the players by seat."""
    if a.status == SKIPPED:
        return Marks(f"not analysed: {SKIP_REASONS.get(str(a.reason), str(a.reason))}")
    if a.status != SOLVED:
        return Marks(f"unsolved: {safe(str(a.reason), 400)}")
    sure = ", ".join(f"{safe(p.player)} {p.guarantee}" for p in a.players)
    lost = {(n.player, n.trick, n.card): n.message for n in a.notes if n.code == "lost-trick"}
    cards = {
        s.card: CardMark(s.before, s.after, _message(lost.get((seats[s.seat], s.trick, s.card))))
        for s in a.steps
    }
    return Marks(
        f"sure of tricks at the start of play (G): {sure}",
        _message(a.stopped),
        cards,
        tuple((_LABELS[n.code], safe(n.message, 400)) for n in a.notes if n.code in _LABELS),
    )


_LABELS = {"avoidable-loo": "avoidable loo", "no-safe-trick": "no safe trick"}


def _message(text: str | None) -> str | None:
    return None if text is None else safe(text, 400)

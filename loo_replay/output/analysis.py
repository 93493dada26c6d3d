"""The double-dummy analysis in the audit's outputs: docs/analysis.md, "JSON" (JSON) and text.

Each deal gains an ``analysis`` member, the summary gains ``analysed``,
``skipped``, ``unsolved``, ``lost_tricks`` (tricks thrown away, summed) and
``avoidable_loos``.  Text marks each lost trick with "?" as chess records
mark a mistake, in words, with the better cards.
"""

from __future__ import annotations

from typing import Any, Protocol

from loo_replay.engine.analysis import SKIPPED, SOLVED, DealAnalysis, Note
from loo_replay.engine.cards import canonical
from loo_replay.engine.records import record, replace
from loo_replay.engine.vocab import Outcome, Status
from loo_replay.output.json_document import (
    Rendered,
    has_findings,
    rendered_json,
    session_json,
    skipped_warning,
)
from loo_replay.output.text import Style, deal_lines, item_lines, make_style, safe
from loo_replay.output.text import summary_line as audit_summary_line
from loo_replay.run.audit import AuditItem, SessionReport, Summary


@record(frozen=False)
class AnalysisSummary(Summary):
    analysed: int = 0
    skipped: int = 0
    unsolved: int = 0
    lost_tricks: int = 0
    avoidable_loos: int = 0

    def count(self, analysis: DealAnalysis) -> None:
        if analysis.status == SOLVED:
            self.analysed += 1
        elif analysis.status == SKIPPED:
            self.skipped += 1
        else:
            self.unsolved += 1
        self.lost_tricks += sum(p.lost for p in analysis.players)
        self.avoidable_loos += sum(n.code == "avoidable-loo" for n in analysis.notes)

    def as_json(self) -> dict[str, int]:
        return {
            **super().as_json(),
            "analysed": self.analysed,
            "skipped": self.skipped,
            "unsolved": self.unsolved,
            "lost_tricks": self.lost_tricks,
            "avoidable_loos": self.avoidable_loos,
        }


def note_json(note: Note) -> dict[str, Any]:
    if note.card is None:
        return {"code": note.code, "player": note.player, "message": note.message}
    return {
        "code": note.code,
        "player": note.player,
        "trick": note.trick,
        "card": canonical(note.card),
        "before": note.before,
        "after": note.after,
        "better": [canonical(c) for c in note.better],
        "message": note.message,
    }


def analysis_json(a: DealAnalysis) -> dict[str, Any]:
    """A deal's ``analysis`` member; ``cards`` (analysed) and ``stopped`` (why the analysed
    stretch ends early) are extensions where docs/analysis.md is silent."""
    if a.status == SKIPPED:
        return {"status": a.status, "reason": a.reason}
    if a.status != SOLVED:
        return {
            "status": a.status,
            "reason": a.reason,
            "nodes": a.nodes,
            "cards": a.cards,
        }
    out: dict[str, Any] = {"status": a.status, "nodes": a.nodes, "cards": a.cards}
    if a.stopped is not None:
        out["stopped"] = a.stopped
    out["players"] = {
        p.player: {"guarantee": p.guarantee, "tricks": p.tricks, "lost": p.lost} for p in a.players
    }
    out["notes"] = [note_json(n) for n in a.notes]
    return out


SKIP_REASONS = {
    Outcome.ALL_PASSED: "all passed, no play",
    Outcome.UNOPPOSED: "unopposed, no play",
    Outcome.FLUSH: "a flush ended the deal before play",
    Outcome.MISDEAL: "a misdeal",
    Status.REJECTED: "the record is rejected",
    "on_void": "trumps are turned during play, when a player is void (deal.trump on_void)",
    "partial": "hands left out: a solver needs every hand",
}


FOUND = ("lost-trick", "avoidable-loo")  # the analysis's findings; no safe trick is no mistake


def analysis_found(a: DealAnalysis) -> bool:
    """A trick thrown away or an avoidable loo in the deal."""
    return any(n.code in FOUND for n in a.notes)


def analysis_lines(a: DealAnalysis, style: Style, findings_only: bool = False) -> list[str]:
    """The analysis under a deal's audit lines; with ``findings_only``, its findings alone
    (each trick thrown away, each avoidable loo)."""
    if findings_only:
        return [
            line for n, line in zip(a.notes, _note_lines(a, style), strict=True) if n.code in FOUND
        ]
    if a.status == SKIPPED:
        return [f"    analysis: skipped ({SKIP_REASONS.get(str(a.reason), str(a.reason))})"]
    if a.status != SOLVED:
        return [f"    analysis: {style('UNSOLVED', 'warn')} ({a.reason})"]
    sure = ", ".join(f"{safe(p.player)} {p.guarantee}" for p in a.players)
    lines = [f"    analysis: sure of tricks at the start: {sure} ({a.nodes} nodes)"]
    if a.stopped is not None:
        lines.append(f"    analysis stops: {safe(a.stopped, 400)}")
    return lines + _note_lines(a, style)


def _note_lines(a: DealAnalysis, style: Style) -> list[str]:
    """A line for each note of the analysis, in its order."""
    lines = []
    for n in a.notes:
        if n.code == "lost-trick":
            lines.append(f"    {style('? lost trick', 'warn')}: {safe(n.message, 400)}")
        elif n.code == "avoidable-loo":
            lines.append(f"    {style('avoidable loo', 'warn')}: {safe(n.message, 400)}")
        else:
            lines.append(f"    no safe trick: {safe(n.message, 400)}")
    return lines


class DealExtra(Protocol):
    """More for each deal of a document, beside its analysis (the judged decisions)."""

    key: str

    def json(self, deal: int) -> dict[str, Any]: ...

    def lines(self, deal: int, style: Style, findings_only: bool = False) -> list[str]: ...

    def found(self, deal: int) -> bool:
        """Whether the deal has a finding of the extra's own (``--findings-only``)."""
        ...


def rendered_analysis(
    item: AuditItem,
    analyses: list[DealAnalysis],
    as_json: bool,
    indent: bool,
    colour: bool,
    counts: AnalysisSummary | None = None,
    extra: DealExtra | None = None,
    findings_only: bool = False,
) -> Rendered:
    """One audited document with its deals' analyses, rendered as ``validate`` renders it;
    ``extra`` adds to each deal, ``counts`` counts what it adds.  With ``findings_only``
    only the deals with a finding are shown (the audit's, a trick thrown away, an avoidable
    loo, the extra's), each with its findings alone in text, whole in JSON; the counts are
    of every deal."""
    counts = AnalysisSummary() if counts is None else counts
    for a in analyses:
        counts.count(a)
    shown = [
        i
        for i, a in enumerate(analyses)
        if not findings_only
        or (isinstance(item, SessionReport) and has_findings(item.deals[i]))
        or analysis_found(a)
        or (extra is not None and extra.found(i))
    ]
    if as_json:
        doc = None
        if isinstance(item, SessionReport):
            doc = session_json(item)
            deals = doc["deals"]
            doc["deals"] = [deals[i] for i in shown]
            for i, deal in zip(shown, doc["deals"], strict=True):
                deal["analysis"] = analysis_json(analyses[i])
                if extra is not None:
                    deal[extra.key] = extra.json(i)
        return rendered_json(item, indent, findings_only, counts=counts, doc=doc)
    counts.add(item)
    style = make_style(colour)
    if not isinstance(item, SessionReport):
        return Rendered(counts, lines=tuple(item_lines(item, style)), warning=skipped_warning(item))
    if item.errors:  # its deals all rejected for the header's error: said once, counted
        return Rendered(counts, lines=tuple(item_lines(item, style)))
    if findings_only and not shown:  # nothing found: no block (as validate's)
        return Rendered(counts)
    lines = item_lines(replace(item, deals=[]), style)
    for i in shown:
        lines += deal_lines(item.deals[i], style) + analysis_lines(
            analyses[i], style, findings_only
        )
        if extra is not None:
            lines += extra.lines(i, style, findings_only)
    return Rendered(counts, lines=tuple(lines))


def summary_line(s: AnalysisSummary) -> str:
    return (
        f"{audit_summary_line(s)}; analysis: {s.analysed} deal(s) analysed, {s.skipped} "
        f"skipped, {s.unsolved} unsolved; {s.lost_tricks} trick(s) thrown away, "
        f"{s.avoidable_loos} avoidable loo(s)"
    )

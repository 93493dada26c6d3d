"""The human-readable audit report of ``loo-replay validate``.

One block per session, one line per deal, and under it every finding in
full: the message, the cards held, the legal cards and the penalty.  Text
from logs passes through ``safe`` so a name cannot garble the terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from loo_replay.engine.cards import SUIT_SYMBOLS, display_cards
from loo_replay.engine.model import LogError
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Knowledge, Status
from loo_replay.evidence.seals import SEALED, UNSEALED
from loo_replay.lookalike import safe as safe  # the one escape of hidden characters
from loo_replay.output import wording
from loo_replay.output.json_document import Rendered, has_findings, skipped_warning
from loo_replay.run.audit import (
    HEADER_UNUSABLE,
    AuditItem,
    SessionReport,
    Summary,
    UnreadableDocument,
)

Style = Callable[[str, str], str]


def plain(text: str, _kind: str) -> str:
    return text


def _amounts(label: str, amounts: dict[str, int] | None) -> str | None:
    if not amounts:
        return None
    return f"{label} " + ", ".join(f"{safe(k)} {v}" for k, v in amounts.items())


def _error(e: LogError, style: Style) -> str:
    """A log error: ``error PATH: message``, or ``error: message`` for the whole document
    (the JSON Pointer "")."""
    where = f" {safe(e.path)}" if e.path else ""
    return f"{style('error', 'bad')}{where}: {safe(e.message, 400)}"


def deal_lines(d: DealAudit, style: Style = plain) -> list[str]:
    """The report of one deal: a heading line and indented findings."""
    head = f"  Deal {d.number if d.number is not None else '?'}"
    if d.status == Status.REJECTED:
        lines = [head + " " + style("REJECTED", "bad") + " (log error; not audited)"]
        lines += [f"    {_error(e, style)}" for e in d.errors]
        return lines
    parts = [f"dealer {safe(d.dealer or '?')}"]
    if d.pool_start is not None:
        parts.append(f"{d.pool} pool {d.pool_start}")
    else:
        parts.append("pool unknown")
    if d.must:
        parts.append("must")
    if d.trump is not None:
        parts.append(f"trumps {SUIT_SYMBOLS[d.trump]}")
    parts.append(str(d.outcome).replace("_", " "))
    if d.knowledge == Knowledge.PARTIAL:
        parts.append("hands left out")
    lines = [head + "  " + " · ".join(parts)]
    money = [
        _amounts("tricks", d.tricks) if d.tricks else None,
        _amounts("payouts", d.payouts),
        _amounts("looed", d.looed),
        _amounts("penalties", d.penalties),
        None if d.pool_next is None else f"pool carried {d.pool_next}",
    ]
    shown = [m for m in money if m]
    if shown:
        lines.append("    " + " · ".join(shown))
    for v in d.violations:
        where = f"trick {v.trick}, " if v.trick is not None else ""
        lines.append(
            f"    {style('VIOLATION', 'bad')} {v.code} ({where}{safe(v.player)}): {safe(v.message, 400)}"
        )
        detail = []
        if v.held:
            detail.append(f"held {display_cards(v.held)}")
        if v.legal is not None:
            detail.append(f"legal {display_cards(v.legal)}")
        penalty = f"penalty {v.penalty}" if v.penalty else "no chips"
        detail.append(f"{penalty}{'' if v.penalized else ' (not penalised)'}")
        lines.append("        " + " · ".join(detail))
    for x in d.discrepancies:
        lines.append(
            f"    {style('DISCREPANCY', 'warn')} {safe(wording.discrepancy(x.field, x.recorded, x.expected))}"
        )
    lines += [f"    note: {safe(n, 400)}" for n in d.notes]
    if d.unchecked:
        lines.append(f"    {wording.unchecked(d.unchecked)}")
    return lines


def session_lines(s: SessionReport, style: Style = plain, findings_only: bool = False) -> list[str]:
    """A session's block: the deals with findings first, then (unless ``findings_only``)
    the others; with ``findings_only`` a session without any finding has no block."""
    flagged = [d for d in s.deals if has_findings(d)]
    if findings_only and not flagged and not s.errors:
        return []
    where = f"{s.file}:{s.line}" if s.line else s.file
    title = f"Session {safe(s.id)} ({safe(where)}), ruleset {s.ruleset or '?'}"
    lines = [style(title, "title")]
    seals = s.seals
    if seals.status != UNSEALED:  # a log without seals says nothing of them
        lines.append(f"  {style(seals.line(), 'title' if seals.status == SEALED else 'bad')}")
    for e in s.errors:
        lines.append(f"  {_error(e, style)}")
    if s.errors:  # every deal rejected for it: said once, counted, not once a deal
        if s.deals:
            lines.append(
                f"  {len(s.deals)} deal(s) {style('REJECTED', 'bad')} (not audited: "
                f"{HEADER_UNUSABLE})"
            )
        return lines
    for d in flagged:
        lines += deal_lines(d, style)
    others = len(s.deals) - len(flagged)
    if not findings_only and others:
        lines.append(f"  {others} deal(s) without findings{':' if flagged else ''}")
        for d in s.deals:
            if not has_findings(d):
                lines += deal_lines(d, style)
    return lines


def summary_line(summary: Summary) -> str:
    s = summary
    text = (
        f"{s.sessions} session(s), {s.deals} deal(s): {s.audited} audited, {s.misdeals} misdeal(s), "
        f"{s.rejected} rejected; {s.violations} violation(s), {s.discrepancies} discrepancy(ies)"
    )
    if s.partial:
        text += f"; {s.partial} with hands left out"
    if s.unreadable or s.unreadable_files:
        text += f"; {s.unreadable} unreadable document(s), {s.unreadable_files} unreadable file(s)"
    if s.skipped_entries:
        text += f"; {s.skipped_entries} entry(ies) of the input folders skipped"
    return text


def item_lines(item: AuditItem, style: Style = plain, findings_only: bool = False) -> list[str]:
    """The report of one audited document."""
    if isinstance(item, SessionReport):
        return session_lines(item, style, findings_only)
    if isinstance(item, UnreadableDocument):
        where = f"{item.file}:{item.line}" if item.line else item.file
        return [
            f"{style('UNREADABLE', 'bad')} {safe(where)} {safe(item.path)}: {safe(item.message, 400)}"
        ]
    label = "SKIPPED" if item.skipped else "UNREADABLE"
    return [f"{style(label, 'bad')} {safe(item.message, 400)}"]


def rendered_text(item: AuditItem, colour: bool = False, findings_only: bool = False) -> Rendered:
    counts = Summary()
    counts.add(item)
    lines = tuple(item_lines(item, make_style(colour), findings_only))
    return Rendered(counts, lines=lines, warning=skipped_warning(item))


def make_style(colour: bool) -> Style:
    """Colours for a terminal (red findings, yellow discrepancies), none when piped."""
    colours = {"bad": "\x1b[31m", "warn": "\x1b[33m", "title": "\x1b[1;36m"}

    def style(text: str, kind: str) -> str:
        return f"{colours[kind]}{text}\x1b[0m" if colour and kind in colours else text

    return style

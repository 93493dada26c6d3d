"""The deal in a terminal: one block of lines per step, coloured only for a terminal.

The same blocks make the whole transcript (piped: plain text, no ANSI codes)
and the interactive ``--step`` mode.  Every string that came from a log goes
through ``safe`` so a player's name cannot garble the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from loo_replay.engine.cards import DIAMONDS, HEARTS, PAM, display
from loo_replay.engine.model import Violation
from loo_replay.engine.session import DealAudit
from loo_replay.output.text import safe
from loo_replay.output.wording import DERIVED_HANDS
from loo_replay.replayer.judged import decision_at, heading, options_line, verdict_line
from loo_replay.replayer.steps import DealReplay, Step

Style = Callable[[str, str], str]


def plain(text: str, _kind: str) -> str:
    """The style of a pipe: the text alone (``cli/replay.py`` colours a terminal's)."""
    return text


def card_text(card: int, style: Style, legal: bool = False) -> str:
    """``10♥``, red for hearts and diamonds; underlined when legal (colour only)."""
    text = display(card)
    if card // 13 in (HEARTS, DIAMONDS):
        text = style(text, "red")
    return style(text, "legal") if legal else text


def cards_text(cards: Iterable[int], style: Style, legal: Iterable[int] = ()) -> str:
    marked = set(legal)
    return " ".join(card_text(c, style, c in marked) for c in cards) or "—"


_RED_CARD = re.compile(r"(?:10|[2-9AKQJ])[♥♦]")


def colour_cards(text: str, style: Style) -> str:
    """Red hearts and diamonds wherever a card is named in ``text`` (already made safe)."""
    if style is plain:
        return text
    return _RED_CARD.sub(lambda m: style(m.group(), "red"), text)


def header_lines(rp: DealReplay, style: Style = plain) -> list[str]:
    """Who, where, the pool and trumps, and every hand as dealt, clockwise."""
    a = rp.audit
    where = " · ".join(x for x in (safe(rp.file), safe(rp.venue) if rp.venue else "") if x)
    pool = f"{a.pool} pool {a.pool_start}" if a.pool_start is not None else "pool unknown"
    first = rp.steps[0]
    facts = [pool, safe(first.text, 400)]
    title = f"Session {safe(rp.session_id)} · deal {rp.number} · ruleset {safe(rp.ruleset)}"
    lines = [style(title, "title"), f"  {where}", "  " + " · ".join(facts), ""]
    lines[2] = colour_cards(lines[2], style)
    dealt = "as dealt" if a.knowledge == "full" else DERIVED_HANDS
    lines.append(style(f"Hands {dealt}, clockwise from the eldest", "head"))
    width = max(len(p) for p in rp.seats)
    names = [safe(n, 40) if n else "" for n in rp.names]
    nwidth = max([len(n) for n in names] + [7])
    for seat in rp.clockwise:
        who = safe(rp.seats[seat])
        tag = "  dealer" if seat == rp.dealer else ""
        hand = cards_text(first.hands[seat], style)
        lines.append(f"  {who:<{width}}  {names[seat]:<{nwidth}}  {hand}{tag}")
    if first.miss is not None:
        lines.append(f"  {'':<{width}}  {'Miss':<{nwidth}}  {cards_text(first.miss, style)}")
    if first.turned:
        lines.append(f"  {'':<{width}}  {'turn-up':<{nwidth}}  {cards_text(first.turned, style)}")
    return lines


def finding_lines(
    findings: Iterable[Violation], style: Style, indent: str = "       "
) -> list[str]:
    """The violation marker: code, penalty and the engine's message (why)."""
    lines = []
    for v in findings:
        penalty = f"penalty {v.penalty}" if v.penalty else "no chips"
        if not v.penalized:
            penalty += ", not penalised"
        lines.append(
            f"{indent}{style('VIOLATION', 'bad')} {style(v.code, 'bad')} ({penalty}): "
            f"{colour_cards(safe(v.message, 400), style)}"
        )
    return lines


def step_lines(rp: DealReplay, index: int, style: Style = plain) -> list[str]:
    """The lines of one step, with a heading where a section or a trick begins."""
    step = rp.steps[index]
    prev = rp.steps[index - 1] if index else None
    lines: list[str] = []
    if step.kind == "deal":
        lines += header_lines(rp, style)
        lines += finding_lines(step.findings, style, "  ")
        return lines + analysis_lines(rp, style)
    if step.kind == "end":
        return ["", *settlement_lines(rp, step, style)]
    if step.kind == "declare" and (prev is None or prev.kind == "deal"):
        lines += ["", style("Declarations", "head")]
    if step.kind == "play" and step.judged and step.trick is not None:
        shown = prev.trick.number if prev is not None and prev.trick is not None else None
        if prev is None or prev.kind != "play" or shown != step.trick.number:
            lines += ["", style(f"Trick {step.trick.number}", "head")]
    number = f"#{step.event}" if step.event is not None else ""
    text = safe(step.text, 400)
    mark = rp.mark(step)
    if mark is not None and mark.lost is not None:
        text += "?"
    if step.kind == "play" and step.judged and step.held:
        text = f"{text:<{_play_width(rp)}} held {cards_text(step.held, plain)}"
        if step.played_legal is not None:
            text += f" · legal {cards_text(step.played_legal, plain)}"
    if mark is not None:
        text += f" · G {mark.before}" + (f"→{mark.after}" if mark.after != mark.before else "")
    lines.append(f"  {number:<4} {colour_cards(text, style)}")
    if mark is not None and mark.lost is not None:
        lines.append(f"       {style('? lost trick', 'warn')}: {colour_cards(mark.lost, style)}")
    lines += decision_lines(rp, step, style)
    if step.kind == "exchange" and step.seat is not None:
        lines.append(f"       now holds {cards_text(step.hands[step.seat], style)}")
    lines += finding_lines(step.findings, style)
    if _closes_trick(prev, step):
        lines.append("       " + _won_line(rp, step, style))
    return lines


def analysis_lines(rp: DealReplay, style: Style = plain) -> list[str]:
    """Under the hands: each player's G at the start of play, or why there is none; and
    how the decisions were judged, when they were."""
    lines: list[str] = []
    if rp.marks is not None:
        lines += ["", f"{style('Analysis', 'head')}: {colour_cards(rp.marks.heading, style)}"]
        if rp.marks.stopped is not None:
            lines.append(f"  stops early: {rp.marks.stopped}")
    if rp.decisions is not None:
        if rp.marks is None:
            lines.append("")
        lines.append(f"{style('Decisions', 'head')}: {heading(rp.decisions)}")
    return lines


def decision_lines(rp: DealReplay, step: Step, style: Style = plain) -> list[str]:
    """Under a judged decision: every option's chips with their standard error, then the
    loss, its class and the judging's sentence."""
    d = decision_at(rp, step)
    if d is None:
        return []
    kind = "warn" if d.klass is not None else "dim"
    verdict = style(verdict_line(d), kind)
    return [
        f"       options: {colour_cards(options_line(d), style)}",
        f"       {verdict} · {colour_cards(safe(d.message, 400), style)}",
    ]


def _play_width(rp: DealReplay) -> int:
    """The column where "held" starts: after the longest plain play ("eve leads 10♥");
    announcements and dead cards run over it."""
    return max(len(p) for p in rp.seats) + len(" leads 10♥") + 2


def _closes_trick(prev: Step | None, step: Step) -> bool:
    """This play completed the trick on the table."""
    trick, before = step.trick, prev.trick if prev is not None else None
    if step.kind != "play" or not step.judged or trick is None or trick.winner is None:
        return False
    return before is None or before.number != trick.number or before.winner is None


def _won_line(rp: DealReplay, step: Step, style: Style) -> str:
    trick = step.trick
    assert trick is not None
    if trick.winner is None or trick.winner < 0 or trick.winning_card is None:
        return f"nobody wins trick {trick.number}: everyone still in it had retired"
    who = safe(rp.seats[trick.winner])
    won = ", ".join(f"{safe(rp.seats[s])} {step.tricks_won[s]}" for s in step.active)
    card = card_text(trick.winning_card, style)
    if rp.options.deal_pam and trick.winning_card == PAM and step.trump is not None:
        card += " (Pam)"
    return f"{style('→ ' + who + ' wins trick ' + str(trick.number), 'win')} with {card} · tricks {won}"


def table_lines(rp: DealReplay, step: Step, style: Style = plain) -> list[str]:
    """For ``--step``: every hand now, the legal cards of the player to play marked."""
    parts = []
    for seat in rp.clockwise:
        legal = step.legal if seat == step.on_turn else ()
        mark = "*" if seat == step.on_turn else ""
        parts.append(f"{safe(rp.seats[seat])}{mark} {cards_text(step.hands[seat], style, legal)}")
    lines = ["       hands: " + " │ ".join(parts)]
    if step.on_turn is not None:
        lines.append(
            f"       to play: {safe(rp.seats[step.on_turn])}, legal {cards_text(step.legal, style)}"
        )
    return lines


def _amounts(rp: DealReplay, amounts: dict[str, int] | None) -> str:
    if not amounts:
        return "none"
    return ", ".join(f"{safe(p)} {v}" for p, v in amounts.items())


def settlement_lines(rp: DealReplay, step: Step, style: Style = plain) -> list[str]:
    """The verdict of the session audit: payouts, loos, penalties, the pool carried."""
    a: DealAudit = rp.audit
    lines = [style(f"Settlement: {safe(step.text.removeprefix('the deal ends: '))}", "head")]
    lines += finding_lines(step.findings, style, "  ")
    if a.tricks:
        lines.append(f"  tricks     {_amounts(rp, a.tricks)}")
    if a.pool_start is None:
        lines.append("  pool       unknown: continuity was lost, so no amounts are settled")
    else:
        lines.append(f"  payouts    {_amounts(rp, a.payouts)}")
        lines.append(f"  looed      {_amounts(rp, a.looed)}")
        lines.append(f"  penalties  {_amounts(rp, a.penalties)}")
        lines.append(
            f"  pool       {a.pool_start} at the start, {a.pool_next} carried to the next deal"
        )
    for x in a.discrepancies:
        lines.append(
            f"  {style('DISCREPANCY', 'warn')} {safe(x.field)}: recorded {x.recorded}, "
            f"expected {x.expected}"
        )
    lines += [f"  note: {safe(n, 400)}" for n in [*rp.unpaid(), *a.notes]]
    if rp.marks is not None:
        for label, message in rp.marks.closing:
            lines.append(f"  {style(label, 'warn')}: {colour_cards(message, style)}")
    return lines


def transcript(rp: DealReplay, style: Style = plain) -> list[str]:
    """The whole deal, step after step."""
    return [line for i in range(len(rp.steps)) for line in step_lines(rp, i, style)]


def step_through(
    rp: DealReplay,
    style: Style,
    echo: Callable[[str], None],
    read: Callable[[str], str],
) -> None:
    """``--step``: one step at a time; Enter shows the next, ``q`` (or end of input) quits."""
    last = len(rp.steps) - 1
    for i, step in enumerate(rp.steps):
        for line in step_lines(rp, i, style):
            echo(line)
        if i == last:
            return
        for line in table_lines(rp, step, style):
            echo(line)
        try:
            answer = read(style(f"  [{i + 1}/{last}] Enter: next · q: quit ", "dim"))
        except (EOFError, KeyboardInterrupt):
            echo("")
            return
        if answer.strip().lower() in ("q", "quit"):
            return

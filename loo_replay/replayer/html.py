"""The deal as a self-contained HTML page to step through in a browser.

The steps travel as JSON inside ``<script type="application/json">`` (every
``<``, ``>`` and ``&`` escaped, so no text can close the element) and the
page's own script builds the DOM with ``textContent`` only.  A Content
Security Policy allows nothing but the page's own style and script, by hash:
no CDN, no external file, and an injected script would not run.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from loo_replay.engine.cards import SUIT_SYMBOLS, display
from loo_replay.engine.model import Violation
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Knowledge
from loo_replay.html import escape, script_json
from loo_replay.output import numbers
from loo_replay.output.decisions import decision_json
from loo_replay.output.text import safe
from loo_replay.output.wording import DERIVED_HANDS, discrepancy, display_names, unchecked
from loo_replay.replayer.assets import PAGE_CSS, PAGE_JS
from loo_replay.replayer.judged import decision_at, heading, judgement, option_label
from loo_replay.replayer.marks import CardMark, Marks
from loo_replay.replayer.steps import DealReplay, Step, TrickView, build_replay
from loo_replay.run.audit import SessionReport


@dataclass(frozen=True)
class Links:
    """Where a replay page in a report leads, relative to the page: its session's report
    and the previous and next deals that have a page (deal number, link)."""

    session: str | None = None
    previous: tuple[int, str] | None = None
    next: tuple[int, str] | None = None


def replay_html(report: SessionReport, deal: DealAudit, links: Links | None = None) -> str:
    """The page for ``deal`` of ``report`` (for the report generator and ``--html``)."""
    return render_page(build_replay(report, deal), links)


def render_page(rp: DealReplay, links: Links | None = None) -> str:
    return page_html(page_data(rp, links))


def page_html(data: dict[str, Any]) -> str:
    """The page for ``page_data``'s dict, after any hook in it was filled: a step's
    ``judgement`` or the deal's ``views`` (docs/replay.md, "Hooks")."""
    title = f"Loo replay · deal {data['deal']} · {data['session']}"
    policy = (
        "default-src 'none'; "
        f"style-src '{_sha256(PAGE_CSS)}'; script-src '{_sha256(PAGE_JS)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title>",
            f"<style>{PAGE_CSS}</style>",
            "</head>",
            "<body>",
            '<noscript><p class="noscript">This replay needs JavaScript to step through '
            "the deal.</p></noscript>",
            f'<script type="application/json" id="replay-data">{script_json(data)}</script>',
            f"<script>{PAGE_JS}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


# -- the data the page's script renders -----------------------------------------


def page_data(rp: DealReplay, links: Links | None = None) -> dict[str, Any]:
    """The replay as plain JSON: cards in display form, untrusted text made safe.

    Two hooks: a step's ``judgement`` (a class such as ``"mistake"`` or ``"blunder"``; M and
    Shift+M jump between mistakes and blunders), and ``views``, the seat views V switches
    between (``{"label": ..., "seat": index or None}``; None shows every hand).  Both are
    filled here when ``rp`` carries its judged decisions and what its plays revealed
    (replayer/judged.py), and may be filled by a caller before ``page_html``."""
    a = rp.audit
    first = rp.steps[0]
    names = dict(zip(rp.seats, rp.names, strict=True))
    facts = [f"dealer {safe(rp.names[rp.dealer] or rp.seats[rp.dealer], 80)}"]
    facts.append(f"{a.pool} pool {a.pool_start}" if a.pool_start is not None else "pool unknown")
    if a.must:
        facts.append("a must")
    facts.append(
        f"trumps {SUIT_SYMBOLS[first.trump]}" if first.trump is not None else "no trumps yet"
    )
    if a.knowledge == Knowledge.PARTIAL:  # recorded at a table: the hands shown are derived
        facts.append(f"hands {DERIVED_HANDS}")
        if a.unchecked:
            facts.append(unchecked(a.unchecked))
    return {
        "session": safe(rp.session_id),
        "file": safe(rp.file),
        "venue": safe(rp.venue) if rp.venue else None,
        "ruleset": safe(rp.ruleset),
        "deal": rp.number,
        "facts": facts,
        "dealer": rp.dealer,
        "pam": rp.options.deal_pam,
        "clockwise": list(rp.clockwise),
        "seats": [
            {"id": safe(p), "name": safe(n, 80) if n else None}
            for p, n in zip(rp.seats, rp.names, strict=True)
        ],
        "steps": [_judged(rp, i, _step(s, rp.mark(s))) for i, s in enumerate(rp.steps)],
        "settlement": _settlement(a, names, rp.unpaid(names)),
        "analysis": _analysis(rp.marks),
        "decisions": None if rp.decisions is None else safe(heading(rp.decisions), 600),
        "links": _links(links),
        "views": _views(rp),  # the seat views' hook
    }


def _views(rp: DealReplay) -> list[dict[str, Any]]:
    """Every hand first, then each seat's, clockwise from the eldest, when the replay knows
    what the plays revealed (``replayer.judged.with_views``)."""
    if rp.revealed is None:
        return []
    shown = display_names(rp.seats, dict(zip(rp.seats, rp.names, strict=True)))
    names = [safe(shown[p], 120) for p in rp.seats]
    return [{"label": "every hand", "seat": None}] + [
        {"label": names[seat], "seat": seat} for seat in rp.clockwise
    ]


def _judged(rp: DealReplay, index: int, step: dict[str, Any]) -> dict[str, Any]:
    """A step with its judged decision (and the ``judgement`` hook), and what the plays had
    revealed by then, when the replay carries them."""
    d = decision_at(rp, rp.steps[index])
    if d is not None:
        shown = decision_json(d)
        step["judgement"] = judgement(d)
        step["decision"] = {
            "player": rp.seats.index(d.player),
            "options": [
                {
                    "label": option_label(key),
                    **value,
                    "shown": numbers.signed_fixed(value["value"], 2),
                    "seShown": numbers.fixed(value["se"], 2),
                    "chosen": key == d.chosen,
                    "best": key == d.best,
                }
                for key, value in shown["options"].items()
            ],
            "loss": shown["loss"],
            "lossSe": shown["loss_se"],
            "lossShown": numbers.estimate(shown["loss"], shown["loss_se"], 2),
            "class": d.klass,
            "message": safe(d.message, 400),
        }
    if rp.revealed is not None:
        step["revealed"] = [[r.seat, r.text()] for r in rp.revealed[index]]
    return step


def _links(links: Links | None) -> dict[str, Any] | None:
    """The page's way back to its session and on to its neighbours (our own relative paths,
    never text from a log)."""
    if links is None:
        return None
    return {
        "session": links.session,
        "previous": None if links.previous is None else list(links.previous),
        "next": None if links.next is None else list(links.next),
    }


def _cards(cards: Iterable[int] | None) -> list[str] | None:
    return None if cards is None else [display(c) for c in cards]


def _trick(t: TrickView | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "number": t.number,
        "leader": t.leader,
        "plays": [{"seat": s, "card": display(c), "dead": d} for s, c, d in t.plays],
        "winner": t.winner,
        "winningCard": None if t.winning_card is None else display(t.winning_card),
    }


def _finding(v: Violation) -> dict[str, Any]:
    return {
        "code": v.code,
        "player": safe(v.player),
        "message": safe(v.message, 600),
        "penalized": v.penalized,
        "penalty": v.penalty,
        "trick": v.trick,
        "card": None if v.card is None else display(v.card),
        "legal": _cards(v.legal),
    }


def _analysis(marks: Marks | None) -> dict[str, Any] | None:
    if marks is None:
        return None
    return {
        "heading": marks.heading,
        "stopped": marks.stopped,
        "closing": [list(c) for c in marks.closing],
    }


def _mark(m: CardMark | None) -> dict[str, Any] | None:
    return None if m is None else {"before": m.before, "after": m.after, "lost": m.lost}


def _step(s: Step, mark: CardMark | None) -> dict[str, Any]:
    return {
        "kind": s.kind,
        "text": safe(s.text, 400),
        "event": s.event,
        "seat": s.seat,
        "card": None if s.card is None else display(s.card),
        "judged": s.judged,
        "held": _cards(s.held),
        "playedLegal": _cards(s.played_legal),
        "hands": [_cards(h) for h in s.hands],
        "miss": _cards(s.miss),
        "missTaker": s.miss_taker,
        "trump": None if s.trump is None else SUIT_SYMBOLS[s.trump],
        "turned": _cards(s.turned),
        "trick": _trick(s.trick),
        "tricksWon": list(s.tricks_won),
        "declarations": list(s.declarations),
        "active": list(s.active),
        "retired": sorted(s.retired),
        "onTurn": s.on_turn,
        "legal": _cards(s.legal),
        "findings": [_finding(v) for v in s.findings],
        "mark": _mark(mark),
    }


def _pairs(amounts: dict[str, int] | None) -> list[list[object]]:
    return [[safe(p), v] for p, v in (amounts or {}).items()]


def _settlement(a: DealAudit, names: dict[str, str | None], unpaid: list[str]) -> dict[str, Any]:
    """The settlement as the page shows it; ``unpaid``, why tricks paid nothing, first among
    its notes."""
    return {
        "outcome": (a.outcome or "?").replace("_", " "),
        "poolStart": a.pool_start,
        "poolNext": a.pool_next,
        "tricks": _pairs(a.tricks),
        "payouts": _pairs(a.payouts),
        "looed": _pairs(a.looed),
        "penalties": _pairs(a.penalties),
        "discrepancies": [
            {
                "field": safe(x.field),
                "recorded": x.recorded,
                "expected": x.expected,
                "text": safe(discrepancy(x.field, x.recorded, x.expected, names), 400),
            }
            for x in a.discrepancies
        ],
        "notes": [safe(n, 400) for n in [*unpaid, *a.notes]],
    }

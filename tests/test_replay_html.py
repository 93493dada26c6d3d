"""The replay page in a real browser (Debian's Chromium, headless, driven by Playwright).

Every step shown must be the engine's step: the trick on the table, the hands,
the legal cards of the player on turn, the finding marker exactly at the
violating play, and the settlement of the session audit on the last step.
Untrusted text from the log must stay text (docs/log-format.md: a name "must be
escaped wherever it is shown").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_helpers import chromium

from loo_replay.engine.cards import display
from loo_replay.html import script_json
from loo_replay.logs.reader import Document
from loo_replay.output.text import safe
from loo_replay.replayer.html import render_page, replay_html
from loo_replay.replayer.steps import DealReplay, build_replay
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, audit_document
from tests.loo_helpers import audited

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]

# What the page shows, read back from the DOM in one round trip.
SNAPSHOT_JS = """() => {
  const q = (sel) => Array.from(document.querySelectorAll(sel));
  const finding = document.getElementById("finding");
  const settlement = document.getElementById("settlement");
  return {
    counter: document.getElementById("counter").textContent,
    trickTitle: document.getElementById("trick-title").textContent,
    trick: q("#trick .play").map((p) => [p.dataset.seat, p.dataset.card, p.classList.contains("winner")]),
    findingShown: !finding.hidden && finding.offsetParent !== null,
    codes: q("#finding [data-code]").map((f) => f.dataset.code),
    findingText: finding.textContent,
    hands: Object.fromEntries(q(".seat").map((s) => [s.dataset.seat, Array.from(s.querySelectorAll(".hand .card")).map((c) => c.dataset.card)])),
    legal: q(".seat .card.legal").map((c) => c.dataset.card),
    onTurn: q(".seat.on-turn").map((s) => s.dataset.seat),
    settlementShown: !settlement.hidden && settlement.offsetParent !== null,
    rows: Object.fromEntries(q("#settlement tr[data-player]").map((r) => [r.dataset.player, {
      payout: r.querySelector("td.payout").textContent,
      looed: r.querySelector("td.looed").textContent,
      penalty: r.querySelector("td.penalty").textContent,
    }])),
    poolNext: settlement.querySelector("#pool-next") ? settlement.querySelector("#pool-next").textContent : null,
  };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


def _report(path: str) -> SessionReport:
    item = next(iter(audited([ROOT / path])))
    assert isinstance(item, SessionReport)
    return item


def _open(browser: Any, page_html: str, tmp_path: Path) -> tuple[Any, list[str], list[str]]:
    """A page on the file, with console errors and dialogs collected."""
    path = tmp_path / "replay.html"
    path.write_text(page_html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.as_uri())
    return page, errors, dialogs


def _expected(rp: DealReplay, i: int) -> dict[str, Any]:
    step = rp.steps[i]
    ids = rp.seats
    trick = step.trick
    return {
        "counter": f"Step {i + 1} of {len(rp.steps)}",
        "trick": []
        if trick is None
        else [[ids[s], display(c), trick.winner == s and not dead] for s, c, dead in trick.plays],
        "codes": [v.code for v in step.findings],
        "hands": {ids[s]: [display(c) for c in step.hands[s]] for s in range(len(ids))},
        "legal": [display(c) for c in step.legal],
        "onTurn": [] if step.on_turn is None else [ids[step.on_turn]],
    }


def _check_step(rp: DealReplay, i: int, seen: dict[str, Any]) -> None:
    want = _expected(rp, i)
    assert seen["counter"] == want["counter"]
    assert seen["trick"] == want["trick"], (i, rp.steps[i].text)
    assert seen["codes"] == want["codes"], (i, rp.steps[i].text)
    assert seen["findingShown"] == bool(want["codes"])
    assert seen["hands"] == want["hands"]
    assert seen["legal"] == want["legal"] and seen["onTurn"] == want["onTurn"]
    assert seen["settlementShown"] == (i == len(rp.steps) - 1)


@pytest.mark.parametrize("move", ["button", "key"])
def test_stepping_shows_the_engine_trick_finding_and_settlement(
    browser: Any, tmp_path: Path, move: str
) -> None:
    report = _report("sample_logs/wrong-payouts.json")
    deal = report.deals[3]
    rp = build_replay(report, deal)
    (violation,) = deal.violations
    assert violation.code == "lead-trump"
    page, errors, dialogs = _open(browser, replay_html(report, deal), tmp_path)
    marked = []
    for i in range(len(rp.steps)):
        seen = page.evaluate(SNAPSHOT_JS)
        _check_step(rp, i, seen)
        if seen["codes"]:
            marked.append(i)
            assert violation.message in seen["findingText"]
        if i < len(rp.steps) - 1:
            if move == "button":
                page.click("#next")
            else:
                page.keyboard.press("ArrowRight")
    # the marker appears exactly at the violating play, and nowhere else
    (at,) = marked
    assert rp.steps[at].kind == "play" and rp.steps[at].event == violation.event
    assert page.is_disabled("#next") and page.is_disabled("#last")
    assert seen["poolNext"] == str(deal.pool_next)
    payouts = {p: r["payout"] for p, r in seen["rows"].items() if r["payout"] != "—"}
    assert payouts == {p: str(v) for p, v in (deal.payouts or {}).items()}
    looed = {p: r["looed"] for p, r in seen["rows"].items() if r["looed"] != "—"}
    assert looed == {p: str(v) for p, v in (deal.looed or {}).items()}
    penalties = {p: r["penalty"] for p, r in seen["rows"].items() if r["penalty"] != "—"}
    assert penalties == {p: str(v) for p, v in (deal.penalties or {}).items()}
    shot = tmp_path / f"replay-{move}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert errors == [] and dialogs == []
    page.close()


def test_back_first_last_and_keys_move_through_the_steps(browser: Any, tmp_path: Path) -> None:
    report = _report("sample_logs/five-card-pam.json")
    deal = report.deals[0]
    rp = build_replay(report, deal)
    last = len(rp.steps) - 1
    page, errors, _ = _open(browser, replay_html(report, deal), tmp_path)
    assert page.is_disabled("#first") and page.is_disabled("#prev")
    page.click("#last")
    _check_step(rp, last, page.evaluate(SNAPSHOT_JS))
    page.click("#prev")
    _check_step(rp, last - 1, page.evaluate(SNAPSHOT_JS))
    page.keyboard.press("ArrowLeft")
    _check_step(rp, last - 2, page.evaluate(SNAPSHOT_JS))
    page.keyboard.press("Home")
    _check_step(rp, 0, page.evaluate(SNAPSHOT_JS))
    page.keyboard.press("End")
    _check_step(rp, last, page.evaluate(SNAPSHOT_JS))
    page.click("#first")
    _check_step(rp, 0, page.evaluate(SNAPSHOT_JS))
    page.click("#log li:nth-child(12)")
    _check_step(rp, 11, page.evaluate(SNAPSHOT_JS))
    assert errors == []
    page.close()


HOSTILE_NAME = "<script>alert(1)</script>\u202eevil\u0007 <img src=x onerror=alert(2)>"


def _hostile_report() -> SessionReport:
    doc = json.loads((ROOT / "sample_logs/three-card-club-night.json").read_text("utf-8"))
    doc["session"]["id"] = "night</script><script>alert(3)</script>"
    doc["session"]["venue"] = "<b onmouseover=alert(4)>The Tree</b>"
    for player in doc["session"]["players"]:
        if player["id"] == "ann":
            player["name"] = HOSTILE_NAME
    report = audit_document(Document("hostile.json", None, b"", doc), RuleChoice())
    assert isinstance(report, SessionReport)
    return report


def test_hostile_names_session_and_venue_are_shown_as_text_and_never_run(
    browser: Any, tmp_path: Path
) -> None:
    report = _hostile_report()
    deal = report.deals[1]
    source = replay_html(report, deal)
    assert "<script>alert" not in source and "<img" not in source and "<b " not in source
    start = source.index('<script type="application/json"')
    markup = source[:start] + source[source.index("</script>", start) :]
    assert "src=" not in markup and "href=" not in markup  # self-contained: nothing to fetch
    page, errors, dialogs = _open(browser, source, tmp_path)
    for _ in range(len(build_replay(report, deal).steps)):
        page.keyboard.press("ArrowRight")
    page.hover(".seat[data-seat=ann]")
    page.hover("header")
    assert dialogs == [] and errors == []
    assert page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.evaluate("document.querySelectorAll('img, b, iframe, [src], [href]').length") == 0
    name = page.text_content(".seat[data-seat=ann] .name")
    assert name == safe(HOSTILE_NAME, 80)
    assert "<script>alert(1)</script>" in name and "\\u202e" in name and "\\u0007" in name
    assert "night</script><script>alert(3)</script>" in page.text_content("header h1")
    assert "<b onmouseover=alert(4)>The Tree</b>" in page.text_content("header .facts")
    assert "alert(3)" in page.title()
    page.close()


def test_script_json_cannot_close_its_element() -> None:
    text = script_json({"x": "</script><!-- & >"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><!-- & >"}


ANALYSIS_JS = """() => {
  const q = (sel) => Array.from(document.querySelectorAll(sel));
  const lost = document.getElementById("lost-trick");
  const g = document.getElementById("guarantee");
  const head = document.getElementById("analysis");
  return {
    heading: head ? head.textContent : null,
    guarantee: g ? g.textContent : null,
    lost: lost ? lost.textContent : null,
    mistakes: q("#trick .play.mistake").map((p) => [p.dataset.card, p.querySelector(".badge").textContent]),
    tags: q(".seat .tag.g").map((t) => [t.closest(".seat").dataset.seat, t.textContent]),
    advice: q("#settlement .advice").map((a) => a.textContent),
    logMarks: q("#log li").filter((li) => li.textContent.endsWith("?")).length,
  };
}"""


def test_page_marks_the_card_that_lost_a_trick_and_the_avoidable_loo(
    browser: Any, tmp_path: Path
) -> None:
    """docs/analysis.md, "What a player can make sure of"-§3 on the page: G beside the player at each of their cards, "?" on
    cat's J♠ (with K♥ or K♣ cat was sure of a trick) and "avoidable loo" at the end."""
    report = _report("sample_logs/wrong-payouts.json")
    deal = report.deals[5]
    rp = build_replay(report, deal)
    assert rp.marks is not None
    page, errors, _ = _open(browser, replay_html(report, deal), tmp_path)
    seen = page.evaluate(ANALYSIS_JS)
    assert seen["heading"] == "Analysis: " + rp.marks.heading
    assert seen["logMarks"] == 1
    lost_at = []
    for i, step in enumerate(rp.steps):
        mark = rp.mark(step)
        if i:
            page.keyboard.press("ArrowRight")
        seen = page.evaluate(ANALYSIS_JS)
        if mark is None:
            assert seen["guarantee"] is None and seen["tags"] == []
            continue
        who = rp.seats[step.seat or 0]
        g = f"G {mark.before}" + ("" if mark.after == mark.before else f"→{mark.after}")
        assert seen["tags"] == [[who, g]]
        assert seen["guarantee"].startswith(f"sure of {mark.before} trick(s) before this card")
        if mark.lost is not None:
            lost_at.append(display(step.card or 0))
            assert seen["lost"] == "? lost trick: " + mark.lost
            assert seen["mistakes"] == [[display(step.card or 0), "?"]]
        else:
            assert seen["lost"] is None and seen["mistakes"] == []
    assert lost_at == ["J♠"]
    assert seen["advice"] == [f"{label}: {text}" for label, text in rp.marks.closing]
    assert seen["advice"][0].startswith(
        "avoidable loo: cat was looed, but could have made sure of a trick"
    )
    assert errors == []
    page.close()


def test_page_without_analysis_shows_no_guarantee(browser: Any, tmp_path: Path) -> None:
    """``--no-analysis``: the page is the plain replay (no G, no "?", no advice)."""
    report = _report("sample_logs/wrong-payouts.json")
    rp = build_replay(report, report.deals[5], analyse=False)
    assert rp.marks is None
    page, errors, _ = _open(browser, render_page(rp), tmp_path)
    page.click("#last")
    seen = page.evaluate(ANALYSIS_JS)
    assert seen["heading"] is None and seen["advice"] == [] and seen["logMarks"] == 0
    assert errors == []
    page.close()


def test_partial_deal_page_says_the_hands_are_derived_and_what_was_not_checked(
    browser: Any, tmp_path: Path
) -> None:
    """docs/log-format.md, "Hands left out": a deal recorded at a table shows the hands as its plays reveal them,
    and the page says so, with the checks its unknown cards left undone; a deal with every
    hand says neither."""
    report = _report("sample_logs/three-card-table-recorded.json")
    deal = next(d for d in report.deals if d.knowledge == "partial" and d.unchecked)
    page, errors, _ = _open(browser, replay_html(report, deal), tmp_path)
    facts = page.inner_text("body")
    assert "hands as the plays show them (hands left out)" in facts
    assert f"not checked (cards unknown): {', '.join(deal.unchecked)}" in facts
    assert errors == []
    page.close()
    full = _report("sample_logs/wrong-payouts.json")
    page, errors, _ = _open(browser, replay_html(full, full.deals[0]), tmp_path)
    assert "hands left out" not in page.inner_text("body")
    assert errors == []
    page.close()


def test_step_log_and_current_step_name_players_as_the_log_does(
    browser: Any, tmp_path: Path
) -> None:
    """The page's step texts name each player as the log names them (``display_names``, ids
    where the log gives no name): in wrong-payouts.json ann is "Ann Pepys", bob "Robert
    Hooke"; the terminal, whose table of hands shows id and name, keeps the ids."""
    report = _report("sample_logs/wrong-payouts.json")
    deal = report.deals[3]
    page, errors, _ = _open(browser, replay_html(report, deal), tmp_path)
    log = page.evaluate(
        "() => Array.from(document.querySelectorAll('#log li')).map((li) => li.textContent)"
    )
    assert any("Robert Hooke plays" in line for line in log)
    assert any("Ann Pepys takes the Miss" in line for line in log)
    assert not any(f"{p} " in line for line in log for p in ("ann", "bob", "cat", "dan", "eve"))
    for _ in range(3):
        page.click("#next")
    now = page.evaluate("() => document.querySelector('.now').textContent")
    assert build_replay(report, deal).steps[3].text in now
    assert "Catherine Sedley plays" in now
    assert errors == []


# Every step of the deal, walked inside the page (the Next button): for each badge on the
# trick, the cards (any in the trick) its box covers, and whether it leaves its own slot.
BADGE_BOXES_JS = """() => {
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const counter = document.getElementById("counter");
  const steps = parseInt(counter.textContent.split(" of ")[1], 10);
  const badges = [];
  for (let i = 0; i < steps; i++) {
    document.querySelectorAll("#trick .play .badge").forEach((badge) => {
      const box = badge.getBoundingClientRect();
      const slot = badge.parentElement;
      const covered = Array.from(document.querySelectorAll("#trick .card"))
        .filter((card) => overlap(box, card.getBoundingClientRect()))
        .map((card) => card.dataset.card);
      const own = slot.getBoundingClientRect();
      const inside = box.left >= own.left - 0.5 && box.right <= own.right + 0.5;
      badges.push([counter.textContent, badge.textContent, slot.dataset.card, covered, inside,
        slot.classList.contains("dead")]);
    });
    document.getElementById("next").click();
  }
  return badges;
}"""


@pytest.mark.parametrize("width", [390, 1400])
def test_a_badge_stands_beside_its_card_covering_no_card(
    browser: Any, tmp_path: Path, width: int
) -> None:
    """issue 55: the revoke's "!" covered its card's corner.  Measured by the boxes the
    browser lays out: the "!" of the lead-trump revoke (wrong payouts, deal 4), the "?" of
    the card that threw a trick away (deal 6), and the "!" of a card played out of turn,
    dead and turned aslant (revokes night, deal 16): each covers no card of the trick and
    stays within its own slot, so it covers no neighbour either."""
    seen = []
    for path, number in (
        ("sample_logs/wrong-payouts.json", 4),
        ("sample_logs/wrong-payouts.json", 6),
        ("sample_logs/three-card-revokes.json", 16),
    ):
        report = _report(path)
        deal = next(d for d in report.deals if d.number == number)
        (tmp_path / "replay.html").write_text(replay_html(report, deal), encoding="utf-8")
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto((tmp_path / "replay.html").as_uri())
        seen += [(number, *b) for b in page.evaluate(BADGE_BOXES_JS)]
        page.close()
    assert [(n, mark, dead) for n, _, mark, _, _, _, dead in seen] == [
        (4, "!", False),
        (6, "?", False),
        (16, "!", True),
    ]
    for number, step, _, card, covered, inside, _ in seen:
        assert covered == [] and inside, (number, step, card, covered, inside)

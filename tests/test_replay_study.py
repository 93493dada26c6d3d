"""Studying a deal on its replay page with the keyboard alone (issue 43, part 2), in Debian's
Chromium: jumps to the next and previous finding (violations and analysis notes), to the next
and previous mistake or blunder through the judged decisions' hook, the seat views' hook, the
keys on ``?``, and the buttons reached with Tab and pressed with Enter, their focus visible.

The deal: deal 4 of the revokes sample, whose analysis marks a card that threw a trick away
and whose follow-suit revoke ends the analysis.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_helpers import chromium

from loo_replay.replayer.html import page_data, page_html, render_page
from loo_replay.replayer.steps import DealReplay, build_replay
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
STEP = "() => Number(document.body.dataset.step)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def replay() -> DealReplay:
    report = next(iter(audited([ROOT / "sample_logs/three-card-revokes.json"])))
    assert isinstance(report, SessionReport)
    deal = next(d for d in report.deals if d.number == 4)
    return build_replay(report, deal)


def _open(browser: Any, html: str, tmp_path: Path, name: str) -> Any:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(path.as_uri())
    return page


def _visits(page: Any, key: str) -> list[int]:
    """The steps ``key`` leads to, pressed until it leads nowhere new."""
    seen: list[int] = []
    while True:
        page.keyboard.press(key)
        step = page.evaluate(STEP)
        if seen and step == seen[-1]:
            return seen
        seen.append(step)


def test_f_and_shift_f_walk_the_findings_and_analysis_notes(
    browser: Any, replay: DealReplay, tmp_path: Path
) -> None:
    worth = [
        i
        for i, s in enumerate(replay.steps)
        if s.findings or ((m := replay.mark(s)) is not None and m.lost)
    ]
    assert len(worth) >= 2  # the card that threw a trick away, the revoke
    page = _open(browser, render_page(replay), tmp_path, "plain.html")
    assert _visits(page, "f") == worth
    assert _visits(page, "Shift+F") == worth[-2::-1]
    # No judged decisions and no views in a plain page: their buttons are not offered.
    assert page.is_hidden("#next-mistake") and page.is_hidden("#view")
    page.keyboard.press("m")
    assert page.evaluate(STEP) == worth[0]
    assert page.errors == []
    page.close()


def test_every_button_is_reached_with_tab_pressed_with_enter_and_ringed(
    browser: Any, replay: DealReplay, tmp_path: Path
) -> None:
    page = _open(browser, render_page(replay), tmp_path, "tab.html")
    reached: list[str] = []
    for _ in range(12):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
        if reached[-1] == "next-finding":
            break
    assert reached[:2] == ["next", "last"]  # First and Back are disabled at the first step
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("Enter")
    first = page.evaluate(STEP)
    assert first > 0 and page.text_content("#counter") == f"Step {first + 1} of {len(replay.steps)}"
    back: list[str] = []
    while not back or back[-1] not in ("next", "BODY"):
        page.keyboard.press("Shift+Tab")
        back.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
    assert back[-1] == "next" and "last" in back  # back through the buttons, in order
    page.keyboard.press("Enter")
    assert page.evaluate(STEP) == first + 1
    page.close()


def test_the_judged_decisions_and_seat_views_hooks_drive_m_and_v(
    browser: Any, replay: DealReplay, tmp_path: Path
) -> None:
    """The decisions work fills ``judgement`` on steps and ``views`` on the deal; M walks
    the mistakes and blunders (not the other judgements), V shows one seat's hand alone."""
    data = page_data(replay)
    plays = [i for i, s in enumerate(data["steps"]) if s["kind"] == "play"]
    judged = {plays[0]: "mistake", plays[1]: "good", plays[3]: "blunder"}
    for i, judgement in judged.items():
        data["steps"][i]["judgement"] = judgement
    data["views"] = [{"label": "every hand", "seat": None}, {"label": "Ann", "seat": 0}]
    page = _open(browser, page_html(data), tmp_path, "judged.html")
    assert page.eval_on_selector_all(
        "#log li[data-judgement]", "ls => ls.map((l) => l.dataset.judgement)"
    ) == ["mistake", "good", "blunder"]
    assert _visits(page, "m") == [plays[0], plays[3]]
    assert _visits(page, "Shift+M") == [plays[0]]
    seat_faces = (
        "() => Array.from(document.querySelectorAll('.seat')).map("
        "(s) => [s.querySelectorAll('.card:not(.back)').length, s.querySelectorAll('.card.back').length])"
    )
    every = page.evaluate(seat_faces)
    assert all(backs == 0 for _, backs in every)
    miss = "() => document.querySelectorAll('.extras .extra .card.back').length"
    assert page.evaluate(miss) == 0
    page.keyboard.press("v")
    assert page.text_content("#view") == "view: Ann"
    backs = page.evaluate(miss)  # the Miss, still on the table, face down in Ann's view
    assert backs > 0 and backs == len(data["steps"][page.evaluate(STEP)]["miss"] or [])
    alone = page.evaluate(seat_faces)
    shown = page.evaluate(STEP)  # a card of Ann's or another's: "held ..." for Ann's alone
    held = page.locator("#step-text .detail", has_text="held").count()
    assert held == (data["steps"][shown]["seat"] == 0 and data["steps"][shown]["held"] is not None)
    assert alone[0] == every[0]  # Ann's own hand, face up
    assert all(faces == 0 and backs == sum(every[k]) for k, (faces, backs) in enumerate(alone) if k)
    page.keyboard.press("End")  # the deal over, every hand is shown again
    assert all(backs == 0 for _, backs in page.evaluate(seat_faces))
    page.keyboard.press("v")
    assert page.text_content("#view") == "view: every hand"
    assert page.errors == []
    page.close()


def test_question_mark_shows_the_keys_and_escape_or_question_mark_hides_them(
    browser: Any, replay: DealReplay, tmp_path: Path
) -> None:
    page = _open(browser, render_page(replay), tmp_path, "keys.html")
    assert not page.is_visible("#keys-help")
    page.keyboard.press("?")
    assert page.is_visible("#keys-help")
    keys = page.eval_on_selector_all("#keys-help th", "ths => ths.map((t) => t.textContent)")
    assert {"→ / ←", "Home / End", "F / Shift+F", "M / Shift+M", "V", "?"} <= set(keys)
    page.keyboard.press("ArrowRight")  # the page does not step under the dialog
    assert page.evaluate(STEP) == 0
    page.keyboard.press("Escape")
    assert not page.is_visible("#keys-help")
    page.keyboard.press("?")
    page.keyboard.press("?")
    assert not page.is_visible("#keys-help")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(STEP) == 1
    page.close()

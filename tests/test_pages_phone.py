"""Every page at a phone's 390 px, a small laptop's 800 px and a desktop's 1400 px, measured in
Debian's Chromium (issue 43, part 1): no text box over another (HTML lines and Plotly's titles,
tick labels, legends and names alike), no figure text cut off at the figure's edge, nothing
wider than the window, no table scrolling sideways or hiding rows in a fixed-height box, and
a replay's controls within one window's height of the trick.

One browser and one folder of reports (three sample logs: six seats and the Miss, wrong
payouts, a crooked dealer for the fairness page) for the whole module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from db_helpers import run
from page_geometry import CUT_TEXT_JS, HIDDEN_ROWS_JS, SIDEWAYS_JS, TEXT_OVERLAPS_JS, span_js
from report_helpers import chromium

from loo_replay.reports.names import session_page_name
from loo_replay.reports.replays import folder

sync_api = pytest.importorskip("playwright.sync_api")

WIDTHS = (390, 800, 1400)
HEIGHT = 800
LOGS = ("three-card-revokes.json", "wrong-payouts.json", "three-card-crooked-dealer.jsonl")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("phone")
    out = tmp / "reports"
    logs = [Path("sample_logs") / name for name in LOGS]
    result = run(
        "audit", *logs, "--db", tmp / "loo.duckdb", "--out", out, "--decisions", "--samples", "4"
    )
    assert result.returncode == 1, result.stderr  # the samples hold violations
    return out


def _report_pages(reports: Path) -> list[Path]:
    names = ("index.html", "all-sessions.html", "fairness.html", "collusion.html", "decisions.html")
    pages = [reports / n for n in names]
    return pages + sorted(reports.glob("session-*.html"))


def _measure(page: Any) -> dict[str, Any]:
    sideways = page.evaluate(SIDEWAYS_JS)
    return {
        "wider than the window": sideways["page"] > page.viewport_size["width"],
        "scrolls sideways inside": sideways["inner"],
        "tables hiding rows": page.evaluate(HIDDEN_ROWS_JS),
        "text over text": page.evaluate(TEXT_OVERLAPS_JS),
        "figure text cut off": page.evaluate(CUT_TEXT_JS),
    }


CLEAN = {
    "wider than the window": False,
    "scrolls sideways inside": [],
    "tables hiding rows": 0,
    "text over text": [],
    "figure text cut off": [],
}


@pytest.mark.parametrize("width", WIDTHS)
def test_report_pages_fit_with_no_text_over_text(browser: Any, reports: Path, width: int) -> None:
    """The index, across sessions, fairness, collusion, decisions and each session's page: tables whole
    (stacked where they are wider than their panel), figures' labels apart and inside the
    figure."""
    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    pages = _report_pages(reports)
    assert len(pages) == 8
    for path in pages:
        page.goto(path.as_uri())
        page.wait_for_function("document.body.dataset.plotted !== undefined", timeout=30_000)
        assert page.evaluate("document.body.dataset.plotted") == "yes", path.name
        assert _measure(page) == CLEAN, (path.name, width)
    stacked = page.eval_on_selector_all("table.stacked", "ts => ts.length")
    assert (stacked > 0) == (width < 1000), width  # the session's wide tables, on a narrow screen
    assert errors == []
    page.close()


def test_a_stacked_table_shows_every_column_of_a_row_with_its_name(
    browser: Any, reports: Path
) -> None:
    """At 390 px the players table is a card a player: each column's name beside its value,
    all within the window.  The tables do not wait for the figures: plotly.min.js is kept
    from loading here."""
    page = browser.new_page(viewport={"width": 390, "height": HEIGHT})
    page.route("**/plotly.min.js", lambda route: route.abort())
    page.goto((reports / session_page_name("revokes-2026-11-22")).as_uri())
    page.wait_for_function("document.body.dataset.plotted === 'failed'", timeout=30_000)
    table = page.locator("section.panel", has_text="Players").locator("table")
    assert "stacked" in (table.get_attribute("class") or "")
    row = table.locator("tbody tr").first
    cells = row.locator("td").all()
    labels = [c.get_attribute("data-label") for c in cells]
    assert labels[:3] == ["Seat", "Player", "Deals"] and labels[-1] == "Violations"
    shown = [
        page.evaluate("(c) => getComputedStyle(c, '::before').content", c.element_handle())
        for c in cells
    ]
    assert shown == [f'"{label}"' for label in labels]
    for cell in cells:
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.close()


ALL_DRAWN = """() => document.body.dataset.plotted === "yes" && Array.from(
  document.querySelectorAll("div.figure")).every((f) => Number(f.dataset.width) === f.clientWidth)"""


@pytest.fixture(scope="module")
def colluders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reports of simulated colluders (ann and bob), made once for every width."""
    tmp = tmp_path_factory.mktemp("colluders")
    log, out = tmp / "games.jsonl", tmp / "reports"
    made = run("simulate", "--players", "6", "--deals", "500", "--seed", "3",
               "--colluders", "ann,bob:1.0", "--out", log)  # fmt: skip
    assert made.returncode == 0, made.stderr
    result = run("audit", log, "--db", tmp / "loo.duckdb", "--out", out, "--no-replays")
    assert "collusion: 1 pair(s) flagged" in result.stdout, result.stderr
    return out


@pytest.mark.parametrize("width", (390, 1400))
def test_a_flagged_collusion_page_fits(browser: Any, colluders: Path, width: int) -> None:
    """The collusion page of simulated colluders: its figure of every pair's tests, the
    flagged pair's deals and every test, whole at a phone's width and a desktop's."""
    out = colluders
    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
    page.goto((out / "collusion.html").as_uri())
    page.wait_for_function("document.body.dataset.plotted !== undefined", timeout=30_000)
    assert page.evaluate("document.body.dataset.plotted") == "yes"
    assert page.locator("h2", has_text="The deals behind the flag: ann and bob").count() == 1
    assert _measure(page) == CLEAN, width
    page.close()


def _until(page: Any, script: str, seconds: float = 30) -> None:
    """Wait until ``script`` is true, asked from here: Playwright's own polling evaluates
    it with the eval that the pages' Content Security Policy forbids."""
    for _ in range(int(seconds * 20)):
        if page.evaluate(script):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"not true after {seconds} s: {script}")


def test_a_page_opened_wide_then_narrowed_is_drawn_again_for_the_phone(
    browser: Any, reports: Path
) -> None:
    """A window narrowed from 1400 to 390 px (a phone turned upright): the tables stack, the
    figures are drawn again for the new width, and nothing overlaps or is cut."""
    page = browser.new_page(viewport={"width": 1400, "height": HEIGHT})
    page.goto((reports / "all-sessions.html").as_uri())
    _until(page, ALL_DRAWN)
    assert page.eval_on_selector_all("table.stacked", "ts => ts.length") == 0
    page.set_viewport_size({"width": 390, "height": HEIGHT})
    _until(page, ALL_DRAWN)  # false from the resize until the figures are drawn again
    assert page.eval_on_selector_all("table.stacked", "ts => ts.length") > 0
    assert _measure(page) == CLEAN
    page.close()


def test_the_funnel_names_stand_apart_at_1400_px(browser: Any, reports: Path) -> None:
    """The funnel drew its players' names on top of each other; now a name that would cover
    another is left to the hover, and the flagged dealer's name is always shown."""
    page = browser.new_page(viewport={"width": 1400, "height": HEIGHT})
    page.goto((reports / "fairness.html").as_uri())
    page.wait_for_function("document.body.dataset.plotted === 'yes'", timeout=30_000)
    names = page.eval_on_selector_all(
        "#fig-fairness-funnel .textpoint text",
        "ts => ts.filter((t) => t.checkVisibility()).map((t) => t.textContent)",
    )
    assert "dan" in names
    assert page.evaluate(TEXT_OVERLAPS_JS) == []
    page.close()


def _replays(reports: Path) -> list[Path]:
    """Deal 4 of the revokes sample (six seats, the Miss, a revoke) and a deal of the
    crooked dealer's session (five seats)."""
    return [
        reports / folder("revokes-2026-11-22") / "deal-4.html",
        reports / folder("crooked-dealer-2026-11-28") / "deal-3.html",
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_replay_controls_stay_within_a_window_of_the_trick(
    browser: Any, reports: Path, width: int
) -> None:
    """At every width the Next and Previous buttons and the trick fit in one window's height,
    and at the first, a middle and the last step no text covers another."""
    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
    for path in _replays(reports):
        page.goto(path.as_uri())
        steps = int(page.text_content("#counter").split(" of ")[1])
        for step in (0, steps // 2, steps - 1):
            page.keyboard.press("Home")
            for _ in range(step):
                page.keyboard.press("ArrowRight")
            assert page.text_content("#counter") == f"Step {step + 1} of {steps}"
            assert _measure(page) == CLEAN, (path.name, width, step)
            for button in ("#next", "#prev"):
                assert page.evaluate(span_js("#trick", button)) <= HEIGHT, (path.name, width)
    page.close()

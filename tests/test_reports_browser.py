"""The reports in a real browser (Debian's Chromium, headless, driven by Playwright), opened
from disk as a user opens them: every figure drawn with all its traces, no console error,
the deal links reach their replay pages, and text from logs never runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import run
from report_helpers import SampleAudit, chromium, copy_of, hand_doc, load, shot_on_failure

from loo_replay.reports.build import write_reports
from loo_replay.reports.names import session_page_name

sync_api = pytest.importorskip("playwright.sync_api")

# Every figure, read back from the DOM in one round trip.
FIGURES_JS = """() => Array.from(document.querySelectorAll("div.figure")).map((el) => ({
  id: el.id,
  plotted: el.classList.contains("js-plotly-plot"),
  svg: el.querySelector("svg.main-svg") !== null,
  traces: el.data ? el.data.length : -1,
  expected: Number(el.dataset.traces),
}))"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def reports(sample_audit: SampleAudit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reports folder of ``loo-replay audit sample_logs`` (this module's copy)."""
    return copy_of(sample_audit, tmp_path_factory.mktemp("browser")).out


class Visit:
    """A browser page that collects console errors, page errors and dialogs."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: Path) -> list[dict[str, Any]]:
        """Open ``path`` and wait until every figure is drawn; the figures as the DOM has them."""
        self.page.goto(path.as_uri())
        self.page.wait_for_function(
            "document.body.getAttribute('data-plotted') !== null", timeout=30_000
        )
        assert self.page.evaluate("document.body.getAttribute('data-plotted')") == "yes"
        figures: list[dict[str, Any]] = self.page.evaluate(FIGURES_JS)
        return figures

    def sweep(self) -> int:
        """Move the mouse across every plot until Plotly draws a hover label (where text from
        logs is shown) in it; how many plots drew one."""
        drawn = 0
        for area in self.page.query_selector_all(".js-plotly-plot .nsewdrag"):
            area.scroll_into_view_if_needed()
            box = area.bounding_box()
            if box is None:
                continue
            points = [
                (box["x"] + box["width"] * k / 8, box["y"] + box["height"] * f)
                for k in range(1, 8)
                for f in (0.3, 0.7)
            ]
            for x, y in points:
                self.page.mouse.move(x, y)
                if self.page.query_selector(".hoverlayer .hovertext"):
                    drawn += 1
                    break
        return drawn

    def close(self) -> None:
        self.page.close()


def _check_figures(figures: list[dict[str, Any]], name: str) -> None:
    for f in figures:
        assert f["plotted"] and f["svg"], (name, f)
        assert f["traces"] == f["expected"], (name, f)


def test_every_page_draws_every_figure_without_an_error(
    browser: Any, reports: Path, tmp_path: Path
) -> None:
    visit = Visit(browser)
    index = visit.open(reports / "index.html")
    pages = [reports / "all-sessions.html", *sorted(reports.glob("session-*.html"))]
    with shot_on_failure(visit.page, tmp_path / "index.png"):
        assert index == []  # the index is a table
        links = visit.page.eval_on_selector_all("main a[href]", "els => els.map(a => a.href)")
        assert {p.as_uri() for p in pages} <= set(links)
    for path in pages:
        figures = visit.open(path)
        with shot_on_failure(visit.page, tmp_path / f"{path.stem}.png"):
            expected = 5  # pool, loo, chips, violations, analysis / the five all-sessions figures
            assert len(figures) == expected, path.name
            _check_figures(figures, path.name)
    assert visit.errors == [] and visit.dialogs == []
    visit.close()


def test_a_deal_link_opens_its_replay_page(browser: Any, reports: Path, tmp_path: Path) -> None:
    visit = Visit(browser)
    visit.open(reports / session_page_name("revokes-2026-11-22"))
    row = visit.page.locator("tr[data-deal='4']")
    assert "follow-suit" in row.inner_text()
    with visit.page.expect_navigation():
        row.locator("a", has_text="replay").click()
    assert visit.page.url.endswith("/deal-4.html")
    visit.page.wait_for_selector("#counter")
    assert "deal 4" in visit.page.title()
    visit.page.keyboard.press("End")
    with shot_on_failure(visit.page, tmp_path / "replay.png"):
        assert visit.page.is_visible("#settlement")
    assert visit.errors == [] and visit.dialogs == []
    visit.close()


HOSTILE = "<script>alert(1)</script>"
HOSTILE_VENUE = "<img src=x onerror=alert(2)>"


def test_hostile_names_ids_and_venues_are_shown_as_text_and_never_run(
    browser: Any, tmp_path: Path
) -> None:
    doc = hand_doc(HOSTILE, venue=HOSTILE_VENUE, started_at="</script><b>soon</b>")
    for player in doc["session"]["players"]:
        player["name"] = f"{HOSTILE} \u202eeve {player['id']}"
    other = hand_doc("../../evil", venue="<svg onload=alert(3)>")
    db = load(tmp_path / "logs", {"h.json": doc, "e.json": other})
    out = tmp_path / "out"
    with duckdb.connect(str(db), read_only=True) as con:
        result = write_reports(con, out, source="<b>db</b>", replays=True)
    assert result.sessions == 2 and result.notes == []
    visit = Visit(browser)
    pages = [out / "index.html", out / "all-sessions.html", *sorted(out.glob("session-*.html"))]
    for path in pages:
        _check_figures(visit.open(path), path.name)
        hovered = visit.sweep()
        assert hovered or path.name == "index.html", path.name
        run_scripts = "document.querySelectorAll('script:not([type=\"application/json\"])')"
        assert visit.page.evaluate(f"{run_scripts}.length") == 2, path.name
        assert (
            visit.page.evaluate(
                "document.querySelectorAll('img, svg[onload], [onerror], [onload], b').length"
            )
            == 0
        ), path.name
    session = out / session_page_name(HOSTILE)
    visit.open(session)
    assert HOSTILE in visit.page.text_content("header h1")
    assert HOSTILE_VENUE in visit.page.text_content("header .facts")
    names = visit.page.locator("td.player strong").all_inner_texts()  # name first, then id
    assert names and all(HOSTILE in n and "\\u202e" in n for n in names)
    visit.open(out / "all-sessions.html")
    ticks = visit.page.eval_on_selector_all(
        "#fig-loo-by-session .xtick text", "els => els.map(e => e.textContent)"
    )
    with shot_on_failure(visit.page, tmp_path / "hostile.png"):
        assert HOSTILE in ticks and "../../evil" in ticks
    visit.open(session)
    visit.page.locator("tr[data-deal='1'] a", has_text="replay").click()
    visit.page.wait_for_selector("#counter")
    assert HOSTILE in visit.page.text_content("header h1")
    visit.page.keyboard.press("End")
    assert visit.dialogs == [] and visit.errors == []
    visit.close()


def test_the_fairness_page_draws_its_figures_and_words_its_flags(
    browser: Any, reports: Path
) -> None:
    """docs/fairness.md, "The JSON": observed against expected with the band fair dealing allows, and the
    funnel of the dealers' rates, drawn; the samples' crooked dealer is flagged in words."""
    visit = Visit(browser)
    figures = visit.open(reports / "fairness.html")
    assert [f["id"] for f in figures] == ["fig-fairness-observed", "fig-fairness-funnel"]
    _check_figures(figures, "fairness.html")
    text = visit.page.inner_text("main")
    assert "when dan deals they hold the top trump" in text
    assert "unlikely under fair dealing" in text
    assert visit.errors == [] and visit.dialogs == []
    visit.close()


def test_the_decisions_page_draws_its_figures_and_links_its_costliest_deals(
    browser: Any, reports: Path, tmp_path: Path
) -> None:
    """docs/reports.md, "The judged decisions page": with decisions judged (simulated logs,
    ``audit --decisions``), both figures drawn with a line per player, each costly deal
    linked to a replay page that opens; without (the samples), the page says so."""
    visit = Visit(browser)
    visit.open(reports / "decisions.html")
    assert "No decisions judged yet" in visit.page.inner_text("main")

    logs = tmp_path / "games.jsonl"
    simulated = run("simulate", "--players", "4", "--deals", "5", "--seed", "11", "--out", logs)
    assert simulated.returncode == 0, simulated.stderr
    out = tmp_path / "judged"
    done = run("audit", logs, "--db", tmp_path / "loo.duckdb", "--out", out,
               "--decisions", "--samples", "6")  # fmt: skip
    assert done.returncode == 0, done.stderr
    visit.open(out / "index.html")
    assert visit.page.locator("a[href='decisions.html']").count() == 2  # navigation, notice
    figures = visit.open(out / "decisions.html")
    with shot_on_failure(visit.page, tmp_path / "decisions.png"):
        assert [f["id"] for f in figures] == ["fig-decision-accuracy", "fig-decision-loss"]
        _check_figures(figures, "decisions.html")
        assert all(f["traces"] == 4 for f in figures)  # a line per player
        assert "The costliest decisions of sim-three-card-11-1" in visit.page.inner_text("main")
        deal = visit.page.locator("main table a[href*='deal-']").first
        href = deal.get_attribute("href")
        assert href is not None
        page, _, anchor = href.partition("#event-")
        assert (out / page).is_file() and anchor.isdigit()
        with visit.page.expect_navigation():
            deal.click()
        visit.page.wait_for_selector("#counter")
        # It opens at the decision: the step of that event, its judged panel shown.
        steps = visit.page.evaluate(
            "JSON.parse(document.getElementById('replay-data').textContent).steps"
        )
        at = int(visit.page.evaluate("document.body.dataset.step"))
        assert steps[at]["event"] == int(anchor) and "decision" in steps[at]
        assert visit.page.locator("#decision").is_visible()
    assert visit.errors == [] and visit.dialogs == []
    visit.close()

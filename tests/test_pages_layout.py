"""The pages at a phone's, a small laptop's and a desktop's width, and on paper, in a real
browser (Debian's Chromium, headless, driven by Playwright) (issue 13, point 7): no sideways
scroll (the document is no wider than the window), no element over another (the Miss over a
seat), replay pages linked to their session and to the previous and next deal, and tables
printed whole.  The report pages' text, tables and figures at the three
widths are measured in ``test_pages_phone.py``.

The tests save their screenshots (the replay pages' only for a page that fails) and the
printed PDF in pytest's ``tmp_path``: run with ``--basetemp=DIR`` to keep them in
DIR/<test name>0/.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from report_helpers import SampleAudit, chromium, copy_of, shot_on_failure

from loo_replay.reports.names import session_page_name
from loo_replay.reports.replays import folder

sync_api = pytest.importorskip("playwright.sync_api")

WIDTHS = (390, 800, 1400)

# Pairs of boxes that cover one another by more than a pixel; ``groups`` are CSS selectors,
# each element named by its selector and index.
# Every step of the replay on the page, walked inside the page (the Next button, as a click
# would press it) so that a deal costs one round trip, not one a step: for each step whose
# boxes cover one another by more than a pixel, its counter and the pairs, each element named
# by its CSS selector (of ``groups``) and index.
STEP_OVERLAPS_JS = """(groups) => {
  const overlaps = () => {
    const boxes = [];
    groups.forEach((sel) => document.querySelectorAll(sel).forEach((e, i) => {
      const r = e.getBoundingClientRect();
      if (r.width && r.height) boxes.push([sel + "#" + i, r, e]);
    }));
    const out = [];
    for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
      const [n1, r1, e1] = boxes[a], [n2, r2, e2] = boxes[b];
      if (e1.contains(e2) || e2.contains(e1)) continue;
      if (r1.left < r2.right - 1 && r2.left < r1.right - 1 &&
          r1.top < r2.bottom - 1 && r2.top < r1.bottom - 1) out.push(n1 + " / " + n2);
    }
    return out;
  };
  const counter = document.getElementById("counter");
  const steps = parseInt(counter.textContent.split(" of ")[1], 10);
  const found = [];
  for (let i = 0; i < steps; i++) {
    const pairs = overlaps();
    if (pairs.length) found.push([counter.textContent, pairs]);
    document.getElementById("next").click();
  }
  return {steps: steps, last: counter.textContent, found: found};
}"""
REPLAY_PARTS = [".seat", "#trick-title", "#trick .play", "#trick-note", ".extras > *", "aside"]
SCROLL_WIDTH = "document.documentElement.scrollWidth"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def reports(sample_audit: SampleAudit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reports folder of ``loo-replay audit sample_logs`` (this module's copy)."""
    return copy_of(sample_audit, tmp_path_factory.mktemp("layout")).out


def _page(browser: Any, width: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def _open_report(page: Any, path: Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_function("document.body.getAttribute('data-plotted') !== null", timeout=30_000)


def _deal_pages(reports: Path, session_id: str) -> list[Path]:
    """The session's replay pages in deal order."""
    pages = (reports / folder(session_id)).glob("deal-*.html")
    return sorted(pages, key=lambda p: int(p.stem.split("-")[1]))


def test_replay_pages_fit_390_800_and_1400_px_with_no_seat_covered_at_any_step(
    browser: Any, reports: Path, tmp_path: Path
) -> None:
    """A deal of every sample session (3 to 6 seats, three- and five-card hands, with and
    without a Miss), every step of it.  A failing page's screenshot: tmp_path/<session>-<deal>-<width>.png."""
    chosen = [
        pages[len(pages) // 2]
        for d in sorted((reports / "replays").iterdir())
        if (pages := sorted(d.glob("deal-*.html")))
    ]
    assert len(chosen) == 14  # one deal of every sample session
    for width in WIDTHS:
        page = _page(browser, width)
        for path in chosen:
            page.goto(path.as_uri())
            walked = page.evaluate(STEP_OVERLAPS_JS, REPLAY_PARTS)
            where = (path.parent.name, path.name, width)
            with shot_on_failure(page, tmp_path / f"{path.parent.name}-{path.stem}-{width}.png"):
                assert walked["steps"] > 1 and walked["found"] == [], (where, walked)
                assert walked["last"] == f"Step {walked['steps']} of {walked['steps']}", walked
                assert page.evaluate(SCROLL_WIDTH) <= width, where
        assert page.errors == []
        page.close()


def test_the_miss_covers_no_seat_at_800_px(browser: Any, reports: Path, tmp_path: Path) -> None:
    """The newcomer's case: deal 4 of the revokes sample, six seats, the Miss on the table."""
    page = _page(browser, 800)
    page.goto((reports / folder("revokes-2026-11-22") / "deal-4.html").as_uri())
    assert "the Miss" in page.text_content(".extras")
    miss = page.locator(".extras .extra", has_text="the Miss").bounding_box()
    seats = [s.bounding_box() for s in page.locator(".seat").all()]
    assert len(seats) == 6
    with shot_on_failure(page, tmp_path / "revokes-deal-4-800.png"):
        for seat in seats:
            apart = (
                miss["x"] + miss["width"] <= seat["x"]
                or seat["x"] + seat["width"] <= miss["x"]
                or miss["y"] + miss["height"] <= seat["y"]
                or seat["y"] + seat["height"] <= miss["y"]
            )
            assert apart, (miss, seat)
    page.close()


def test_replay_pages_link_to_their_session_and_the_previous_and_next_deal(
    browser: Any, reports: Path
) -> None:
    """Following "next" from the first deal's page visits every page of the session in deal
    order; "previous" walks back; each page leads back to the session's report."""
    sid = "revokes-2026-11-22"
    pages = _deal_pages(reports, sid)
    assert len(pages) >= 20
    page = _page(browser, 1400)
    page.goto(pages[0].as_uri())
    assert page.locator("#to-previous").count() == 0
    visited = [page.url]
    while page.locator("#to-next").count():
        assert page.get_attribute("#to-session", "href") == f"../../{session_page_name(sid)}"
        with page.expect_navigation():
            page.click("#to-next")
        visited.append(page.url)
    assert visited == [p.as_uri() for p in pages]
    with page.expect_navigation():
        page.click("#to-previous")
    assert page.url == pages[-2].as_uri()
    with page.expect_navigation():
        page.click("#to-session")
    assert page.url == (reports / session_page_name(sid)).as_uri()
    assert page.errors == []
    page.close()


def test_every_session_page_links_each_deal_to_its_replay(browser: Any, reports: Path) -> None:
    """The links as the page's script leaves them; the figures are not needed, so plotly.min.js
    is kept from loading (the tables do not wait for it)."""
    page = _page(browser, 1400)
    page.route("**/plotly.min.js", lambda route: route.abort())
    for session in sorted(reports.glob("session-*.html")):
        _open_report(page, session)
        links = page.eval_on_selector_all("tr[data-deal] a", "els => els.map((a) => a.href)")
        replays = sorted(
            reports.glob(f"replays/{session.stem.removeprefix('session-')}/deal-*.html")
        )
        assert replays and sorted(links) == sorted(p.as_uri() for p in replays), session.name
    page.close()


PRINT_JS = """() => Array.from(document.querySelectorAll("table")).map((t) => {
  const box = t.parentElement, style = getComputedStyle(box);
  return {overflow: style.overflowY, cut: box.scrollHeight > box.clientHeight + 1,
          rows: t.rows.length};
})"""


def test_printing_shows_every_table_whole(browser: Any, reports: Path, tmp_path: Path) -> None:
    """Neither on screen nor printed does a table sit in a box that cuts it (the deals table
    of a 24-deal session, once in a 520 px box).  The PDF: tmp_path/session.pdf."""
    session = reports / session_page_name("unlimited-2026-11-25")
    page = _page(browser, 800)
    _open_report(page, session)
    on_screen = page.evaluate(PRINT_JS)
    assert not any(t["cut"] for t in on_screen), on_screen
    page.emulate_media(media="print")
    printed = page.evaluate(PRINT_JS)
    assert len(printed) == len(on_screen)
    assert all(t["overflow"] == "visible" and not t["cut"] for t in printed), printed
    page.pdf(path=str(tmp_path / "session.pdf"))
    assert (tmp_path / "session.pdf").stat().st_size > 10_000
    page.close()


PANELS_JS = """() => {
  const layout = document.getElementById("fig-loo").layout;
  return ["", "2", "3"].map((k) => [layout["xaxis" + k].domain, layout["yaxis" + k].domain]);
}"""


def test_the_loo_figure_stacks_its_panels_on_a_phone(
    browser: Any, reports: Path, tmp_path: Path
) -> None:
    """Side by side at 800 px; at 390 px one above the other, each the full width, so that
    the slanted names of one panel cannot run into the next (tmp_path/loo-390.png when not)."""
    session = reports / session_page_name("wrong-payouts-2026-11-27")
    for width, stacked in ((800, False), (390, True)):
        page = _page(browser, width)
        _open_report(page, session)
        panels = page.evaluate(PANELS_JS)
        xs = [x for x, _ in panels]
        if stacked:
            ys = sorted((y for _, y in panels), reverse=True)
            with shot_on_failure(page, tmp_path / f"loo-{width}.png"):
                assert xs == [[0, 1]] * 3
                assert all(lower[1] < upper[0] for upper, lower in pairwise(ys))
        else:
            assert all(right[0] > left[1] for left, right in pairwise(xs))
        page.close()

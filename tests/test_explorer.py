"""``loo-replay serve`` end to end (docs/explorer.md): the real CLI serving a database made by
the real ``ingest``, driven by a real Chromium (Playwright), as a user browses it: a list,
a filter, a session, a deal's replay; a 404; hostile text shown as text; the busy page
while another process writes, which shows the page by itself once the write is done;
``ingest`` while it serves; the warning on a host other than the loopback; Ctrl-C."""

from __future__ import annotations

import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest
from db_helpers import SAMPLES, run
from explorer_helpers import SAMPLE_LOGS, Server, ingested, served, serving
from report_helpers import chromium, hand_doc
from test_pages_phone import CLEAN, _measure
from test_reports_browser import Visit as ReportVisit

HOSTILE = "<script>alert(1)</script>"
HOSTILE_VENUE = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sample logs and a hand-worked session whose id, venue and names are hostile."""
    tmp = tmp_path_factory.mktemp("explorer")
    # The latest session: the names it gives are the players' names (lists/players).
    doc = hand_doc(HOSTILE, venue=HOSTILE_VENUE, started_at="2099-01-01T20:00:00Z")
    for player in doc["session"]["players"]:
        player["name"] = f"{HOSTILE} {player['id']}"
    (tmp / "hostile.json").write_bytes(orjson.dumps(doc))
    return ingested(tmp / "loo.duckdb", tmp / "hostile.json", *SAMPLE_LOGS)


@pytest.fixture(scope="module")
def server(db: Path) -> Iterator[Server]:
    yield from served(db)


class Visit(ReportVisit):
    """The reports' browser page (console errors, page errors and dialogs collected), at
    URLs of the server."""

    def go(self, url: str) -> int:
        response = self.page.goto(url)
        assert response is not None
        return int(response.status)

    def rows(self) -> list[str]:
        rows: list[str] = self.page.locator("main table tbody tr").all_inner_texts()
        return rows


def test_a_list_filtered_then_a_session_then_a_deal_replayed(browser: Any, server: Server) -> None:
    visit = Visit(browser)
    assert visit.go(server.url) == 200
    assert len(visit.rows()) == 3  # every session
    visit.page.select_option("select[name=with]", "discrepancies")
    visit.page.click("form.filters button[type=submit]")
    visit.page.wait_for_url("**with=discrepancies**")
    flagged = visit.rows()
    assert len(flagged) == 1 and flagged[0].startswith("wrong-payouts")
    shared = visit.page.url  # the view is its URL: opened afresh, it is the same list
    other = Visit(browser)
    assert other.go(shared) == 200 and other.rows() == flagged

    visit.page.locator("main table tbody tr a", has_text="wrong-payouts").first.click()
    visit.page.wait_for_url("**/session?id=*")
    assert "wrong-payouts" in visit.page.text_content("header h1")
    visit.page.wait_for_function("document.body.getAttribute('data-plotted') === 'yes'")
    visit.page.locator("main table a[href^='replay?']").first.click()
    visit.page.wait_for_selector("#counter")
    assert "/replay?session=" in visit.page.url
    visit.page.keyboard.press("End")
    assert visit.errors == [] and visit.dialogs == []

    assert visit.go(server.url + "findings") == 200
    total = len(visit.rows())
    visit.page.select_option("select[name=code]", index=1)
    visit.page.click("form.filters button[type=submit]")
    visit.page.wait_for_url("**code=**")
    assert 0 < len(visit.rows()) <= total
    visit.page.locator("main table tbody tr a", has_text="▸").first.click()
    visit.page.wait_for_selector("#counter")
    assert visit.errors == [] and visit.dialogs == []


def test_any_deal_replays_from_the_database_even_with_its_logs_gone(
    browser: Any, server: Server, db: Path
) -> None:
    """The logs were read from a folder the database does not need: the hostile session's
    log is deleted, and each of its audited deals still replays."""
    (db.parent / "hostile.json").unlink(missing_ok=True)
    visit = Visit(browser)
    for deal in (1, 2, 3, 4):
        url = server.url + "replay?" + urlencode({"session": HOSTILE, "deal": deal})
        assert visit.go(url) == 200
        visit.page.wait_for_selector("#counter")
        assert HOSTILE in visit.page.text_content("header h1")
    assert visit.errors == [] and visit.dialogs == []
    rejected = server.url + "replay?" + urlencode({"session": HOSTILE, "deal": 5})
    assert visit.go(rejected) == 404  # a log error: said, not replayed
    assert "was rejected (a log error)" in visit.page.text_content("main")


def test_a_damaged_stored_document_is_a_page_that_says_so(tmp_path: Path, db: Path) -> None:
    """A stored document that no longer matches its digest is never replayed, nor a server
    error: the replay's page says which session's copy is damaged."""
    import duckdb

    copy = tmp_path / "damaged.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute("UPDATE documents SET body = 'not lz4'::BLOB WHERE session_id = ?", [HOSTILE])
    with serving(copy) as s:
        s.wait_for_url()
        url = s.url + "replay?" + urlencode({"session": HOSTILE, "deal": 1})
        with pytest.raises(urllib.error.HTTPError) as answered:
            urllib.request.urlopen(url, timeout=30)
    assert answered.value.code == 404
    assert "is damaged" in answered.value.read().decode()


def test_bad_urls_get_a_404_page(browser: Any, server: Server) -> None:
    visit = Visit(browser)
    for path in (
        "nope",
        "session?id=no-such-session",
        "replay?session=no-such-session&deal=1",
        "replay?" + urlencode({"session": HOSTILE, "deal": 99}),
        "replay?session=x&deal=one",
        "?page=0",
        "?sort=sideways",
        "players?page=-1",
        "findings?page=999",
    ):
        assert visit.go(server.url + path) == 404, path
        assert visit.page.text_content("h1") == "Not found", path
        assert visit.page.locator("a[href='/']").count() >= 1
    assert len(visit.errors) == 9 and all("status of 404" in e for e in visit.errors)
    request = urllib.request.Request(server.url, method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 405  # nothing is ever written


def test_hostile_ids_venues_and_names_are_shown_as_text_and_never_run(
    browser: Any, server: Server
) -> None:
    visit = Visit(browser)
    pages = [
        "?" + urlencode({"q": "script"}),
        "players?" + urlencode({"q": "<script>"}),
        "findings?" + urlencode({"session": HOSTILE}),
        "session?" + urlencode({"id": HOSTILE}),
        "all-sessions.html",
        "?" + urlencode({"q": HOSTILE, "ruleset": HOSTILE_VENUE, "player": HOSTILE}),
    ]
    for path in pages:
        assert visit.go(server.url + path) == 200, path
        injected = "document.querySelectorAll('main img, main [onerror], main [onload]').length"
        assert visit.page.evaluate(injected) == 0, path
    visit.go(server.url + pages[0])
    assert [HOSTILE in r for r in visit.rows()] == [True]  # found by a player's name, as text
    visit.go(server.url + pages[1])
    assert len(visit.rows()) == 3 and all(HOSTILE in r for r in visit.rows())
    visit.go(server.url + pages[2])
    assert visit.rows() and all(HOSTILE in r for r in visit.rows())
    visit.go(server.url + pages[3])
    assert HOSTILE in visit.page.text_content("header h1")
    assert HOSTILE_VENUE in visit.page.text_content("header .facts")
    visit.go(server.url + pages[5])
    assert visit.page.input_value("input[name=q]") == HOSTILE  # the search, given back as text
    assert visit.dialogs == [] and visit.errors == []


HOLD = """
import sys
from pathlib import Path
from loo_replay.db.opening import open_db
con = open_db(Path(sys.argv[1]))  # a writer, as ingest holds it
con.begin()
con.execute("DELETE FROM rejects WHERE kind = 'none'")
print("holding", flush=True)
sys.stdin.read()
con.rollback()
con.close()
"""


def test_a_page_asked_for_while_another_process_writes_says_busy_and_retries(
    browser: Any, server: Server, db: Path
) -> None:
    visit = Visit(browser)
    assert visit.go(server.url + "players") == 200  # before the writer: no race for the lock
    players = visit.rows()
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    try:
        assert writer.stdout.readline().strip() == "holding"
        assert visit.go(server.url + "players") == 503
        assert visit.page.text_content("h1") == "Busy"
        assert "in use by another process" in visit.page.text_content("main")
        writer.stdin.close()  # the write ends; the page asks again by itself
        assert writer.wait(timeout=30) == 0
        visit.page.wait_for_selector("h1:text-is('Players')", timeout=30_000)
        assert visit.rows() == players and visit.page.url == server.url + "players"
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()


def test_ingest_runs_while_it_serves_and_its_sessions_show(
    browser: Any, db: Path, tmp_path: Path
) -> None:
    """Between requests nothing holds the database: an ingest loads into it meanwhile; on the
    loopback, no warning; Ctrl-C ends it with 130."""
    own = tmp_path / "loo.duckdb"
    shutil.copyfile(db, own)
    with serving(own) as server:
        visit = Visit(browser)
        assert visit.go(server.wait_for_url()) == 200
        assert len(visit.rows()) == 3
        result = run("ingest", SAMPLES / "five-card-pam.json", "--db", own, "--no-analysis")
        assert result.returncode == 0, result.stderr
        assert visit.go(server.url) == 200
        assert len(visit.rows()) == 4
        assert visit.go(server.url + "?" + urlencode({"q": "pam"})) == 200
        visit.page.locator("main table tbody tr a").first.click()
        visit.page.locator("main table a[href^='replay?']").first.click()
        visit.page.wait_for_selector("#counter")
        status, said = server.interrupt()  # Ctrl-C
    assert status == 130 and "warning" not in said and "Traceback" not in said


def test_another_host_is_warned_about_and_ctrl_c_exits_130(db: Path) -> None:
    with serving(db, "--host", "0.0.0.0") as server:
        url = server.wait_for_url()
        assert "warning: listening on 0.0.0.0, not the loopback" in server.said
        assert "there is no login" in server.said
        port = url.rsplit(":", 1)[1].strip("/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200
        status, said = server.interrupt()
    assert status == 130 and "Traceback" not in said


def test_a_missing_database_or_a_port_in_use_is_one_sentence(
    tmp_path: Path, db: Path, server: Server
) -> None:
    missing = run("serve", "--db", tmp_path / "none.duckdb", "--port", "0", timeout=120)
    assert missing.returncode == 2 and "no database at" in missing.stderr
    port = server.url.rsplit(":", 1)[1].strip("/")
    taken = run("serve", "--db", db, "--port", port, timeout=120)
    assert taken.returncode == 2
    assert f"cannot listen on 127.0.0.1 port {port}: Address already in use" in taken.stderr


@pytest.mark.parametrize("width", [390, 800, 1400])
def test_the_lists_fit_the_window_with_no_text_over_text(
    browser: Any, server: Server, width: int
) -> None:
    """The explorer's own pages as the reports' are measured (tests/test_pages_phone.py):
    the filters and tables whole at a phone's width, nothing scrolling sideways."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    for path in (
        "",
        "?" + urlencode({"with": "violations", "sort": "latest"}),
        "players",
        "findings",
        "findings?" + urlencode({"session": HOSTILE}),
        "nope",
    ):
        page.goto(server.url + path)
        page.wait_for_load_state("load")
        assert _measure(page) == CLEAN, (width, path)
    page.close()

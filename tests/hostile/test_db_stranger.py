"""A database received from a stranger is data, never code (docs/database.md, "A database
from someone else"; docs/limits.md, "A database from someone else").  Each attack is made
on a real loo-replay database with DuckDB, then met by the real commands in a subprocess:
the line they say, their exit status, what they wrote and their peak memory."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, run
from explorer_helpers import serving
from test_limits import PEAK_MB, measured

from loo_replay.db import opening

LOG = SAMPLES / "wrong-payouts.json"
SECRET = "the club's secret 7f3a"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database loo-replay made, which each test copies and changes."""
    db = tmp_path_factory.mktemp("stranger") / "loaded.duckdb"
    result = run("ingest", LOG, "--db", db, "--no-analysis")
    assert result.returncode == 0, result.stderr
    return db


def _changed(loaded: Path, tmp: Path, *statements: str) -> Path:
    """A copy of ``loaded`` with ``statements`` run on it, as a stranger would."""
    db = tmp / "received.duckdb"
    shutil.copyfile(loaded, db)
    con = duckdb.connect(str(db))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()
    return db


def _commands(db: Path, tmp: Path) -> dict[str, list[str | Path]]:
    return {
        "report": ["report", "--db", db, "--out", tmp / "report-out"],
        "stats": ["stats", "--db", db],
        "query": ["query", "SELECT * FROM violations_by_rule", "--db", db],
        "export": ["export", "--parquet", tmp / "export-out", "--db", db],
        "ingest": ["ingest", LOG, "--db", db, "--no-analysis"],
        "fairness": ["fairness", "--db", db],
    }


def _said(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal is, exit status 2."""
    said = [line for line in result.stderr.splitlines() if "running as pure Python" not in line]
    assert result.returncode == 2 and len(said) == 1, result.stdout + result.stderr
    assert said[0].startswith("loo-replay: "), said
    return said[0]


def _everything_under(folder: Path) -> str:
    return "".join(
        p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()
    )  # every file any command wrote


READS_A_FILE = (
    "CREATE OR REPLACE VIEW violations_by_rule AS SELECT content AS code, 'revoke' AS family, "
    "NULL AS ruleset, 1 AS violations, 1 AS deals, 0 AS penalized FROM read_text('{secret}')"
)


@pytest.mark.parametrize(
    ("attack", "named"),
    [
        (READS_A_FILE, "its view 'violations_by_rule' is not the one"),
        (  # the same name, 10^12 rows
            "CREATE OR REPLACE VIEW pool_history AS SELECT a.* FROM (SELECT * FROM deals) a, "
            "range(1000000) b, range(1000000) c",
            "its view 'pool_history' is not the one",
        ),
        ("CREATE MACRO coalesce_all(x) AS x", "it defines a macro ('coalesce_all')"),
        (  # SQL of the sender's, run as ingest writes its rows
            "CREATE TRIGGER forget AFTER INSERT ON sessions FOR EACH STATEMENT DELETE FROM findings",
            "it defines a trigger ('forget')",
        ),
        ("CREATE VIEW extra AS SELECT 1 AS one", "its view 'extra' is not one of loo-replay's"),
        ("DROP VIEW pool_history", "its view 'pool_history' is missing"),
        (  # a column that is computed as it is read
            "CREATE OR REPLACE TABLE players (session_id VARCHAR, seat INTEGER, player VARCHAR,"
            " name VARCHAR AS (repeat('x', 100000000)), chips BIGINT)",
            "its table 'players' is not the one",
        ),
    ],
    ids=[
        "reads-a-file",
        "cross-join",
        "macro",
        "trigger",
        "extra-view",
        "missing-view",
        "computed-column",
    ],
)
def test_a_view_macro_or_table_not_loo_replays_is_refused_by_every_command(
    loaded: Path, tmp_path: Path, attack: str, named: str
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    db = _changed(loaded, tmp_path, attack.format(secret=secret))
    before = db.read_bytes()
    for name, args in _commands(db, tmp_path).items():
        started = time.monotonic()
        result, peak = measured(*args)
        said = _said(result)
        assert "is a DuckDB database that loo-replay did not make" in said, (name, said)
        assert named in said, (name, said)
        assert SECRET not in result.stdout + result.stderr
        assert time.monotonic() - started < 60, name  # refused, not run
        assert peak < PEAK_MB, (name, peak)
    assert db.read_bytes() == before
    assert (
        SECRET not in _everything_under(tmp_path / "report-out")
        if (tmp_path / "report-out").exists()
        else True
    )


def test_the_explorer_refuses_the_view_that_reads_a_file(loaded: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    db = _changed(loaded, tmp_path, READS_A_FILE.format(secret=secret))
    result = run("serve", "--db", db, "--port", "0", timeout=120)
    assert "did not make (its view 'violations_by_rule'" in _said(result)


def test_a_view_put_in_while_the_explorer_serves_is_refused_on_the_next_page(
    loaded: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    db = tmp_path / "served.duckdb"
    shutil.copyfile(loaded, db)
    with serving(db) as server:
        url = server.wait_for_url()
        with urllib.request.urlopen(url + "findings") as answer:
            assert answer.status == 200
        con = duckdb.connect(str(db))
        con.execute(READS_A_FILE.format(secret=secret))
        con.close()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url + "findings")
        page = refused.value.read().decode()
        assert "did not make" in page and SECRET not in page
        status, said = server.interrupt()
    assert status == 130 and "Traceback" not in said


def test_no_connection_reaches_another_file(loaded: Path, tmp_path: Path) -> None:
    """Every way loo-replay opens a database: external access is off, no extension loads;
    what a stranger's SQL could call to read a file is refused by DuckDB itself."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    db = tmp_path / "own.duckdb"
    shutil.copyfile(loaded, db)
    ways: list[Callable[[], duckdb.DuckDBPyConnection]] = [
        lambda: opening.connect(db, read_only=True),
        lambda: opening.connect(db),
        lambda: opening.connect(db, read_only=True, writes=tmp_path / "export"),
        lambda: opening.open_db(db),
        lambda: opening.visitor(db),
    ]
    for way in ways:
        con = way()
        try:
            settings = con.execute(
                "SELECT current_setting('enable_external_access'), "
                "current_setting('autoload_known_extensions'), "
                "current_setting('autoinstall_known_extensions')"
            ).fetchall()
            assert settings == [(False, False, False)]
            with pytest.raises(duckdb.PermissionException):
                con.execute(f"SELECT content FROM read_text('{secret}')").fetchall()
            with pytest.raises(duckdb.Error):
                con.execute("SET enable_external_access = true")
        finally:
            con.close()


def _slow(loaded: Path, tmp: Path) -> Path:
    """A database whose rows are made to be slow: a player and his seat in one deal 3,000
    times over, so that the join of the two that a session page's chips read holds 9
    million rows (88 s here)."""
    return _changed(
        loaded,
        tmp,
        "INSERT INTO players SELECT p.* FROM players p, range(3000) WHERE p.seat = 0",
        "INSERT INTO seats SELECT s.* FROM seats s, range(3000) "
        "WHERE s.deal_index = 1 AND s.seat = 0",
    )


def _many_players(loaded: Path, tmp: Path) -> Path:
    """A database of 3,000,000 players of one seat each: ``stats`` groups them for longer
    than the 2 s bound even compiled on a quiet machine (300,000 took under 2 s there)."""
    return _changed(
        loaded,
        tmp,
        "INSERT INTO seats SELECT s.* REPLACE ('p' || range AS player) FROM seats s, "
        "range(3000000) WHERE s.deal_index = 0 AND s.seat = 0",
    )


@pytest.mark.parametrize("command", ["report", "stats"])
def test_a_read_made_slow_is_stopped_at_the_time_bound(
    loaded: Path, tmp_path: Path, command: str
) -> None:
    db = (_slow if command == "report" else _many_players)(loaded, tmp_path)
    args: list[str | Path] = [command, "--db", db]
    if command == "report":
        args += ["--out", tmp_path / "out", "--no-replays"]
    os.environ["LOO_REPLAY_DB_SECONDS"] = "2"
    try:
        started = time.monotonic()
        result, peak = measured(*args)
        took = time.monotonic() - started
    finally:
        del os.environ["LOO_REPLAY_DB_SECONDS"]
    said = _said(result)
    assert "ran longer than 2 s, the bound of LOO_REPLAY_DB_SECONDS" in said, said
    assert took < 40, took  # the statement alone would run for minutes
    assert peak < PEAK_MB, peak


def test_the_collusion_screen_leaves_out_a_deal_seated_over_and_over(
    loaded: Path, tmp_path: Path
) -> None:
    """The deal whose player sits 3,000 times is no deal loo-replay loaded: the screen and
    its pairs leave it out, so that its rows do not multiply (docs/collusion.md, "The
    behaviours"), and the rest is screened as before, within the memory bound."""
    screened = []
    for db in (loaded, _slow(loaded, tmp_path)):
        copy = tmp_path / f"screened-{len(screened)}.duckdb"
        shutil.copyfile(db, copy)
        result, peak = measured("collusion", "--db", copy, "--format", "json")
        assert result.returncode in (0, 1) and peak < PEAK_MB, (result.stderr, peak)
        screened.append(json.loads(result.stdout))
    before, after = screened
    assert after["deals"] == before["deals"] - 1
    assert [p["pair"] for p in after["pairs"]] == [p["pair"] for p in before["pairs"]]
    assert [p["deals"] for p in after["pairs"]] == [p["deals"] - 1 for p in before["pairs"]]


def _tested(db: Path) -> dict[str, Any]:
    """``fairness --format json`` of ``db``, which ran within the memory bound."""
    result, peak = measured("fairness", "--db", db, "--format", "json")
    assert result.returncode in (0, 1) and peak < PEAK_MB, (result.stderr, peak)
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def _dealt(tested: dict[str, Any]) -> int:
    """The deals the cards-to-seats test over all deals counted in ``fairness --format json``."""
    (cards,) = (t for t in tested["tests"] if t["test"] == "cards-to-seats" and t["scope"] == "all")
    return int(cards["deals"])


def test_the_fairness_tests_leave_out_a_deal_of_three_million_seats(
    loaded: Path, tmp_path: Path
) -> None:
    """The deal that seats 3,000,000 players is no deal loo-replay loaded: the fairness tests
    leave it out and say so, within the memory bound (their cards and hands, grouped by
    player, grew past 3.7 GB before), and ``report`` stays within it too."""
    db = _many_players(loaded, tmp_path)
    tested, before = _tested(db), _tested(loaded)
    assert "left_out" not in before and tested["left_out"] == 1
    assert tested["deals"] == before["deals"]
    assert _dealt(tested) == _dealt(before) - 1
    result, peak = measured("fairness", "--db", db)
    assert "1 deal(s) left out: their seats are not as loo-replay loads them" in result.stdout
    result, peak = measured("report", "--db", db, "--out", tmp_path / "out", "--no-replays")
    assert peak < PEAK_MB, (result.stderr, peak)
    assert result.returncode in (0, 1) or _said(result), result.stderr


def test_the_fairness_tests_leave_out_the_deals_whose_keys_are_muddled(
    loaded: Path, tmp_path: Path
) -> None:
    """The fairness counts find a deal's rows by its session's key, not its id: a database
    whose keys do not follow its ids loses the deals they muddle and never multiplies them.
    Here one deal's seats are copied under 3,000 other ids with its key, and another deal's
    seats carry a key that no session has."""
    db = _changed(
        loaded,
        tmp_path,
        "INSERT INTO seats SELECT s.* REPLACE ('x' || range AS session_id) FROM seats s, "
        "range(3000) WHERE s.deal_index = 0",
        "UPDATE seats SET session_key = session_key + 1 WHERE deal_index = 1",
    )
    tested, before = _tested(db), _tested(loaded)
    assert "left_out" not in before and tested["left_out"] == 2
    assert _dealt(tested) == _dealt(before) - 2


def test_a_time_bound_that_is_not_a_number_is_one_line(loaded: Path) -> None:
    os.environ["LOO_REPLAY_DB_SECONDS"] = "soon"
    try:
        result = run("stats", "--db", loaded)
    finally:
        del os.environ["LOO_REPLAY_DB_SECONDS"]
    assert "LOO_REPLAY_DB_SECONDS='soon' is not a number of seconds" in _said(result)


def test_the_explorer_stops_a_slow_read_and_a_ctrl_c_stops_the_explorer(
    loaded: Path, tmp_path: Path
) -> None:
    db = _slow(loaded, tmp_path)
    os.environ["LOO_REPLAY_DB_SECONDS"] = "2"
    try:
        with serving(db) as server:
            url = server.wait_for_url()
            page = f"{url}session?id={urllib.parse.quote(_session(db))}"
            started = time.monotonic()
            with pytest.raises(urllib.error.HTTPError) as stopped:
                urllib.request.urlopen(page, timeout=60)
            assert time.monotonic() - started < 30
            assert "LOO_REPLAY_DB_SECONDS" in stopped.value.read().decode()
            # A page being read when Ctrl-C comes does not hold the server.
            threading.Thread(target=_read_gone, args=(page,), daemon=True).start()
            time.sleep(0.5)
            started = time.monotonic()
            status, said = server.interrupt()
            assert time.monotonic() - started < 1.8  # before the bound would have stopped it
    finally:
        del os.environ["LOO_REPLAY_DB_SECONDS"]
    assert status == 130 and "Traceback" not in said


def _read_gone(url: str) -> None:
    """A request whose answer does not matter: the server goes away under it."""
    with contextlib.suppress(OSError):
        urllib.request.urlopen(url, timeout=60)


def test_ctrl_c_stops_a_slow_read_at_once(loaded: Path, tmp_path: Path) -> None:
    db = _slow(loaded, tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "loo_replay", "report", "--db", str(db), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(8)  # started, and in a read of 88 s
    os.killpg(proc.pid, signal.SIGINT)
    started = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("size = -1", "negative size"),
        ("size = size * 300", "more than LZ4 makes of the bytes"),
        ("size = size + 1", "a size one byte off"),
        ("digest = 'not a digest'", "no digest"),
        ("body = 'not lz4'::BLOB", "bytes that are not LZ4"),
    ],
)
def test_a_stored_document_is_checked_before_use(
    loaded: Path, tmp_path: Path, change: str, why: str
) -> None:
    """A damaged copy is a cache lost: ``report`` reads the log again, as it does for a
    database without documents, and says nothing is wrong with the database."""
    db = _changed(loaded, tmp_path, f"UPDATE documents SET {change}")
    result, peak = measured("report", "--db", db, "--out", tmp_path / "out", cwd=SAMPLES.parent)
    assert result.returncode == 0, (why, result.stderr)
    assert peak < PEAK_MB
    assert list((tmp_path / "out" / "replays").rglob("deal-*.html")), why


def test_the_explorer_says_a_stored_document_is_damaged(loaded: Path, tmp_path: Path) -> None:
    db = _changed(loaded, tmp_path, "UPDATE documents SET size = -1")
    with serving(db) as server:
        url = server.wait_for_url()
        try:
            with urllib.request.urlopen(
                f"{url}replay?session={urllib.parse.quote(_session(db))}&deal=1"
            ) as answer:
                status, page = answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            status, page = exc.code, exc.read().decode()
        assert status != 500 and "damaged" in page, (status, page[:500])


def _session(db: Path) -> str:
    con = duckdb.connect(str(db), read_only=True)
    try:
        ((sid,),) = con.execute("SELECT session_id FROM sessions").fetchall()
    finally:
        con.close()
    return str(sid)


def test_out_of_memory_names_the_variable_that_gives_more(loaded: Path) -> None:
    os.environ["LOO_REPLAY_DB_MEMORY"] = "16MB"
    try:
        result, peak = measured(
            "query", "SELECT len(list(range)) FROM range(50000000)", "--db", loaded
        )
    finally:
        del os.environ["LOO_REPLAY_DB_MEMORY"]
    said = _said(result)
    assert "Out of Memory" in said
    assert (
        "bounds DuckDB's memory, to 128MB unless told otherwise: set LOO_REPLAY_DB_MEMORY" in said
    )
    assert peak < PEAK_MB


def test_the_fairness_tests_take_a_hand_of_no_card_and_a_card_listed_twice(
    loaded: Path, tmp_path: Path
) -> None:
    """A hand emptied and a card listed twice in another (a database changed by hand): the
    tests still run, within the memory bound, over the same deals; the empty hand is no hand
    and the card counts once (docs/limits.md, "A database from someone else")."""
    first = "session_key = (SELECT min(session_key) FROM seats)"
    db = _changed(
        loaded,
        tmp_path,
        f"UPDATE seats SET hand = [] WHERE deal_index = 2 AND seat = 0 AND {first}",
        f"UPDATE seats SET hand = list_concat(hand, [hand[1]]) WHERE deal_index = 3 AND {first}",
    )
    tested, before = _tested(db), _tested(loaded)
    assert "left_out" not in tested
    assert _dealt(tested) == _dealt(before)
    assert len(tested["tests"]) == len(before["tests"])

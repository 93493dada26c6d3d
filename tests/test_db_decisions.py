"""The judged decisions in the database (docs/database.md, "Judged decisions"): the tables of
migration 11, what ``ingest --decisions`` loads into them against ``analyse --decisions``,
and ``player_stats`` recomputed here from the rows."""

from __future__ import annotations

import html
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from db_helpers import SAMPLES as SAMPLE_LOGS
from db_helpers import dump, run, sql
from explorer_helpers import serving

from loo_replay.db import migrations, tables
from loo_replay.html import escape
from loo_replay.reports import decisions_page, queries


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small simulated sessions of three-card Loo, in one JSON Lines file."""
    out = tmp_path_factory.mktemp("decisions") / "games.jsonl"
    done = run(
        "simulate", "--players", "4", "--deals", "6", "--sessions", "2", "--seed", "7",
        "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_a_load_without_decisions_judges_nothing_and_player_stats_say_null(
    simulated: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", simulated, "--db", db, "--no-analysis").returncode == 0
    assert sql(db, "SELECT max(version) FROM schema_version") == [(migrations.VERSION,)]
    for table in tables.DECISION_TABLES:
        assert sql(db, f"SELECT count(*) FROM {table}") == [(0,)]
    stats = sql(
        db,
        "SELECT decisions, deals_judged, decision_loss, loss_per_deal, accuracy, inaccuracies, "
        "mistakes, blunders FROM player_stats",
    )
    assert len(stats) == 4 and all(v is None for row in stats for v in row)  # never 0


SAMPLES, SEED = "8", "3"


@pytest.fixture(scope="module")
def logs(simulated: Path) -> list[Path]:
    """Two files, so that ``--jobs 2`` audits them in two worker processes."""
    other = simulated.with_name("five.json")
    done = run(
        "simulate", "--players", "5", "--deals", "5", "--seed", "8", "--out", other
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [simulated, other]


@pytest.fixture(scope="module")
def judged(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The logs ingested with ``--decisions`` in one process and in two."""
    out = {}
    for jobs in (1, 2):
        db = tmp_path_factory.mktemp(f"jobs{jobs}") / "loo.duckdb"
        done = run(
            "ingest", *logs, "--db", db, "--decisions", "--samples", SAMPLES, "--seed", SEED,
            "--jobs", str(jobs), "--no-analysis",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"deal(s) judged now on {SAMPLES} world(s) each (seed {SEED})" in done.stdout
        out[jobs] = db
    return out


def _num(x: float) -> float:
    return round(x, 2) + 0.0  # as the JSON rounds: output/decisions.py


def _from_rows(db: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each deal's ``decisions`` member of the JSON, rebuilt from the database's rows."""
    deals: dict[tuple[str, int], dict[str, Any]] = {}
    for sid, index, status, reason, samples, unit, declarations in sql(
        db,
        "SELECT session_id, deal_index, status, reason, samples, unit, declarations "
        "FROM decision_deals",
    ):
        if status == "skipped":
            deals[sid, index] = {"status": status, "reason": reason}
            continue
        deal: dict[str, Any] = {"status": status, "samples": samples, "unit": unit}
        if declarations is not None:
            deal["declarations"] = declarations
        deal["items"] = []
        deals[sid, index] = deal
    rows = sql(
        db,
        "SELECT session_id, deal_index, event, player, kind, trick, option, value, se, chosen, "
        "best, loss, loss_se, severity, message, reason FROM decisions "
        "ORDER BY session_id, deal_index, event, position",
    )
    for sid, index, event, player, kind, trick, option, value, se, chosen, best, loss, \
            loss_se, severity, message, reason in rows:  # fmt: skip
        deal = deals[sid, index]
        if option is None:
            deal.setdefault("unjudged", []).append(
                {"player": player, "index": event, "reason": reason}
            )
            continue
        items = deal["items"]
        if not items or items[-1]["index"] != event:
            items.append(
                {"player": player, "kind": kind, "trick": trick, "index": event, "options": {},
                 "loss": _num(loss), "loss_se": _num(loss_se), "class": severity,
                 "message": message}
            )  # fmt: skip
        item = items[-1]
        item["options"][option] = {"value": _num(value), "se": _num(se)}
        if chosen:
            item["chosen"] = option
        if best:
            item["best"] = option
    return deals


def test_the_rows_are_what_analyse_decisions_prints_with_any_jobs(
    logs: list[Path], judged: dict[int, Path]
) -> None:
    done = run(
        "analyse", *logs, "--decisions", "--samples", SAMPLES, "--seed", SEED, "--format", "json"
    )
    assert done.returncode in (0, 1), done.stderr
    printed = {
        (s["id"], i): {k: v for k, v in d["decisions"].items() if k != "players"}
        for s in json.loads(done.stdout)["sessions"]
        for i, d in enumerate(s["deals"])
    }
    one, two = (_from_rows(judged[jobs]) for jobs in (1, 2))
    assert one == two == printed
    assert sum(len(d.get("items", ())) for d in printed.values()) > 40
    assert dump(judged[1])["decisions"] == dump(judged[2])["decisions"]


def test_player_stats_are_the_rows_summed_here(judged: dict[int, Path]) -> None:
    """Accuracy, loss per deal and the classes per player, worked out from the option rows
    and the seats, against the view."""
    db = judged[1]
    values: dict[tuple[str, int, int], dict[str, float]] = {}
    chosen: dict[tuple[str, int, int], tuple[str, str, float, str | None]] = {}
    for sid, index, event, player, option, value, is_chosen, loss, severity in sql(
        db,
        "SELECT session_id, deal_index, event, player, option, value, chosen, loss, "
        "severity FROM decisions WHERE option IS NOT NULL",
    ):
        values.setdefault((sid, index, event), {})[option] = value
        if is_chosen:
            chosen[sid, index, event] = (player, option, loss, severity)
    seats = sql(
        db,
        "SELECT t.player, t.session_id, t.deal_index FROM seats t JOIN decision_deals d "
        "USING (session_id, deal_index) WHERE d.status = 'judged'",
    )
    expected: dict[str, dict[str, Any]] = {}
    for key, (player, option, loss, severity) in chosen.items():
        e = expected.setdefault(player, {"n": 0, "loss": 0.0, "acc": [], "classes": []})
        worth = values[key]
        best, worst = max(worth.values()), min(worth.values())
        assert abs(loss - (best - worth[option])) < 1e-9
        e["n"] += 1
        e["loss"] += loss
        if best > worst:
            e["acc"].append(100 * (worth[option] - worst) / (best - worst))
        e["classes"].append(severity)
    stats = {
        r[0]: r[1:]
        for r in sql(
            db,
            "SELECT player, decisions, deals_judged, decision_loss, loss_per_deal, accuracy, "
            "inaccuracies, mistakes, blunders FROM player_stats",
        )
    }
    assert set(stats) == {p for p, *_ in seats}
    for player, row in stats.items():
        found = expected.get(player)
        if found is None:
            assert all(v is None for v in row), player
            continue
        e = found
        deals = sum(p == player for p, *_ in seats)
        n, sat, loss, per_deal, accuracy, *classes = row
        assert (n, sat) == (e["n"], deals)
        assert loss == pytest.approx(e["loss"]) and per_deal == pytest.approx(e["loss"] / deals)
        assert accuracy == pytest.approx(sum(e["acc"]) / len(e["acc"]))
        assert classes == [e["classes"].count(c) for c in ("inaccuracy", "mistake", "blunder")]


def test_stats_prints_each_players_judged_figures_as_the_view_has_them(
    judged: dict[int, Path], tmp_path: Path
) -> None:
    """``stats`` ends with the decisions, the judged deals sat in, accuracy, tricks lost a
    deal and the three classes; the counts and classes as ``player_stats`` has them, the
    accuracy and the loss "too few to judge" under 30 decisions (their values with their
    standard errors: tests/test_numbers.py); "-" for a player with no judged decision;
    without any judged decision in the file, the columns are left out."""
    db = judged[1]
    shown = run("stats", "--db", db)
    assert shown.returncode == 0, shown.stderr
    head, _rule, *lines, _count = shown.stdout.splitlines()
    names = [
        "decisions", "deals_judged", "accuracy", "tricks_lost_a_deal", "inaccuracies",
        "mistakes", "blunders",
    ]  # fmt: skip
    assert head.split()[-7:] == names
    view = {
        r[0]: r[1:]
        for r in sql(
            db,
            "SELECT player, decisions, deals_judged, inaccuracies, mistakes, blunders "
            "FROM player_stats",
        )
    }
    printed = {cells[0]: cells[-7:] for cells in (re.split(r"\s{2,}", line) for line in lines)}
    assert set(printed) == set(view)
    for player, (n, deals, *classes) in view.items():
        if n is None:
            assert printed[player] == ["-"] * 7
            continue
        assert n < 30  # a few simulated deals: every player too few to judge
        want = [str(n), str(deals), "too few to judge", "-", *(str(c) for c in classes)]
        assert printed[player] == want

    plain = tmp_path / "plain.duckdb"
    assert run("ingest", SAMPLE_LOGS, "--db", plain, "--no-analysis").returncode == 0
    bare = run("stats", "--db", plain)
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout.splitlines()[0].split()[-1] == "avoidable_loos"


def test_other_worlds_are_kept_replace_judges_them_again_and_a_plain_load_keeps_them(
    logs: list[Path], judged: dict[int, Path], tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    db.write_bytes(judged[1].read_bytes())
    samples = (
        "SELECT DISTINCT file, d.samples FROM decision_deals d JOIN sessions USING (session_id) "
        "ORDER BY file"
    )
    deals = sql(db, "SELECT count(*) FROM deals")[0][0]
    again = run("ingest", logs[0], "--db", db, "--decisions", "--samples", "3")
    assert again.returncode == 0, again.stderr
    assert (  # skipped: loaded, and judged before on other worlds
        f"decisions: kept {deals} deal(s) judged before on {SAMPLES} world(s) each (seed "
        f"{SEED}), not 3 (seed 0): --replace judges them again"
    ) in again.stdout
    assert sorted(r[1] for r in sql(db, samples)) == [8, 8]

    # Every deal of the database judged again, the other log's too: judging is of what is
    # loaded, not of the logs named (docs/database.md, "Judged decisions").
    replaced = run("ingest", logs[0], "--db", db, "--decisions", "--samples", "3", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert f"({deals} judged before with other settings, judged again)" in replaced.stdout
    assert sql(db, samples) == sorted([(str(logs[0]), 3), (str(logs[1]), 3)])
    assert sql(db, "SELECT DISTINCT samples FROM decisions") == [(3,)]

    before = dump(db)["decisions"]
    new = tmp_path / "new.json"
    assert (
        run("simulate", "--players", "3", "--deals", "4", "--seed", "9", "--out", new).returncode
        == 0
    )
    plain = run("ingest", new, "--db", db, "--no-analysis")
    assert plain.returncode == 0, plain.stderr
    assert "the 3 session(s) judged before keep their rows" in plain.stdout
    assert dump(db)["decisions"] == before
    assert sql(db, samples) == sorted([(str(logs[0]), 3), (str(logs[1]), 3)])


def test_the_reports_leak_table_and_costliest_decisions_are_the_rows_counted_here(
    judged: dict[int, Path],
) -> None:
    """docs/reports.md, "The judged decisions page": the leak table's counts per player add
    up to the declarations with passing among their options, counted from the rows; each
    session's costliest decisions are its ten largest losses."""
    db = judged[1]
    rows = sql(
        db,
        "SELECT session_id, deal_index, event, player, kind, option, chosen, best, loss "
        "FROM decisions WHERE option IS NOT NULL",
    )
    declared: dict[tuple[str, int, int], dict[str, Any]] = {}
    for sid, index, event, player, kind, option, chosen, best, _loss in rows:
        if kind == "declare":
            d = declared.setdefault((sid, index, event), {"player": player, "options": set()})
            d["options"].add(option)
            d["chosen" if chosen else "other"] = option
            if best:
                d["best"] = option
    expected: dict[str, list[int]] = {}
    for d in declared.values():
        if "pass" in d["options"]:
            e = expected.setdefault(d["player"], [0, 0, 0])
            e[0] += 1
            e[1] += d["chosen"] != "pass"
            e[2] += d["best"] != "pass"
    con = duckdb.connect(str(db), read_only=True)
    try:
        leaks = queries.leaks(con)
        costly = queries.costliest_decisions(con, decisions_page.COSTLIEST)
        page = decisions_page.decisions_page(con, {}, {}, {}, "test.duckdb", "")
    finally:
        con.close()
    summed = leaks.group_by("player").agg(
        pl.col("declarations").sum(), pl.col("stood").sum(), pl.col("right").sum()
    )
    assert {r[0]: list(r[1:]) for r in summed.rows()} == expected
    assert sum(expected[p][0] for p in expected) > 5
    for sid in {r[0] for r in rows}:
        losses = sorted((r[8] for r in rows if r[0] == sid and r[6] and r[8] > 0), reverse=True)[
            : decisions_page.COSTLIEST
        ]
        assert costly.filter(pl.col("session_id") == sid)["loss"].to_list() == losses
    for message in costly["message"]:
        assert str(escape(message)) in page


def test_the_explorer_serves_the_decisions_page_with_its_deals_linked_to_replays(
    judged: dict[int, Path],
) -> None:
    """docs/explorer.md: ``/decisions.html`` from the database, each costly decision's deal
    a ``/replay`` link that answers."""
    with serving(judged[1]) as server:
        base = server.wait_for_url().rstrip("/") + "/"
        with urllib.request.urlopen(base + "decisions.html", timeout=60) as response:
            page = response.read().decode()
        words = re.sub(r"<[^>]+>", "", page)
        assert "The costliest decisions of sim-three-card-7-1" in words
        links = re.findall(r'href="(replay\?[^"]+)"', page)
        assert links
        with urllib.request.urlopen(base + html.unescape(links[0]), timeout=60) as response:
            assert response.status == 200
            assert 'id="replay-data"' in response.read().decode()


def test_a_page_with_no_decision_valued_says_why(tmp_path: Path) -> None:
    """docs/reports.md, "The judged decisions page": a game recorded at a table with hands
    left out is loaded with --decisions, but no deal can be judged: the page counts them."""
    out = tmp_path / "reports"
    log = SAMPLE_LOGS / "three-card-table-recorded.json"
    done = run("audit", log, "--db", tmp_path / "loo.duckdb", "--out", out,
               "--decisions", "--samples", "2")  # fmt: skip
    assert done.returncode == 1, done.stderr  # the log holds violations
    deals = sql(tmp_path / "loo.duckdb", "SELECT count(*) FROM deals")[0][0]
    page = re.sub(r"<script.*?</script>", " ", (out / "decisions.html").read_text(), flags=re.S)
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    said = f"No decision valued in 0 deal(s) judged; deals not judged: {deals} (partial {deals})."
    assert deals > 10 and said in words

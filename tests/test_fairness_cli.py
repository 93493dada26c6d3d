"""``loo-replay fairness`` as a user meets it: real subprocesses, real logs and DuckDB files
(docs/fairness.md, "The JSON": the JSON contract and the exit status)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from db_helpers import ROOT, run

from loo_replay.fairness.stats import TESTS


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("fairness-cli")
    made = {}
    for name, extra in (("fair", ()), ("crooked", ("--crooked-dealer", "eve:0.4"))):
        out = tmp / f"{name}.jsonl"
        result = run("simulate", "--players", "6", "--deals", "300", "--seed", "5",
                     *extra, "--out", out)  # fmt: skip
        assert result.returncode == 0, result.stderr
        made[name] = out
    return made


def test_fairness_json_follows_the_contract_and_exit_1_names_the_dealer_fairness_3(
    logs: dict[str, Path],
) -> None:
    result = run("fairness", logs["crooked"], "--format", "json")
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["alpha"] == 0.01 and doc["deals"] == 300
    keys = {"test", "subject", "scope", "deals", "statistic", "p_value", "p_adjusted",
            "flagged", "observed", "expected", "message"}  # fmt: skip
    assert all(keys <= set(t) for t in doc["tests"])
    # docs/fairness.md, "The six tests": all six
    assert {t["test"] for t in doc["tests"]} == set(TESTS)
    assert {t["scope"] for t in doc["tests"]} == {"session", "all"}  # the default --by
    flagged = [t for t in doc["tests"] if t["flagged"]]
    assert {t["subject"].get("player") for t in flagged} == {"eve"}
    for t in flagged:
        assert t["p_adjusted"] < 0.01 <= 1.0 and t["p_value"] <= t["p_adjusted"]
        assert "unlikely under fair dealing" in t["message"]
    top = next(
        t for t in flagged
        if t["scope"] == "all" and t["subject"].get("measure") == "top trump"
    )  # fmt: skip
    assert top["expected"] == pytest.approx(3 / 51)
    assert top["observed"] > top["band"][1]
    assert top["message"].startswith("when eve deals they hold the top trump in ")


def test_fairness_text_on_fair_logs_flags_nothing_and_exits_0(logs: dict[str, Path]) -> None:
    result = run("fairness", logs["fair"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FLAGGED" not in result.stdout
    assert "0 flagged as unlikely under fair dealing" in result.stdout


def test_fairness_unreadable_input_exits_2_and_the_rest_is_tested(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """docs/log-format.md, exit status: a document that cannot be parsed is 2, said on stderr;
    the readable logs beside it are tested all the same."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "fair.jsonl").write_bytes(logs["fair"].read_bytes())
    (folder / "torn.json").write_bytes(b'{"format": "loo-hand-log", "version": 1, ')
    result = run("fairness", folder)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "could not be read or parsed" in result.stderr
    assert "fairness of 300 deal(s)" in result.stdout


def test_fairness_on_a_folder_without_logs_exits_2(tmp_path: Path) -> None:
    result = run("fairness", tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no hand logs" in result.stderr


def test_fairness_reads_a_database_as_it_reads_the_logs(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", logs["crooked"], "--db", db).returncode == 0
    from_db = run("fairness", "--db", db, "--by", "all", "--format", "json")
    from_logs = run("fairness", logs["crooked"], "--by", "all", "--format", "json")
    assert from_db.returncode == from_logs.returncode == 1
    assert json.loads(from_db.stdout) == json.loads(from_logs.stdout)


def test_fairness_runs_its_tests_again_whatever_the_stored_table_says(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """``fairness --db`` is how a database is checked: it runs the tests on the deals every
    time, and never shows the stored ``fairness`` table, which a database from someone else
    may carry made up (docs/fairness.md, "In the database and the reports")."""
    db = tmp_path / "loo.duckdb"
    assert run("ingest", logs["crooked"], "--db", db).returncode == 0
    first = run("fairness", "--db", db)  # runs the tests and keeps them in the table
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE fairness SET flagged = false, message = 'fair' WHERE flagged")
        ((made_up,),) = con.execute(
            "SELECT count(*) FROM fairness WHERE message = 'fair'"
        ).fetchall()
    again = run("fairness", "--db", db)
    assert made_up > 0 and first.returncode == again.returncode == 1
    assert again.stdout == first.stdout and "FLAGGED" in again.stdout


def test_fairness_by_player_keeps_only_tests_about_one_player(logs: dict[str, Path]) -> None:
    result = run("fairness", logs["crooked"], "--by", "player", "--format", "json")
    tests = json.loads(result.stdout)["tests"]
    assert tests and all("player" in t["subject"] and t["scope"] == "all" for t in tests)


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("sample_logs", "--db", "loo.duckdb"),
        ("sample_logs", "--alpha", "1.5"),
        ("sample_logs", "--by", "table"),
        ("--db", "loo.duckdb", "--ruleset", "hoyle"),  # reading logs' options, with --db
        ("--db", "loo.duckdb", "--set", "deal.pam=true"),
        ("--db", "loo.duckdb", "--jobs", "2"),
        ("--db", "loo.duckdb", "--scheduler", "tcp://127.0.0.1:9"),
    ],
)
def test_fairness_bad_usage_exits_2(args: tuple[str, ...]) -> None:
    result = run("fairness", *args)
    assert result.returncode == 2
    if args[:1] == ("--db",):  # refused, not ignored: nothing is read with --db
        assert f"{args[2]} applies to reading log PATHs" in result.stderr


def test_fairness_on_a_missing_database_says_so_in_one_sentence(tmp_path: Path) -> None:
    result = run("fairness", "--db", tmp_path / "none.duckdb")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"loo-replay: no database at {tmp_path / 'none.duckdb'}; "
        f"load one with `loo-replay ingest --db {tmp_path / 'none.duckdb'}`"
    )


def test_the_tests_and_bands_load_no_scipy() -> None:
    """docs/fairness.md, "The distributions": SciPy's import cost every command that
    computes a test or a band about a second; the laws are summed without it."""
    probe = (
        "import sys, runpy; sys.argv = ['loo-replay', 'fairness', 'sample_logs'];\n"
        "try: runpy.run_module('loo_replay', run_name='__main__')\n"
        "except SystemExit as e: assert e.code == 1, e.code\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'scipy'], 'scipy imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "unlikely under fair dealing" in result.stdout

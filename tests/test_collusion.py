"""``loo-replay collusion`` as a user meets it: real subprocesses, simulated logs whose
colluders are known, real DuckDB files (docs/collusion.md, "The JSON": the contract and
the exit status); and the exact test against SciPy's Fisher test on one table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from db_helpers import run

from loo_replay.collusion.opportunities import TESTS
from loo_replay.collusion.stats import Stratum, hypergeometric, stratified_test


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("collusion-cli")
    made = {}
    for name, extra in (("fair", ()), ("colluding", ("--colluders", "cat,dan:1"))):
        out = tmp / f"{name}.jsonl"
        result = run("simulate", "--players", "6", "--deals", "600", "--seed", "4",
                     *extra, "--out", out)  # fmt: skip
        assert result.returncode == 0, result.stderr
        made[name] = out
    db = tmp / "colluding.duckdb"
    assert run("ingest", made["colluding"], "--db", db).returncode == 0
    made["db"] = db
    return made


def test_collusion_json_follows_the_contract_and_names_the_colluders(
    logs: dict[str, Path],
) -> None:
    result = run("collusion", logs["colluding"], "--format", "json")
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["alpha"] == 0.01 and doc["deals"] == 600
    assert len(doc["pairs"]) == 15  # every pair of six players sat together
    for pair in doc["pairs"]:
        assert pair["pair"] == sorted(pair["pair"]) and pair["deals"] == 600
        assert [t["test"] for t in pair["tests"]] == list(TESTS)
        for t in pair["tests"]:
            assert {"status", "opportunities", "needed", "flagged", "message"} <= set(t)
            judged = {"statistic", "p_value", "p_adjusted"} <= set(t)
            assert judged == (t["status"] == "tested")
            if t["status"] == "too_few":
                assert t["opportunities"] < t["needed"]
        assert pair["flagged"] == any(t["flagged"] for t in pair["tests"])
    flagged = [p for p in doc["pairs"] if p["flagged"]]
    assert [p["pair"] for p in flagged] == [["cat", "dan"]]
    for t in flagged[0]["tests"]:
        if t["flagged"]:
            assert t["p_value"] <= t["p_adjusted"] < 0.01
            assert t["observed"] > t["expected"]
            assert "a pattern unlikely among independent players" in t["message"]
            assert "cheat" not in t["message"]
    # the default rules make a player who can beat the trick do so: never a choice
    (beat,) = [t for t in flagged[0]["tests"] if t["test"] == "not-beating"]
    assert beat["status"] == "no_opportunities"


def test_collusion_text_on_fair_logs_flags_nothing_and_counts_the_rest(
    logs: dict[str, Path],
) -> None:
    result = run("collusion", logs["fair"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FLAGGED" not in result.stdout
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith("60 test(s): 0 flagged as a pattern unlikely among independent")
    assert "with too few opportunities to judge" in summary


def test_collusion_reads_a_database_as_it_reads_the_logs(logs: dict[str, Path]) -> None:
    from_logs = run("collusion", logs["colluding"], "--format", "json")
    from_db = run("collusion", "--db", logs["db"], "--format", "json")
    assert from_db.returncode == 1
    assert json.loads(from_db.stdout) == json.loads(from_logs.stdout)
    text = run("collusion", "--db", logs["db"])
    assert text.stdout.count("FLAGGED cat and dan") >= 1
    assert "FLAGGED" not in text.stdout.replace("FLAGGED cat and dan", "")


def test_deals_loaded_without_the_analysis_are_analysed_for_the_screen(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """Never "too few opportunities" for what the database merely lacks: the thrown tricks
    come from the stored documents, and the screen is the one of the analysed database."""
    bare = tmp_path / "bare.duckdb"
    assert run("ingest", logs["colluding"], "--db", bare, "--no-analysis").returncode == 0
    from_bare = json.loads(run("collusion", "--db", bare, "--format", "json").stdout)
    analysed = json.loads(run("collusion", "--db", logs["db"], "--format", "json").stdout)
    assert from_bare["analysed_here"] == 600 and analysed["analysed_here"] == 0
    assert from_bare["not_analysed"] == analysed["not_analysed"] == 0
    assert from_bare["pairs"] == analysed["pairs"]
    text = run("collusion", "--db", bare).stdout
    assert "600 deal(s) loaded without the analysis were analysed for this screen" in text


def test_declarations_counted_in_shares_give_the_screen_of_one_statement(
    logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over more deals than a share holds (``CHUNK_DEALS``), the declarations are counted a
    share at a time: the cells of the shares add up to the same tests, to the last bit, and
    the same deals behind the flags."""
    from loo_replay.collusion import opportunities, table
    from loo_replay.db.opening import opened

    with opened(logs["db"]) as con:
        whole = table.computed(con)
        monkeypatch.setattr(opportunities, "CHUNK_DEALS", 70)
        with opportunities.prepared(con):
            assert opportunities._chunks(con) == 9  # 600 deals, 70 a share
        shared = table.computed(con)
    assert whole[1], "the colluders' flag has deals behind it"
    assert shared == whole


def test_rules_that_leave_the_choice_open_make_not_beating_too_few_not_closed(
    logs: dict[str, Path],
) -> None:
    """Under ``follow.void=trump`` a void player may under-trump: letting a card hold is a
    legal choice, which the fair bots never took, so there is nothing comparable yet."""
    result = run(
        "collusion", logs["fair"], "--set", "follow.void=trump", "--format", "json", "-j", "2"
    )
    assert result.returncode == 0, result.stderr
    statuses = {
        t["status"] for p in json.loads(result.stdout)["pairs"] for t in p["tests"]
        if t["test"] == "not-beating"
    }  # fmt: skip
    assert statuses == {"too_few"}


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("x.json", "--db", "y.duckdb"),
        ("--db", "y.duckdb", "--alpha", "0"),
        ("--db", "y.duckdb", "--alpha", "1.5"),
    ],
)
def test_collusion_bad_usage_exits_2(args: tuple[str, ...]) -> None:
    assert run("collusion", *args).returncode == 2


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--jobs", "2"), "--jobs"),
        (("--scheduler", "tcp://127.0.0.1:1"), "--scheduler"),
        (("--ruleset", "hoyle"), "--ruleset"),
        (("--set", "deal.pam=true"), "--set"),
    ],
)
def test_collusion_refuses_a_log_option_with_db_rather_than_ignore_it(
    args: tuple[str, ...], option: str, tmp_path: Path
) -> None:
    """With --db nothing is read, so an option for reading logs is a mistake said, not
    dropped in silence."""
    result = run("collusion", "--db", tmp_path / "loo.duckdb", *args)
    assert result.returncode == 2
    assert f"{option} applies to reading log PATHs" in result.stderr


def test_collusion_on_a_missing_database_says_so_in_one_sentence(tmp_path: Path) -> None:
    result = run("collusion", "--db", tmp_path / "none.duckdb")
    assert result.returncode == 2
    # the last line: a build running as pure Python says so on the line before
    assert result.stderr.strip().splitlines()[-1] == (
        f"loo-replay: no database at {tmp_path / 'none.duckdb'}; "
        f"load one with `loo-replay ingest --db {tmp_path / 'none.duckdb'}`"
    )


def test_simulate_writes_every_act_for_the_partner_beside_the_log(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = run("simulate", "--players", "5", "--deals", "80", "--seed", "2",
                 "--colluders", "ann,cat:0.7", "--colluders", "bob,eve", "--out", out)  # fmt: skip
    assert result.returncode == 0, result.stderr
    truth = json.loads((tmp_path / "games.truth.json").read_text())["collusion"]
    assert truth["pairs"] == [
        {"a": "ann", "b": "cat", "rate": 0.7},
        {"a": "bob", "b": "eve", "rate": 0.5},
    ]
    pairs = {frozenset(("ann", "cat")), frozenset(("bob", "eve"))}
    assert truth["acts"]
    for act in truth["acts"]:
        assert frozenset((act["player"], act["partner"])) in pairs
        assert act["behaviour"] in TESTS
        assert (act["trick"] is None) == (act["behaviour"] == "stepping-aside")
    # the log itself is a clean one: colluders play legal cards
    assert run("validate", out).returncode == 0


@pytest.mark.parametrize("bad", ["ann", "ann,ann", "ann,bob:0", "ann,bob:x", "ann,zed"])
def test_simulate_refuses_a_bad_colluders_option(bad: str) -> None:
    result = run("simulate", "--players", "4", "--colluders", bad)
    assert result.returncode == 2
    assert "A,B" in result.stderr or "to collude" in result.stderr


@pytest.mark.parametrize("table", [(12, 5, 4, 4), (30, 10, 6, 2), (9, 3, 5, 0), (40, 20, 10, 9)])
def test_one_stratum_is_fishers_exact_test(table: tuple[int, int, int, int], stats: Any) -> None:
    total, acts, mine, my_acts = table
    others = [acts - my_acts, total - mine - (acts - my_acts)]
    _, p = stats.fisher_exact([[my_acts, mine - my_acts], others], alternative="greater")
    r = stratified_test([Stratum(total, acts, mine, my_acts), Stratum(5, 0, 2, 0)])
    assert r.p_value == pytest.approx(p)
    assert r.opportunities == mine  # the stratum without an act says nothing


@pytest.mark.parametrize(
    "law", [(12, 5, 4), (1000, 400, 300), (50, 49, 10), (7, 0, 3), (20000, 5000, 5000)]
)
def test_the_strata_laws_are_scipys_hypergeometric(law: tuple[int, int, int], stats: Any) -> None:
    total, acts, drawn = law
    lo, hi = max(0, drawn + acts - total), min(drawn, acts)
    mine = hypergeometric(total, acts, drawn, lo, hi)
    assert mine == pytest.approx(
        stats.hypergeom.pmf(range(lo, hi + 1), total, acts, drawn), abs=1e-12
    )


@pytest.mark.parametrize("excess", [-1200, -1000, 0, 20, 100, 500, 1100])
def test_strata_of_many_deals_give_the_whole_convolutions_p_value(excess: int, stats: Any) -> None:
    """The laws' underflowed ends are dropped as they are convolved (a million deals' strata
    judged in seconds, docs/performance.md): the p-value is still the one of the whole
    convolution of SciPy's laws, from a certain act to one beyond every held value."""
    sizes = [(12_000, 5_000, 3_000), (6_000, 600, 2_000), (2_000, 1_000, 150), (900, 300, 90)]
    strata = [Stratum(t, a, n, round(n * a / t)) for t, a, n in sizes]
    strata[0] = Stratum(12_000, 5_000, 3_000, 1_250 + excess)
    whole, low = np.ones(1), 0
    for s in strata:
        lo, hi = max(0, s.mine + s.acts - s.total), min(s.mine, s.acts)
        whole = np.convolve(whole, stats.hypergeom.pmf(range(lo, hi + 1), s.total, s.acts, s.mine))
        low += lo
    r = stratified_test(strata)
    assert r.acts == sum(s.my_acts for s in strata)
    expected = min(1.0, max(float(whole[r.acts - low :].sum()), 1e-300))
    assert r.p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)

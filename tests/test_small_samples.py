"""Honest small samples (docs/fairness.md and docs/collusion.md, "Small samples"): on a
first evening's log the screens say "nothing could be judged" rather than "0 flagged", with
what each test needs, still exit 0; the JSON counts the tests judged; a FLAGGED line is
followed by the command to run next.  Real subprocesses of the CLI on simulated logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_helpers import ROOT, run

from loo_replay.collusion.opportunities import TESTS as PAIR_TESTS
from loo_replay.fairness.stats import TESTS


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("small-samples")
    made = {}
    for name, deals in (("one", "1"), ("three", "3")):
        out = tmp / f"{name}.jsonl"
        result = run("simulate", "--players", "4", "--deals", deals, "--seed", "3", "--out", out)
        assert result.returncode == 0, result.stderr
        made[name] = out
    return made


def test_fairness_of_one_deal_says_nothing_could_be_judged_and_what_each_test_needs(
    evening: dict[str, Path],
) -> None:
    result = run("fairness", evening["one"])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "0 flagged" not in out
    assert out.splitlines()[-1].startswith("nothing could be judged: each of the ")
    assert (
        "too few deals for cards-to-seats: it needs 100; the most any of its tests had was 1" in out
    )
    doc = json.loads(run("fairness", evening["one"], "--format", "json").stdout)
    assert doc["judged"] == 0 == sum(t["p_value"] is not None for t in doc["tests"])
    for test in {t["test"] for t in doc["tests"]}:
        assert test in TESTS and f"too few deals for {test}: it needs " in out, test


def test_fairness_of_three_deals_counts_the_judged_and_lists_the_rest(
    evening: dict[str, Path],
) -> None:
    doc = json.loads(run("fairness", evening["three"], "--format", "json").stdout)
    judged = sum(t["p_value"] is not None for t in doc["tests"])
    assert doc["judged"] == judged > 0
    out = run("fairness", evening["three"]).stdout
    assert f"{len(doc['tests'])} test(s): 0 flagged" in out
    assert f"{len(doc['tests']) - judged} with too few deals" in out
    assert "too few deals for shuffle: it needs 30; the most any of its tests had was " in out


def test_collusion_of_three_deals_says_nothing_could_be_judged(
    evening: dict[str, Path],
) -> None:
    result = run("collusion", evening["three"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("nothing could be judged: of the ")
    assert "0 flagged" not in result.stdout
    assert any(
        f"too few opportunities for {t}: it needs 20 comparable" in result.stdout
        for t in PAIR_TESTS
    )
    doc = json.loads(run("collusion", evening["three"], "--format", "json").stdout)
    assert doc["judged"] == 0


def test_a_flagged_line_is_followed_by_the_command_to_run_next() -> None:
    log = ROOT / "sample_logs" / "three-card-crooked-dealer.jsonl"
    result = run("fairness", log, cwd=ROOT)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    last_flag = max(i for i, line in enumerate(lines) if line.startswith("FLAGGED "))
    assert lines[last_flag + 1] == (
        f"next: loo-replay audit {log}, then open reports/fairness.html"
    )

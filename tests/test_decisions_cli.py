"""``loo-replay analyse --decisions`` as a user runs it: docs/judging-decisions.md, "Output".

Real subprocesses of the command line on the sample logs; the JSON contract, the
same figures with any ``--jobs`` and a different draw with another ``--seed``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
CLUB = SAMPLES / "three-card-club-night.json"
ITEM_KEYS = {
    "player", "kind", "trick", "index", "chosen", "best", "options", "loss", "loss_se",
    "class", "message",
}  # fmt: skip


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "loo_replay", "analyse", *args],
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=600,
    )


def audit(*args: str) -> dict[str, Any]:
    done = run(*args, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_every_deal_gains_its_decisions_as_the_contract_says() -> None:
    doc = audit(str(CLUB), "--decisions", "--samples", "8")
    logged = {d["deal"]: d["events"] for d in json.loads(CLUB.read_text())["deals"]}
    (session,) = doc["sessions"]
    items = []
    for deal in session["deals"]:
        decisions = deal["decisions"]
        assert decisions["status"] == "judged"
        assert decisions["samples"] == 8 and decisions["unit"] >= 1
        for d in decisions["items"]:
            assert set(d) == ITEM_KEYS
            event = logged[deal["deal"]][d["index"]]
            assert event["player"] == d["player"]
            assert event["type"] == ("declare" if d["kind"] == "declare" else "play")
            chosen = event["action"] if d["kind"] == "declare" else event["card"]
            assert d["chosen"] == chosen
            assert len(d["options"]) >= 2 and d["best"] in d["options"]
            best = d["options"][d["best"]]["value"]
            assert all(o["value"] <= best for o in d["options"].values())
            assert abs(d["loss"] - (best - d["options"][d["chosen"]]["value"])) <= 0.011
            items.append(d)
        for reason in decisions.get("unjudged", []):
            assert reason["reason"] in ("later_declarations", "worlds")
    summary = doc["summary"]
    assert summary["decisions"] == len(items) > 50
    classes = {"inaccuracies": "inaccuracy", "mistakes": "mistake", "blunders": "blunder"}
    for name, klass in classes.items():
        assert summary[name] == sum(d["class"] == klass for d in items)
    assert set(summary["accuracy"]) == {d["player"] for d in items}


def test_the_same_figures_with_any_jobs_and_another_draw_with_another_seed() -> None:
    logs = [str(CLUB), str(SAMPLES / "hoyle-evening.jsonl")]  # sessions for two workers
    args = [*logs, "--decisions", "--samples", "3", "--format", "json"]
    one = run(*args, "--jobs", "1")
    two = run(*args, "--jobs", "2")
    assert one.returncode in (0, 1) and one.stdout == two.stdout
    other = run(*args, "--jobs", "1", "--seed", "5")
    assert other.stdout != one.stdout
    assert (
        json.loads(other.stdout)["summary"]["decisions"]
        == json.loads(one.stdout)["summary"]["decisions"]
    )


def test_deals_not_judged_say_why() -> None:
    doc = audit(str(SAMPLES), "--decisions", "--samples", "1")
    reasons = {
        deal["decisions"].get("reason")
        for session in doc["sessions"]
        for deal in session["deals"]
        if deal["decisions"]["status"] == "skipped"
    }
    assert {"partial", "not_audited", "flush"} <= reasons
    exchange = [
        deal["decisions"]
        for session in doc["sessions"]
        for deal in session["deals"]
        if deal["decisions"].get("declarations") == "exchange"
    ]
    assert exchange and all(d["kind"] == "card" for x in exchange for d in x["items"])


def test_text_has_the_classed_decisions_and_the_players_table() -> None:
    done = run(str(CLUB), "--decisions", "--samples", "8")
    text = done.stdout.decode()
    assert "decisions judged on 8 worlds:" in text
    assert any(line.startswith("    blunder: ") for line in text.splitlines())
    tail = text.split("decisions: ", 1)[-1]
    assert "player" in tail and "accuracy" in tail and "ann" in tail

"""``loo-replay analyse`` as a user meets it: real subprocesses on real files.

docs/analysis.md, "JSON": the audit document of docs/log-format.md with each deal's
``analysis`` member and the summary's five counts; exit status as
``validate`` (the notes never change it); the same output with any --jobs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.db_helpers import SAMPLES, run


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("analyse") / "five.jsonl"
    result = run(
        "simulate", "--ruleset", "five-card", "--players", "5", "--deals", "25",
        "--sessions", "4", "--seed", "14", "--out", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def _json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run("analyse", *args, "--format", "json")
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


def _deals(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for s in doc["sessions"] for d in s["deals"]]


def test_analyse_json_is_the_audit_document_with_analysis_members_analysis_5() -> None:
    """docs/analysis.md, "JSON": each deal one more member, the summary five more counts, and the
    audit itself exactly as validate writes it."""
    code, doc = _json(SAMPLES)
    validate = run("validate", SAMPLES, "--format", "json")
    assert code == validate.returncode == 1
    audit = json.loads(validate.stdout)
    s = doc["summary"]
    assert {k: v for k, v in s.items() if k in audit["summary"]} == audit["summary"]
    deals = _deals(doc)
    for ours, theirs in zip(deals, _deals(audit), strict=True):
        assert {k: v for k, v in ours.items() if k != "analysis"} == theirs
    status = [d["analysis"]["status"] for d in deals]
    assert s["analysed"] == status.count("solved") > 0
    assert s["skipped"] == status.count("skipped") > 0
    assert s["unsolved"] == status.count("unsolved") == 0
    assert s["analysed"] + s["skipped"] + s["unsolved"] == s["deals"]
    solved = [d for d in deals if d["analysis"]["status"] == "solved"]
    lost = sum(p["lost"] for d in solved for p in d["analysis"]["players"].values())
    assert s["lost_tricks"] == lost > 0
    notes = [n for d in solved for n in d["analysis"]["notes"]]
    assert s["avoidable_loos"] == sum(n["code"] == "avoidable-loo" for n in notes) > 0
    for d in deals:
        a = d["analysis"]
        if a["status"] == "skipped":
            assert a["reason"] and "players" not in a
            assert (
                d["status"] != "audited"
                or d["outcome"] not in ("played", "revoke")
                or a["reason"] == "on_void"
                or (a["reason"] == "partial" and d["knowledge"] == "partial")
            )
        else:
            assert set(a["players"]) == {p for p in d["tricks"]}
            for player, p in a["players"].items():
                assert p["tricks"] == d["tricks"][player]


def test_lost_trick_notes_carry_before_after_and_better_cards_analysis_3() -> None:
    """docs/analysis.md, "The notes": a lost trick says before > after and lists the better cards; an
    avoidable loo is a loo; a no-safe-trick player had a guarantee of 0."""
    _, doc = _json(SAMPLES)
    seen = set()
    for d in _deals(doc):
        a = d["analysis"]
        for n in a.get("notes", []):
            seen.add(n["code"])
            if n["code"] == "lost-trick":
                assert n["before"] > n["after"] >= 0
                assert n["better"]
                assert n["player"] in n["message"] and " they " in n["message"]
            elif n["code"] == "avoidable-loo":
                assert d["looed"] and n["player"] in d["looed"]
                assert n["before"] >= 1 and n["after"] == 0
            else:
                assert a["players"][n["player"]]["guarantee"] == 0
            assert not re.search(r"\b(he|his|him)\b", n["message"])
    assert seen == {"lost-trick", "avoidable-loo", "no-safe-trick"}


def test_analyse_text_marks_each_lost_trick_in_words_with_better_cards() -> None:
    result = run("analyse", SAMPLES)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lost = [line for line in result.stdout.splitlines() if "? lost trick" in line]
    assert lost and all(" at trick " in line and " with " in line for line in lost)
    assert "analysis: skipped (all passed, no play)" in result.stdout
    assert "analysis stops: " in result.stdout  # a revoke ends the analysed stretch
    last = result.stdout.rstrip().splitlines()[-1]
    assert re.search(r"analysis: \d+ deal\(s\) analysed, \d+ skipped, 0 unsolved", last)


def test_analyse_output_is_the_same_with_any_jobs(simulated: Path) -> None:
    """docs/analysis.md, "Budget and honesty": the same input gives the same output, with any --jobs."""
    for fmt in ("json", "text"):
        one = run("analyse", simulated, "--format", fmt, "--jobs", "1")
        two = run("analyse", simulated, "--format", fmt, "--jobs", "2")
        assert one.returncode == two.returncode == 0
        assert one.stdout == two.stdout and one.stdout


def test_over_the_node_budget_a_deal_is_unsolved_never_half_reported(simulated: Path) -> None:
    """docs/analysis.md, "Budget and honesty": past --max-nodes a deal is unsolved, with how far it got."""
    code, doc = _json(simulated, "--max-nodes", "5")
    assert code == 0
    unsolved = [d["analysis"] for d in _deals(doc) if d["analysis"]["status"] == "unsolved"]
    assert unsolved and doc["summary"]["unsolved"] == len(unsolved)
    for a in unsolved:
        assert "players" not in a and "notes" not in a
        assert "budget of 5 nodes" in a["reason"] and a["nodes"] > 5


def test_analyse_takes_validate_rules_and_exit_status(tmp_path: Path, simulated: Path) -> None:
    """The same --ruleset/--set as validate; notes never change the exit status; an
    unreadable file is status 2."""
    code, doc = _json(simulated, "--set", "penalties.revoke_amount=7")
    assert code == 0 and doc["summary"]["lost_tricks"] > 0
    assert all(s["rules"]["penalties.revoke_amount"] == 7 for s in doc["sessions"])
    bad = run("analyse", simulated, "--set", "follow.void=sometimes")
    assert bad.returncode == 2 and "follow.void" in bad.stderr
    missing = run("analyse", tmp_path / "none.json")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    validate = run("validate", SAMPLES / "three-card-revokes.json")
    assert run("analyse", SAMPLES / "three-card-revokes.json").returncode == validate.returncode


REVOKES = SAMPLES / "three-card-revokes.json"
# Its deals with a finding: a violation (4, 5, 11, 12, 14, 15, 16, 20, the misdeal 22), a
# trick thrown away and an avoidable loo (4, 7, 8, 9, 12).
REVOKES_FOUND = [4, 5, 7, 8, 9, 11, 12, 14, 15, 16, 20, 22]


def test_analyse_findings_only_keeps_the_deals_with_a_finding_and_only_their_findings() -> None:
    """docs/analysis.md, "Only the findings": the lost tricks and avoidable loos are no longer
    buried under the "no safe trick" lines; the last line and the exit status are the same."""
    whole = run("analyse", REVOKES)
    found = run("analyse", REVOKES, "--findings-only")
    assert found.returncode == whole.returncode == 1
    lines, every = found.stdout.splitlines(), whole.stdout.splitlines()
    assert lines[-1] == every[-1]
    assert [int(m) for m in re.findall(r"^  Deal (\d+) ", found.stdout, re.M)] == REVOKES_FOUND
    assert not [x for x in lines if "no safe trick" in x or x.startswith("    analysis: ")]
    marks = ("    ? lost trick: ", "    avoidable loo: ", "    VIOLATION ")
    for mark in marks:
        assert [x for x in lines if x.startswith(mark)] == [x for x in every if x.startswith(mark)]
    assert sum(x.startswith("    ? lost trick: ") for x in lines) == 5
    assert len(lines) < len(every) / 2


def test_analyse_findings_only_json_lists_the_deals_with_a_finding_each_whole() -> None:
    code, whole = _json(REVOKES)
    found_code, found = _json(REVOKES, "--findings-only")
    assert code == found_code == 1 and found["summary"] == whole["summary"]
    by_number = {d["deal"]: d for d in _deals(whole)}
    deals = _deals(found)
    assert [d["deal"] for d in deals] == REVOKES_FOUND
    assert all(d == by_number[d["deal"]] for d in deals)  # each deal whole, every note kept


def test_analyse_findings_only_leaves_out_a_session_without_any(simulated: Path) -> None:
    """A simulated night played by the rules, thrown tricks aside: a session none of whose
    deals has a finding has no block, in text as in JSON."""
    _, whole = _json(simulated)
    _, found = _json(simulated, "--findings-only")
    kept = [s["id"] for s in found["sessions"]]
    for session in whole["sessions"]:
        flagged = [
            d
            for d in session["deals"]
            if d["violations"]
            or d["discrepancies"]
            or d["status"] == "rejected"
            or any(n["code"] != "no-safe-trick" for n in d["analysis"].get("notes", []))
        ]
        assert (session["id"] in kept) == bool(flagged), session["id"]
    text = run("analyse", simulated, "--findings-only").stdout
    assert [m for m in re.findall(r"^Session (\S+) ", text, re.M)] == kept


def test_analyse_findings_only_with_decisions_keeps_the_classed_decisions() -> None:
    """With --decisions an inaccuracy, a mistake or a blunder is a finding too; the players'
    line under each deal is left out, the players' table under the last line is not."""
    args = (SAMPLES / "three-card-club-night.json", "--decisions", "--samples", "8")
    whole = run("analyse", *args).stdout
    found = run("analyse", *args, "--findings-only").stdout
    classed = re.compile(r"^    (inaccuracy|mistake|blunder|\? lost trick|avoidable loo): ", re.M)
    assert [m[0] for m in classed.finditer(found)] == [m[0] for m in classed.finditer(whole)]
    assert "decisions judged on" in whole and "decisions judged on" not in found
    blocks = re.split(r"^  Deal ", found, flags=re.M)[1:]
    assert blocks and all(classed.search(b) for b in blocks)
    assert found[found.index("\n\n") :] == whole[whole.index("\n\n") :]  # the summary and table

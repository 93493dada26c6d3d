"""The command line as a user meets it: real subprocesses, real files, real gzip.

Exit status and messages follow docs/log-format.md ("Exit status"): 0 nothing
found, 1 findings, 2 bad usage or unreadable input; never a traceback.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loo_replay.engine.options import OPTION_SPECS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"


def run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "loo_replay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout


def test_validate_text_report_of_the_samples_explains_each_finding() -> None:
    result = run("validate", SAMPLES)
    no_traceback(result)
    assert result.returncode == 1
    assert "REJECTED" in result.stdout and "VIOLATION" in result.stdout
    assert "DISCREPANCY" in result.stdout and "legal " in result.stdout
    assert "but does not hold it" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("14 session(s), 320 deal(s)")


def test_validate_json_is_the_audit_document_of_log_format() -> None:
    result = run("validate", SAMPLES, "--format", "json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert list(doc)[:3] == ["loo_replay", "summary", "sessions"]
    s = doc["summary"]
    assert s["deals"] == s["audited"] + s["misdeals"] + s["rejected"]
    deals = [d for session in doc["sessions"] for d in session["deals"]]
    assert len(deals) == s["deals"]
    assert sum(len(d["violations"]) for d in deals) == s["violations"]
    assert sum(len(d["discrepancies"]) for d in deals) == s["discrepancies"]
    for deal in deals:
        assert {
            "deal",
            "status",
            "dealer",
            "pool",
            "pool_start",
            "trump",
            "outcome",
            "tricks",
        } <= set(deal)
        if deal["status"] == "rejected":
            assert deal["errors"] and all(e["path"].startswith("/deals/") for e in deal["errors"])
        for v in deal["violations"]:
            assert {"code", "player", "trick", "card", "legal", "penalized", "message"} <= set(v)


def test_validate_clean_simulated_log_exits_zero(tmp_path: Path) -> None:
    out = tmp_path / "clean.jsonl.gz"
    made = run(
        "simulate", "--ruleset", "hoyle-pam", "--deals", "15", "--sessions", "2", "--out", out
    )
    assert made.returncode == 0, made.stderr
    result = run("validate", out)
    assert result.returncode == 0, result.stdout
    assert "0 violation(s), 0 discrepancy(ies)" in result.stdout


def test_simulate_same_seed_same_bytes_with_truth_beside(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        made = run(
            "simulate", "--seed", "9", "--violations", "0.5", "--corrupt", "0.3", "--out", out
        )
        assert made.returncode == 0, made.stderr
    assert a.read_bytes() == b.read_bytes()
    truth = json.loads((tmp_path / "a.truth.json").read_text())
    assert truth["findings"] or truth["discrepancies"]


def test_missing_path_is_exit_2_with_a_clear_message(tmp_path: Path) -> None:
    result = run("validate", tmp_path / "nope.json")
    no_traceback(result)
    assert result.returncode == 2
    assert "no such file or directory" in result.stdout + result.stderr


def test_truncated_gzip_keeps_what_was_read_and_exits_2(tmp_path: Path) -> None:
    data = gzip.decompress((SAMPLES / "modern-online.jsonl.gz").read_bytes())
    first_line = data.split(b"\n")[0] + b"\n"
    packed = gzip.compress(data)
    bad = tmp_path / "cut.jsonl.gz"
    bad.write_bytes(packed[: len(packed) // 2])
    result = run("validate", bad)
    no_traceback(result)
    assert result.returncode == 2
    assert "cannot read" in result.stdout
    assert json.loads(first_line)["session"]["id"] in result.stdout


def test_bad_json_line_is_kept_and_the_other_sessions_audited(tmp_path: Path) -> None:
    lines = (SAMPLES / "hoyle-evening.jsonl").read_bytes().splitlines()
    log = tmp_path / "mixed.jsonl"
    log.write_bytes(lines[0] + b"\n{not json\n" + lines[1] + b"\n")
    result = run("validate", log, "--format", "json")
    no_traceback(result)
    assert result.returncode == 2  # docs/log-format.md: a document that cannot be parsed
    assert "1 document(s) could not be read or parsed" in result.stderr
    doc = json.loads(result.stdout)
    assert doc["summary"]["sessions"] == 2 and doc["summary"]["unreadable"] == 1
    (error,) = doc["errors"]
    assert error["line"] == 2 and "not valid JSON" in error["message"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", "follow.voids=any"], "unknown option 'follow.voids'"),
        (["--set", "follow.void=sometimes"], "it takes trump | overtrump | any"),
        (["--set", "follow.void"], "is not OPTION=VALUE"),
        (["--ruleset", "whist"], "built-in rulesets: five-card"),
    ],
)
def test_bad_rule_options_are_usage_errors_naming_the_valid_ones(
    args: list[str], words: str
) -> None:
    result = run("validate", SAMPLES / "wrong-payouts.json", *args)
    no_traceback(result)
    assert result.returncode == 2
    assert words in " ".join(result.stderr.replace("│", " ").split())


def test_command_line_set_wins_over_the_log(tmp_path: Path) -> None:
    base = run("validate", SAMPLES / "wrong-payouts.json", "--format", "json")
    changed = run(
        "validate",
        SAMPLES / "wrong-payouts.json",
        "--format",
        "json",
        "--set",
        "stakes.loo=unlimited",
    )
    rules = json.loads(changed.stdout)["sessions"][0]["rules"]
    assert rules["stakes.loo"] == "unlimited"
    assert json.loads(base.stdout)["sessions"][0]["rules"]["stakes.loo"] == "limited"


def test_rulesets_lists_all_eleven_and_shows_one_with_sources() -> None:
    listing = run("rulesets")
    assert listing.returncode == 0
    assert len(listing.stdout.strip().splitlines()) == 11
    shown = run("rulesets", "hoyle-pam")
    assert shown.returncode == 0
    assert "follow.pam_civil" in shown.stdout and "always" in shown.stdout
    assert "source: 001" in shown.stdout


def _option_lines(text: str) -> dict[str, list[str]]:
    """Each option line of ``rulesets NAME`` with the ``↳`` lines under it."""
    shown: dict[str, list[str]] = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in OPTION_SPECS:
            current = shown.setdefault(words[0], [line])
        elif words and words[0] == "↳":
            current.append(line)
    return shown


def test_rulesets_prints_every_option_and_the_silent_ones_as_defaults(tmp_path: Path) -> None:
    """hoyle's source is silent on the flush options (it has no flushes): the file leaves them
    out, and the listing still prints each, with its default, as "default (source silent)"."""
    shown = _option_lines(run("rulesets", "hoyle").stdout)
    assert list(shown) == list(OPTION_SPECS)
    assert shown["flush.rank"][0].split()[1] == OPTION_SPECS["flush.rank"].default
    assert "default (source silent)" in shown["flush.rank"][1]
    assert "default (source silent)" not in "".join(shown["penalties.revoke"])
    mine = tmp_path / "mine.toml"
    mine.write_text('name = "mine"\n[penalties]\nrevoke_amount = 9\n', "utf-8")
    own = _option_lines(run("rulesets", str(mine)).stdout)
    assert own["penalties.revoke_amount"] == [own["penalties.revoke_amount"][0]]
    assert own["penalties.revoke_amount"][0].split()[1] == "9"
    assert all(
        "default (source silent)" in own[o][1]
        for o in OPTION_SPECS
        if o != "penalties.revoke_amount"
    )


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_one_openblas_thread_unless_the_user_chose(given: str | None, expected: str) -> None:
    """docs/performance.md: NumPy's OpenBLAS would start a spinning thread per core beside
    the audit's own processes; the command sets one thread for itself and the workers it
    starts, and leaves a value the user set alone."""
    script = (
        "import os, sys\n"
        "from loo_replay.cli import main\n"
        "sys.argv = ['loo-replay', '--version']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    no_traceback(result)
    assert result.stdout.splitlines()[-1] == expected


def test_a_finished_command_leaves_its_objects_to_their_counts_not_the_last_collection(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The collector's pass at the interpreter's exit would look at every object left;
    ``main`` freezes them once its command is done (their finalizers still run)."""
    import gc

    from loo_replay import cli

    monkeypatch.setattr(sys, "argv", ["loo-replay", "--version"])
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit) as done:
            cli.main()
        assert done.value.code == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert "loo-replay" in capsys.readouterr().out

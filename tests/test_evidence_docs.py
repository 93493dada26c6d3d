"""docs/evidence.md against the package: its test vectors are what the RFC 8785 library
and loo-replay compute, and its worked examples (the seals', the bundle's) run, command by
command, with the output the page shows."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import rfc8785
from db_helpers import ROOT, SAMPLES, run
from evidence_helpers import reference_seals
from md_helpers import fenced, section, tables

from loo_replay.evidence.codes import code
from loo_replay.evidence.seals import check

PAGE = (ROOT / "docs" / "evidence.md").read_text("utf-8")


def test_the_test_vectors_are_what_the_library_and_loo_replay_compute() -> None:
    vectors = section(PAGE, "Test vectors")
    (block,) = fenced(vectors, "json")
    doc = json.loads(block)
    (table,) = tables(vectors)
    rows = [[cell.strip("`") for cell in row[1:]] for row in table[1:]]
    expected = reference_seals(doc)
    header = {k: v for k, v in doc.items() if k != "deals"}
    assert rows == [[s.hex(), code(s)] for s in expected]
    assert list(check(doc).seals) == expected
    start = vectors.split("begins\n`", 1)[1].split("…", 1)[0]
    assert rfc8785.dumps(header).decode().startswith(start)


def _commands(block: str) -> list[list[str]]:
    return [shlex.split(line)[1:] for line in block.splitlines() if line.startswith("loo-replay ")]


def test_the_worked_example_runs_as_the_page_says(tmp_path: Path) -> None:
    example = section(PAGE, "A worked example")
    commands = fenced(example, "sh")
    outputs = fenced(example, "text")
    assert len(commands) == 4 and len(outputs) == 5

    def each(block: str) -> list[tuple[int, str]]:
        results = [run(*args, cwd=tmp_path) for args in _commands(block)]
        return [(r.returncode, r.stdout) for r in results]

    simulated, sealed = each(commands[0])
    assert simulated[0] == 0 and sealed == (0, outputs[0])
    (tmp_path / "codes.txt").write_text(outputs[1])
    assert each(commands[1]) == [(0, outputs[2])]
    night = tmp_path / "night.json"
    doc = json.loads(night.read_text())
    assert doc["deals"][2]["recorded"]["payouts"] == {"cat": 6}
    doc["deals"][2]["recorded"]["payouts"] = {"cat": 0}  # the edit the page describes
    night.write_text(json.dumps(doc, indent=2))
    (verified, refused) = each(commands[2])
    assert verified == (1, outputs[3]) and refused[0] == 2
    renewed, with_codes = each(commands[3])
    assert renewed[0] == 0 and with_codes == (1, outputs[4])


def test_the_bundle_worked_through_runs_as_the_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key made by ssh-keygen, every ``loo-replay`` line through the real command."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    example = section(PAGE, "A bundle, worked through")
    (commands,) = fenced(example, "sh")
    (shown,) = fenced(example, "text")
    (tmp_path / "sample_logs").mkdir()
    shutil.copy(SAMPLES / "wrong-payouts.json", tmp_path / "sample_logs")
    outputs = []
    for line in commands.splitlines():
        words = shlex.split(line)
        if words[0] == "loo-replay":
            result = run(*words[1:], cwd=tmp_path)
        else:
            result = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 0, (line, result.stdout, result.stderr)
        outputs.append(result.stdout)
    assert outputs[2] == shown
    assert "signature verified: made by the key SHA256:" in outputs[4]
    assert outputs[4].endswith("case.zip: verified\n")

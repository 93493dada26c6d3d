"""The baseline of a refactor (benchmarks/baseline_outputs.py, docs/design.md "Checks"):
two saved folders compared file by file, and what varies between two runs of the same code
normalised before it is saved."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "baseline_outputs.py"


def _compare(old: Path, new: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--compare", str(old), str(new)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _folder(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_the_comparison_names_every_file_that_differs(tmp_path: Path) -> None:
    same = {"a.json/validate.text.stdout": b"1 session(s)\n", "a.json/validate.text.status": b"1\n"}
    old = _folder(tmp_path / "old", {**same, "all/table-deals.json.stdout": b"[1]\n"})
    new = _folder(tmp_path / "new", {**same, "all/table-deals.json.stdout": b"[2]\n"})
    _folder(old, {"_times.json": b"{}", "gone.stdout": b""})
    _folder(new, {"_times.json": b'{"a": 1}', "new.stdout": b""})
    done = _compare(old, new)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"only in {old}: gone.stdout",
        f"only in {new}: new.stdout",
        "differs: all/table-deals.json.stdout",
    ]
    assert "2 of 5 files identical" in done.stderr


def test_identical_folders_compare_equal_whatever_their_times(tmp_path: Path) -> None:
    files = {"a.json/analyse.json.stdout": b'{"deals":8}\n', "_version.txt": b"compiled"}
    old = _folder(tmp_path / "old", files)
    new = _folder(tmp_path / "new", {**files, "_version.txt": b"pure Python"})
    done = _compare(old, new)
    assert (done.returncode, done.stdout) == (0, "")
    assert "1 of 1 files identical" in done.stderr


def test_temporary_paths_the_checkout_and_the_clock_are_normalised(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("baseline_outputs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    checkout, tmp = tmp_path / "clone", tmp_path / "scratch"
    said = (
        f'{{"file":"{checkout}/sample_logs/x.json","place":"{tmp}/all/reports",'
        f'"computed_at":"2026-12-07T03:40:14","deals":6}}'
    ).encode()
    assert module._normalised(said, checkout, tmp) == (
        b'{"file":"<checkout>/sample_logs/x.json","place":"<tmp>/all/reports",'
        b'"computed_at":"<clock>","deals":6}'
    )

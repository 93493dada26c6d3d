"""Running a benchmark script of benchmarks/ at a small scale, as ``make bench`` runs it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_benchmark(
    script: str, out: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``benchmarks/SCRIPT ARGS`` with its results named ``t`` in ``out``: the finished
    process (status 0 asserted) and the JSON it wrote (``out/t.md`` holds its table)."""
    named = ["--results-dir", str(out), "--results", "t"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args, *named],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    written: dict[str, Any] = json.loads((out / "t.json").read_text())
    return result, written


def bench_module(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` imported, as its scripts import one another (by that folder)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module

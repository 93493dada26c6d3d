"""The compiled part and its pure-Python source give the same output, byte for byte.

setup.py compiles its ``COMPILED`` modules (the solver and the legality it calls) with
Cython from their own source; ``LOO_REPLAY_PURE=1`` runs that source instead in the same
checkout (loo_replay/__init__.py).  The corpus: the sample logs and simulated sessions of
every built-in ruleset with injected violations, through the real CLI in subprocesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loo_replay import PURE_ENV
from loo_replay.rulesets import builtin_names
from tests.db_helpers import ROOT, SAMPLES, run


def _cli(*args: str | Path, pure: bool) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    return subprocess.run(
        [sys.executable, "-m", "loo_replay", *map(str, args)],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )


def _version(pure: bool) -> str:
    return _cli("--version", pure=pure).stdout.decode().strip()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    for seed, name in enumerate(builtin_names(), start=1):
        result = run(
            "simulate", "--ruleset", name, "--players", "5", "--deals", "30",
            "--seed", str(seed), "--violations", "0.2", "--out", folder / f"{name}.jsonl",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
    return folder


def test_loo_replay_pure_runs_the_python_source_and_the_version_says_which_build() -> None:
    assert _version(pure=True).endswith(", pure Python")
    default = _version(pure=False)
    if "compiled (" not in default:
        pytest.skip(f"no compiled build here ({default}); `make .venv/.installed-stamp` builds it")
    assert "engine.solver" in default and "engine.legal" in default


def test_analyse_json_is_byte_identical_from_the_compiled_and_the_pure_build(
    corpus: Path,
) -> None:
    """issue 16 point 2: the same corpus through both builds, the same bytes out."""
    if "compiled (" not in _version(pure=False):
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    outputs = []
    for pure in (False, True):
        result = _cli("analyse", SAMPLES, corpus, "--format", "json", pure=pure)
        assert result.returncode == 1, result.stderr  # violations found, as validate says
        outputs.append(result.stdout)
    compiled, pure_output = outputs
    assert b'"status":"solved"' in compiled.replace(b" ", b"")
    assert compiled == pure_output

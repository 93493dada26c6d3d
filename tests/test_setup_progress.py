"""`make`'s setup shows its progress (issue 55): each dependency pip collects, each module
Cython translates and gcc compiles, counted, the rest kept in .venv/setup.log; and `make
audit` echoes no raw recipe.  scripts/setup_step.py and setup.py's build step are run for
real, on stand-in commands and extensions: a whole setup takes minutes."""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from db_helpers import ROOT

STEP = ROOT / "scripts" / "setup_step.py"

# What the tools print during a setup, as they print it (pip's lines, Cython's, setup.py's).
TOOLS_SAY = """\
Looking in indexes: https://pypi.org/simple
Collecting duckdb>=1.5 (from -r .venv/requirements.txt (line 1))
  Downloading duckdb-2.0.1-cp311-cp311-manylinux_2_28_x86_64.whl (24.9 MB)
Processing /opt/pypi/files/numpy-2.4.6-cp311-cp311-manylinux_2_28_x86_64.whl (from -r x (line 7))
Collecting polars>=1.0 (from -r .venv/requirements.txt (line 2))
Installing collected packages: polars, numpy, duckdb
Successfully installed duckdb-2.0.1 numpy-2.4.6 polars-2.1.0
  [ 1/26] Cythonizing loo_replay/engine/options.py
  warning: loo_replay/engine/options.py:10:4: something Cython says
  gcc -pthread -O3 -c build/cython/loo_replay/engine/options.c
  compiled module 1 of 26: loo_replay.engine.options
"""


def _step(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    log = tmp_path / "setup.log"
    return subprocess.run(
        [sys.executable, STEP, log, "--", sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_step_shows_its_progress_counted_and_keeps_every_line_in_the_log(
    tmp_path: Path,
) -> None:
    said = _step(tmp_path, f"import sys; sys.stderr.write({TOOLS_SAY!r})")
    assert said.returncode == 0, said.stderr
    assert said.stdout.splitlines() == [
        "setup: dependency 1: duckdb",
        "setup: dependency 2: numpy",
        "setup: dependency 3: polars",
        "setup: installing 3 package(s)",
        "setup: installed 3 package(s)",
        "setup: Cython, module 1 of 26: loo_replay/engine/options.py",
        "setup: compiled module 1 of 26: loo_replay.engine.options",
    ]
    assert (tmp_path / "setup.log").read_text("utf-8") == TOOLS_SAY  # stderr kept too


def test_a_failing_step_shows_the_end_of_the_log_and_its_status(tmp_path: Path) -> None:
    (tmp_path / "setup.log").write_text("an earlier step\n", "utf-8")
    said = _step(tmp_path, "import sys; print('error: no compiler'); sys.exit(3)")
    assert said.returncode == 3
    assert said.stdout.splitlines() == [
        "an earlier step",
        "error: no compiler",
        f"setup failed: the whole log is {tmp_path / 'setup.log'}",
    ]


def _build_ext_class(monkeypatch: pytest.MonkeyPatch) -> Any:
    """setup.py's build_ext, from setup.py itself, with setuptools' ``setup`` not run."""
    import setuptools

    monkeypatch.setenv("LOO_REPLAY_PURE_BUILD", "1")  # no Cython run to make the list
    monkeypatch.setattr(setuptools, "setup", lambda **_: None)
    monkeypatch.chdir(ROOT)
    return runpy.run_path(str(ROOT / "setup.py"))["OptionalBuildExt"]


def test_setup_py_says_each_module_as_it_is_compiled(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On threads, as setuptools builds them on every core: each done counted once, in
    the order they finish, to standard error (pip -v and `make` show it)."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    built = []
    monkeypatch.setattr(build_ext, "build_extension", lambda _self, ext: built.append(ext.name))
    names = [f"loo_replay.stand_in.m{i}" for i in range(5)]  # no profile: compiled plainly
    command = _build_ext_class(monkeypatch)(
        Distribution({"ext_modules": [Extension(n, [f"{n}.c"]) for n in names]})
    )
    command.initialize_options()
    command.finalize_options()
    command.failed, command.unguided, command.done = [], [], 0
    command.counting = __import__("threading").Lock()
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(command.build_extension, command.extensions))
    said = capsys.readouterr().err.splitlines()
    assert sorted(built) == names
    assert [line.rsplit(": ", 1)[0] for line in said] == [
        f"compiled module {i} of 5" for i in range(1, 6)
    ]
    assert sorted(line.rsplit(": ", 1)[1] for line in said) == names


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
@pytest.mark.parametrize(("status", "ok"), [(0, True), (1, True), (2, False)])
def test_make_audit_says_what_it_runs_not_its_recipe(tmp_path: Path, status: int, ok: bool) -> None:
    """``make audit`` printed its raw recipe (``…; status=$?; [ $status -le 1 ]``).  Now one
    line says what runs; findings (1) are a success, a failure (2) fails make."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "loo-replay").write_text(f'#!/bin/sh\necho "audited $*"\nexit {status}\n')
    (fake / "loo-replay").chmod(0o755)
    done = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "audit", f"BIN={fake}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert (done.returncode == 0) == ok, done.stderr
    assert done.stdout.splitlines() == [
        "audit: loo-replay audit sample_logs --db loo.duckdb --out reports",
        "audited audit sample_logs --db loo.duckdb --out reports",
    ]
    assert "status" not in done.stdout + done.stderr

"""The package as pip installs it (issue 38): every file a command reads at run time is
package data, the sdist builds a complete wheel, and where nothing can be compiled the
installed program runs as pure Python and says so (docs/performance.md, "The compiled
part").  scripts/check-install does the whole, slower round with the compiled build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from loo_replay.logs import log_schema

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "loo_replay"
# Python source, and what a build leaves beside it: never package data of the source tree.
NOT_DATA_SUFFIXES = (".py", ".so", ".pyc")
BUILT_NAMES = ("build-record.json",)
_NOT_SOURCES = shutil.ignore_patterns(
    ".*", "*.so", "__pycache__", "build-record.json", "build", "dist", "*.egg-info", "node_modules",
    "reports", "profiles", "*.duckdb", "*.duckdb.wal",
)  # fmt: skip


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """What a copy of the sources leaves out: the above, and the benchmarks' cached data
    (not the package's own ``loo_replay/data``)."""
    left_out = set(_NOT_SOURCES(folder, names))
    if Path(folder) == ROOT / "benchmarks" and "data" in names:
        left_out.add("data")
    return left_out


def _package_data() -> list[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns: list[str] = pyproject["tool"]["setuptools"]["package-data"]["loo_replay"]
    return patterns


def _data_files() -> set[str]:
    """Every file of the package that is neither Python source nor a build product."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and path.suffix not in NOT_DATA_SUFFIXES
        and path.name not in BUILT_NAMES
        and "__pycache__" not in path.parts
    }


def test_every_file_a_command_reads_is_listed_as_package_data() -> None:
    matched = {
        path.relative_to(PACKAGE).as_posix()
        for pattern in _package_data()
        for path in PACKAGE.glob(pattern)
    }
    files = _data_files()
    assert files, "the package holds rulesets, assets and the schema"
    assert files - matched == set(), "add these to [tool.setuptools.package-data]"
    assert {"schemas/hand-log.schema.json", "rulesets/hoyle.toml", "engine/state.pxd"} <= files


def test_the_top_level_schema_is_the_packaged_one() -> None:
    """schemas/ stays at the top level for readers of the repository; it is a link to the
    one file the package installs, never a second copy."""
    top = ROOT / "schemas" / "hand-log.schema.json"
    assert top.is_symlink() and top.resolve() == PACKAGE / "schemas" / "hand-log.schema.json"
    assert top.read_bytes() == log_schema()


def test_loo_replay_schema_prints_the_json_schema() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "loo_replay", "schema"], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert schema["$schema"].endswith("2020-12/schema") and "session" in schema["properties"]


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=cwd, env={**os.environ, **env}, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def uncompiled_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, built into a wheel as on a machine without a C compiler (``CC=false``)."""
    out = tmp_path_factory.mktemp("dist")
    # From a copy of the sources: a build writes its staging folder and egg-info into the
    # folder it builds, and the other test worker may be building it too.
    source = tmp_path_factory.mktemp("source") / "loo-replay"
    shutil.copytree(ROOT, source, ignore=_not_sources)
    # With the checkout's C from Cython, newer than its sources, setup.py regenerates none
    # of it for the sdist, which carries the sources alone (build/ is not in it): the same
    # sdist, without a minute of one core.  The wheel below is built from the sdist alone.
    cython = ROOT / "build" / "cython"
    if cython.is_dir():
        shutil.copytree(cython, source / "build" / "cython")
    _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)], source)
    (sdist,) = out.glob("loo_replay-*.tar.gz")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(sdist),
        ],
        out,
        CC="false",
        PIP_NO_INPUT="1",
    )
    (wheel,) = out.glob("loo_replay-*.whl")
    return wheel


def test_the_sdist_makes_a_wheel_with_every_data_file_and_a_record_of_why_it_is_pure(
    uncompiled_wheel: Path,
) -> None:
    with zipfile.ZipFile(uncompiled_wheel) as wheel:
        names = set(wheel.namelist())
        record = json.loads(wheel.read("loo_replay/build-record.json"))
    assert {f"loo_replay/{name}" for name in _data_files()} <= names
    assert not [name for name in names if name.endswith(".so")]
    assert record["not_compiled"] and "engine.solver" in record["not_compiled"]
    assert "engine.solver" in record["modules"]


def test_the_uncompiled_install_works_from_anywhere_and_says_once_that_it_is_pure_python(
    uncompiled_wheel: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    _run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
          str(uncompiled_wheel)], tmp_path)  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "LOO_REPLAY_PURE"}
    env["PYTHONPATH"] = str(site)

    def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "loo_replay", *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, cwd=elsewhere, env=env)

    version = cli("--version")
    assert version.stdout.startswith("loo-replay ") and ", pure Python (not compiled at" in (
        version.stdout
    )
    audit = cli("validate", ROOT / "sample_logs" / "wrong-payouts.json", "--format", "json")
    assert audit.returncode == 1 and json.loads(audit.stdout)["summary"]["discrepancies"]
    (note,) = audit.stderr.splitlines()
    assert note.startswith("loo-replay: running as pure Python, several times slower: not compiled")
    assert cli("schema").stdout.encode() == log_schema()
    assert "hoyle" in cli("rulesets", "hoyle").stdout

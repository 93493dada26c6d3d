"""The compiled part and its pure-Python source give the same output, byte for byte.

setup.py compiles its ``COMPILED`` modules (the analysis and the legality it calls, the
validate path from bytes to audit JSON) with Cython from their own source;
``LOO_REPLAY_PURE=1`` runs that source instead in the same checkout
(loo_replay/__init__.py).  The corpus: the sample logs, simulated sessions of every
built-in ruleset with injected violations and corrupted records, and broken documents made
the fuzz tests' way, through the real CLI in subprocesses.
"""

from __future__ import annotations

import copy
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from loo_replay import PURE_ENV
from loo_replay.rulesets import builtin_names
from tests.db_helpers import ROOT, SAMPLES, dump, run
from tests.test_fuzz import BASES, NASTY, paths_of

# Simulated deals of each ruleset for the validate comparison: 2,000, which reach every
# finding code, status, outcome and error kind of the audit JSON that 4,000 reach (1,000 miss
# pam-be-civil; docs/performance.md, "Test time"), at half the minute of one core that 4,000
# cost; LOO_REPLAY_CORPUS_DEALS=20000 for a longer run.
CORPUS_DEALS = int(os.environ.get("LOO_REPLAY_CORPUS_DEALS", "2000"))


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


@functools.cache
def _version(pure: bool) -> str:
    """What ``loo-replay --version`` says with and without ``LOO_REPLAY_PURE``: asked once a
    run (nine tests ask), the checkout's build does not change while the tests run."""
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


@pytest.fixture(scope="module")
def validate_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sessions of 100 deals of every ruleset, 6 players, a fifth of the deals with a
    violation and some with a corrupted record; and broken documents."""
    folder = tmp_path_factory.mktemp("validate-corpus")
    for seed, name in enumerate(builtin_names(), start=1):
        result = run(
            "simulate", "--ruleset", name, "--players", "6", "--deals", "100",
            "--sessions", str(max(1, CORPUS_DEALS // 100)), "--seed", str(seed),
            "--violations", "0.2", "--corrupt", "0.05", "--out", folder / f"{name}.jsonl",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
    (folder / "broken.jsonl").write_bytes(b"\n".join(_broken_documents()) + b"\n")
    return folder


def _broken_documents() -> list[bytes]:
    """The fuzz tests' bases with one value replaced by a hostile one or deleted, at every
    seventh place, and documents that are not JSON or say a key twice."""
    lines = [b'{"session": {"id": "x", "id": "y"}, "deals": []}', b"\xff\xfe", b"[1, 2", b"{}"]
    for base in BASES:
        for n, pointer in enumerate(paths_of(base)[1::7]):
            doc = copy.deepcopy(base)
            *parents, last = pointer.split("/")[1:]
            node = doc
            for token in parents:
                node = node[int(token)] if isinstance(node, list) else node[token]
            key = int(last) if isinstance(node, list) else last
            if n % (len(NASTY) + 1) == len(NASTY):
                del node[key]
            else:
                node[key] = copy.deepcopy(NASTY[n % (len(NASTY) + 1)])
            lines.append(orjson.dumps(doc))
    return lines


def test_loo_replay_pure_runs_the_python_source_and_the_version_says_which_build() -> None:
    assert _version(pure=True).endswith(f", pure Python ({PURE_ENV} is set)")
    default = _version(pure=False)
    if "compiled (" not in default:
        pytest.skip(f"no compiled build here ({default}); `make .venv/.installed-stamp` builds it")
    assert "engine.solver" in default and "engine.legal" in default


def _both_builds(*args: str | Path, status: int) -> tuple[bytes, bytes]:
    """Standard output and error of ``loo-replay ARGS`` from the compiled build, after
    checking that the pure build gives the same bytes and both exit with ``status``."""
    if "compiled (" not in _version(pure=False):
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    compiled, pure = (_cli(*args, pure=p) for p in (False, True))
    assert compiled.returncode == pure.returncode == status, compiled.stderr
    assert (compiled.stdout, compiled.stderr) == (pure.stdout, pure.stderr)
    return compiled.stdout, compiled.stderr


def test_validate_json_is_byte_identical_from_the_compiled_and_the_pure_build(
    validate_corpus: Path,
) -> None:
    """issue 16 point 2: validate's audit JSON of the same corpus, the same bytes out;
    status 2 for the documents that are not sessions."""
    out, _ = _both_builds("validate", SAMPLES, validate_corpus, "--format", "json", status=2)
    summary = orjson.loads(out)["summary"]
    assert summary["violations"] and summary["rejected"] and summary["unreadable"]


def test_analyse_json_is_byte_identical_from_the_compiled_and_the_pure_build(
    corpus: Path,
) -> None:
    """issue 16 point 2: the same corpus through both builds, the same bytes out; status 1
    for the violations found, as validate says."""
    out, _ = _both_builds("analyse", SAMPLES, corpus, "--format", "json", status=1)
    assert b'"status":"solved"' in out.replace(b" ", b"")


def test_ingest_loads_the_same_rows_from_the_compiled_and_the_pure_build(
    corpus: Path, validate_corpus: Path, tmp_path: Path
) -> None:
    """issue 16: the loader's frames are compiled too; the same corpus (with its
    double-dummy analysis, rejected deals and unreadable documents) loads the same rows."""
    if "compiled (" not in _version(pure=False):
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    broken = validate_corpus / "broken.jsonl"
    dumps = []
    for pure in (False, True):
        db = tmp_path / f"{'pure' if pure else 'compiled'}.duckdb"
        done = _cli("ingest", SAMPLES, corpus, broken, "--db", db, pure=pure)
        assert done.returncode == 2, done.stderr  # the unreadable documents
        dumps.append(dump(db))
    compiled, pure = dumps
    assert compiled == pure
    assert compiled["plays"] and compiled["findings"] and compiled["analysis_cards"]
    assert compiled["rejects"]


def _build_of_copy(package: Path) -> str:
    """What ``loo_replay.build()`` says when the package is imported from ``package``'s
    parent folder."""
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    env["PYTHONPATH"] = str(package.parent)
    done = subprocess.run(
        [sys.executable, "-c", "import loo_replay; print(loo_replay.__file__, loo_replay.build())"],
        capture_output=True,
        text=True,
        cwd=package.parent,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    where, _, build = done.stdout.strip().partition(" ")
    assert Path(where).parent == package
    return build


def _compiled_copy(tmp_path: Path) -> Path:
    """A copy of the package with its compiled modules, as an install lays it out."""
    if "compiled (" not in _version(pure=False):
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    package = tmp_path / "loo_replay"
    shutil.copytree(ROOT / "loo_replay", package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def test_an_edit_since_the_build_runs_every_module_as_source(tmp_path: Path) -> None:
    """The compiled modules read each other's C types (the .pxd files), so one source or
    .pxd changed since the build makes the package import all of them as source: never a
    compiled module beside the pure-Python one it was built against.  The version names
    the changed file, and every command says so on standard error."""
    package = _compiled_copy(tmp_path)
    assert _build_of_copy(package).startswith("compiled (")
    pxd = package / "engine" / "state.pxd"
    pxd.write_text(pxd.read_text() + "\n# an edit\n")
    build = _build_of_copy(package)
    assert build.startswith("pure Python (engine.state.pxd changed since it was compiled")
    done = subprocess.run(
        [sys.executable, "-m", "loo_replay", "rulesets"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**{k: v for k, v in os.environ.items() if k != PURE_ENV}, "PYTHONPATH": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0 and "three-card" in done.stdout
    assert done.stderr.splitlines() == [
        "loo-replay: running as pure Python, several times slower: "
        "engine.state.pxd changed since it was compiled (rebuild: make, or pip install)"
    ]


def test_file_times_do_not_matter_only_the_sources_do(tmp_path: Path) -> None:
    """issue 38: an installed wheel's files carry whatever times the installer gave them;
    sources newer, or older, than their compiled modules by days are still the sources the
    modules were built from."""
    package = _compiled_copy(tmp_path)
    for n, path in enumerate(sorted(package.rglob("*"))):
        moment = 1_600_000_000 + (n * 7919 % 1000) * 86_400  # scattered over three years
        os.utime(path, (moment, moment))
    assert _build_of_copy(package).startswith("compiled (")


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (None, "not built: no build record (install with pip or make)"),
        (
            '{"modules": {}, "not_compiled": "gcc: not found"}',
            "not compiled at install (gcc: not found)",
        ),
        ("{not json", "not built: no build record (install with pip or make)"),
    ],
)
def test_a_missing_or_failed_build_runs_as_pure_python_and_says_why(
    tmp_path: Path, record: str | None, reason: str
) -> None:
    package = _compiled_copy(tmp_path)
    if record is None:
        (package / "build-record.json").unlink()
    else:
        (package / "build-record.json").write_text(record)
    assert _build_of_copy(package) == f"pure Python ({reason})"

"""A command imports only what it uses (docs/performance.md, "Start-up"): each command below
runs in a fresh interpreter as a user runs it, on a small log or database, and the large
packages it imported are compared with the list of what it uses.  DuckDB, pyarrow (with
NumPy), Polars and Plotly cost 0.1 to 0.3 s each to import, more than the whole of
``--version`` or of ``validate`` on one evening's log."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from explorer_helpers import Server

from loo_replay.cli import COMMANDS as NAMED

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "sample_logs" / "wrong-payouts.json"

# The packages whose import is worth a test.
HEAVY = frozenset(
    {
        "duckdb",
        "polars",
        "pyarrow",
        "plotly",
        "numpy",
        "scipy",
        "dask",
        "starlette",
        "uvicorn",
        "prompt_toolkit",
        "cryptography",
        "bagit",
    }
)
NONE: frozenset[str] = frozenset()
DATABASE = frozenset({"duckdb"})
ARROW = DATABASE | {"pyarrow", "numpy"}  # pyarrow imports NumPy
PAGES = ARROW | {"polars", "plotly"}
EVIDENCE = ARROW | {"bagit", "cryptography"}  # a bundle's fairness runs on a database

# Each command line (LOG: the sample log; DB: a database it was loaded into; CASE: its
# evidence bundle; OUT: a new folder) and the large packages it imports, as the help lists
# the commands.  The start-up rules (issue 53) are the first rows: --version, --help and
# validate import none of them.
RUNS: list[tuple[tuple[str, ...], frozenset[str]]] = [
    (("--version",), NONE),
    (("--help",), NONE),
    (("validate", "LOG"), NONE),
    (("validate", "LOG", "--format", "json"), NONE),
    (("rulesets", "hoyle"), NONE),
    (("schema",), NONE),
    (("simulate", "--deals", "3", "--out", "OUT/simulated.json"), NONE),
    (("replay", "LOG", "--deal", "4"), NONE),
    (("stats", "--db", "DB"), DATABASE),
    (("query", "--db", "DB", "SELECT count(*) FROM deals"), DATABASE),
    (("export", "--db", "DB", "--parquet", "OUT/parquet"), DATABASE),
    (("report", "--db", "DB", "--out", "OUT/reports"), PAGES),
    (("audit", "LOG", "--db", "OUT/audit.duckdb", "--out", "OUT/reports"), PAGES),
    (("serve", "--help"), NONE),
    (("analyse", "LOG"), NONE),
    (("fairness", "--db", "DB"), ARROW),
    (("fairness", "LOG"), ARROW),
    (("collusion", "--db", "DB"), ARROW),
    # Entries piped in: prompt_toolkit, the keyboard's line editor, is not imported.
    (("record", "OUT/recorded.json", "--players", "ann,bob,cat"), NONE),
    (("seal", "LOG", "--out", "OUT/sealed.json"), NONE),
    (("verify", "LOG"), NONE),
    (("verify", "CASE"), EVIDENCE),
    (("bundle", "LOG", "--out", "OUT/case.zip"), EVIDENCE),
]
# ingest, into a new database and an existing one: below; serve: a real server, below.
# ingest imports pyarrow with NumPy hidden, which it never hands pyarrow (cli/database.py).
INGEST = DATABASE | {"pyarrow"}
SERVE = PAGES | {"starlette", "uvicorn"}  # its pages are the reports'

# Runs the command line as `loo-replay` does, then names every module imported.
PROBE = """
import runpy, sys
sys.argv = ["loo-replay", *sys.argv[1:]]
try:
    runpy.run_module("loo_replay", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write("\\n" + repr(sorted(sys.modules)))
"""


def _modules(stderr: str) -> frozenset[str]:
    """The modules the probe named, from the last line of its stderr."""
    return frozenset(ast.literal_eval(stderr.strip().splitlines()[-1]))


def _said(stderr: str) -> frozenset[str]:
    """The top-level packages the probe saw imported."""
    return frozenset(name.split(".")[0] for name in _modules(stderr))


def _run(*args: str | Path, cwd: Path = ROOT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _imported(*args: str | Path, cwd: Path = ROOT, stdin: str = "") -> frozenset[str]:
    return _said(_run(*args, cwd=cwd, stdin=stdin).stderr)


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sample log loaded into a database, and bundled, by the command line itself."""
    folder = tmp_path_factory.mktemp("loaded")
    db, case = folder / "loo.duckdb", folder / "case.zip"
    for words in (["ingest", LOG, "--db", db], ["bundle", LOG, "--out", case]):
        cli = [sys.executable, "-m", "loo_replay", *map(str, words)]
        subprocess.run(cli, cwd=folder, capture_output=True, timeout=300, check=True)
    return {"LOG": LOG, "DB": db, "CASE": case}


def _words(args: tuple[str, ...], place: dict[str, Path], out: Path) -> list[str]:
    return [str(place.get(w, w)).replace("OUT/", f"{out}/") for w in args]


@pytest.mark.parametrize(("args", "uses"), RUNS, ids=[" ".join(a) for a, _ in RUNS])
def test_each_command_imports_the_large_packages_it_uses_and_no_other(
    args: tuple[str, ...], uses: frozenset[str], place: dict[str, Path], tmp_path: Path
) -> None:
    imported = _imported(*_words(args, place, tmp_path), cwd=tmp_path, stdin="q\n")
    assert "loo_replay" in imported  # the probe saw the command run
    assert imported & HEAVY == uses


def test_every_command_is_in_the_list() -> None:
    assert {args[0] for args, _ in RUNS} | {"ingest", "serve"} >= set(NAMED)


def test_a_bare_version_imports_not_even_the_command_line() -> None:
    """``--version`` alone is answered before Typer and the commands are imported; the build
    it names is checked by loading the compiled modules, not running them."""
    imported = _imported("--version")
    assert {"typer", "click", "orjson"} & imported == set()
    assert imported & HEAVY == frozenset()


def test_the_help_imports_no_command() -> None:
    """The list of commands in ``--help`` is written without importing any of them."""
    done = _run("--help")
    assert "\n  validate " in done.stdout
    imported = _modules(done.stderr)
    assert "loo_replay.cli" in imported
    assert {f"loo_replay.cli.{module}" for module, _ in NAMED.values()} & imported == set()


def test_ingest_imports_the_database_and_arrow_and_nothing_for_pages(tmp_path: Path) -> None:
    """Into a new database and then into the same one again: neither Polars nor Plotly,
    which only the reports and queries use."""
    db = tmp_path / "loo.duckdb"
    for _ in range(2):
        imported = _imported("ingest", LOG, "--db", db)
        assert imported & HEAVY == INGEST
        assert not {"polars", "plotly"} & imported
    assert db.is_file()


def test_ingest_loads_without_arrows_compute_module(tmp_path: Path) -> None:
    """The session keys of the rows loaded (``db/keys.py``) are set by runs of rows, without
    Arrow's kernels: ``pyarrow.compute`` makes a Python function of each as it is imported
    (a tenth of an ingest of 40 deals), and their extension imports NumPy; into a new
    database and an existing one."""
    db = tmp_path / "loo.duckdb"
    for log in (LOG, ROOT / "sample_logs" / "three-card-revokes.json"):
        run = _run("ingest", log, "--db", db)
        assert "0 loaded" not in run.stdout, run.stdout
        assert not {"pyarrow.compute", "pyarrow._compute"} & _modules(run.stderr)
    assert _keys(db) == [1, 2]


def _keys(db: Path) -> list[int]:
    """The session keys given to the sessions of the database at ``db``."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT DISTINCT session_key FROM deals ORDER BY 1").fetchall()
    return [key for (key,) in rows]


# The commands issue 53 times from the start: each class of the modules they import is made
# by ``engine/records.py``, or compiled (``cython.dataclasses``), never by ``dataclasses``,
# which compiles six methods of each as the module is imported; and the judging of decisions,
# which none of them runs without ``--decisions``, is not imported (docs/performance.md,
# "Start-up").
STARTING = [
    ("validate", "LOG"),
    ("replay", "LOG", "--deal", "4"),
    ("ingest", "LOG", "--db", "OUT/new.duckdb"),
    ("ingest", "LOG", "--db", "DB"),
]


def _dataclasses(modules: frozenset[str]) -> list[str]:
    """The classes of loo-replay's ``modules`` decorated by ``dataclasses.dataclass``."""
    found = []
    for name in sorted(m for m in modules if m.split(".")[0] == "loo_replay"):
        path = ROOT.joinpath(*name.split("."))
        source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(d).startswith(("dataclass", "dataclasses."))
                for d in node.decorator_list
            ):
                found.append(f"{name}.{node.name}")
    return found


@pytest.mark.parametrize("args", STARTING, ids=[" ".join(a) for a in STARTING])
def test_the_start_up_commands_import_no_dataclass_of_ours_and_no_judging(
    args: tuple[str, ...], place: dict[str, Path], tmp_path: Path
) -> None:
    shutil.copy(place["DB"], tmp_path / "loo.duckdb")
    run = _run(*_words(args, {**place, "DB": tmp_path / "loo.duckdb"}, tmp_path), cwd=tmp_path)
    modules = _modules(run.stderr)
    assert "loo_replay.run.audit" in modules  # the command ran
    assert _dataclasses(modules) == []
    assert "loo_replay.engine.judging" not in modules


def test_serve_imports_the_web_server_and_the_database(
    place: dict[str, Path], tmp_path: Path
) -> None:
    """A real server, asked for its first page, then stopped by Ctrl-C."""
    shutil.copy(place["DB"], tmp_path / "loo.duckdb")
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, "serve", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    server = Server(proc)
    with urllib.request.urlopen(server.wait_for_url(), timeout=60) as page:
        assert page.status == 200
    _, said = server.interrupt()
    assert _said(said) & HEAVY == SERVE

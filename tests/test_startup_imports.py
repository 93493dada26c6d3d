"""A command imports only what it uses (docs/performance.md, "Start-up"): each command below
runs in a fresh interpreter, and the large packages it imported are checked against the
ones it may use.  DuckDB, pyarrow (with NumPy), Polars and Plotly cost 0.1 to 0.3 s each
to import, more than the whole of ``--version`` or of ``validate`` on one evening's log."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "sample_logs" / "wrong-payouts.json"

# The packages whose import is worth a test: a command not named below imports none.
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
MAY_IMPORT: dict[str, frozenset[str]] = {
    "ingest": frozenset({"duckdb", "pyarrow", "numpy"}),
}

# Runs the command line as `loo-replay` does, then names every top-level package imported.
PROBE = """
import runpy, sys
sys.argv = ["loo-replay", *sys.argv[1:]]
try:
    runpy.run_module("loo_replay", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write(repr(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _imported(*args: str | Path, cwd: Path = ROOT) -> frozenset[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return frozenset(ast.literal_eval(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [
        ("--version",),
        ("--help",),
        ("validate", LOG),
        ("validate", LOG, "--format", "json"),
        ("replay", LOG, "--deal", "4"),
        ("rulesets", "hoyle"),
    ],
    ids=lambda args: " ".join(str(a) for a in args).replace(str(LOG), "LOG"),
)
def test_a_command_that_reads_logs_imports_no_large_package(args: tuple[str | Path, ...]) -> None:
    imported = _imported(*args)
    assert "loo_replay" in imported  # the probe saw the command run
    assert imported & HEAVY == frozenset()


def test_a_bare_version_imports_not_even_the_command_line() -> None:
    """``--version`` alone is answered before Typer and the commands are imported; the build
    it names is checked by loading the compiled modules, not running them."""
    imported = _imported("--version")
    assert {"typer", "click", "orjson"} & imported == set()
    assert imported & HEAVY == frozenset()


def test_ingest_imports_the_database_and_arrow_and_nothing_for_pages(tmp_path: Path) -> None:
    """Into a new database and then into the same one again: neither Polars nor Plotly,
    which only the reports and queries use."""
    db = tmp_path / "loo.duckdb"
    for _ in range(2):
        imported = _imported("ingest", LOG, "--db", db)
        assert {"duckdb", "pyarrow"} <= imported
        assert imported & HEAVY <= MAY_IMPORT["ingest"]
    assert db.is_file()

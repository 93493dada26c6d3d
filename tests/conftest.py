"""The order the test files start in.  ``make test`` runs each file whole on one of two
workers (``--dist loadfile``), handing out files in collection order (``--no-loadscope-reorder``:
pytest-xdist would otherwise order them by their number of tests); a long file handed out
last leaves the other worker idle until it ends.  The longest files start first (the
longest-first rule of scheduling), the rest follow in their usual order; the files that read
a once-a-worker session fixture go to one worker together (``work_unit``)
(docs/performance.md, "Test time")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# The longest files, longest first: seconds of one worker each, measured on two quiet workers
# (docs/performance.md, "Test time").  A file missing from the list only starts later.
LONGEST_FIRST = (
    "test_pages_phone.py",
    "test_explorer.py",
    "test_compiled_build.py",
    "test_reports_browser.py",
    "test_pages_layout.py",
    "test_reports_cli.py",
    "test_cli_input_and_paths.py",
    "test_db_ingest.py",
    "test_db_kill.py",
    "test_docs.py",  # every docs example run (issue 55): placed by its CPU, not yet measured here
    "test_packaging.py",
    "test_limits.py",
    "test_benchmark_analysis.py",
    "test_collusion_reports.py",
    "test_replay_decisions.py",
    "test_replay_html.py",
    "test_db_bad_input.py",
)
_RANK = {name: rank for rank, name in enumerate(LONGEST_FIRST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Sorted by the rank of their file (stable: a file's tests keep their order)."""
    items.sort(key=lambda item: _RANK.get(item.path.name, len(LONGEST_FIRST)))


# Files that read one of the session fixtures below run on one worker, as one unit of
# ``--dist loadfile``: the fixture's command then runs once a suite, not once a worker
# (``sample_audit`` about 5 CPU s, ``samples_ingested`` about 1).  tests/test_scheduling.py
# checks that these are the files that ask for them.
SHARED_SESSION_FIXTURES = {
    "sample_audit": (
        "tests/test_reports_browser.py",
        "tests/test_pages_layout.py",
        "tests/test_reports_cli.py",
    ),
    "samples_ingested": (
        "tests/test_db_ingest.py",
        "tests/test_db_analysis.py",
        "tests/test_db_schema.py",
    ),
}
_UNIT = {
    name: f"[{fixture}]" for fixture, names in SHARED_SESSION_FIXTURES.items() for name in names
}


def work_unit(nodeid: str) -> str:
    """The unit of ``--dist loadfile`` a test belongs to: its file, or the group of files
    that share a session fixture."""
    path = nodeid.split("::", 1)[0]  # from the repository's root, as pytest names tests
    return _UNIT.get(path, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with ``work_unit`` for its units (pytest-xdist's file scheduling
    otherwise); any other ``--dist`` is pytest-xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFixtureScheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return SharedFixtureScheduling(config, log)


@pytest.fixture(scope="session")
def stats() -> Any:
    """``scipy.stats``, which the tests check the laws against, imported by the first test
    that asks: at collection, both workers paid its 0.8 s."""
    return pytest.importorskip("scipy.stats")


@pytest.fixture(scope="session")
def sample_audit(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``loo-replay audit sample_logs`` run once a worker, as the Makefile runs it
    (``report_helpers.SampleAudit``), about 5 CPU seconds: what writes to its database or
    folder, or reads them in a browser, takes its own copy (``report_helpers.copy_of``),
    and this one stays as the command made it."""
    from report_helpers import audit_samples

    return audit_samples(tmp_path_factory.mktemp("sample-audit"))


@pytest.fixture(scope="session")
def samples_ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``loo-replay ingest sample_logs`` into a new database (the analysis on, the default),
    once a worker, for the modules that read it (``test_db_ingest``, ``test_db_analysis``,
    ``test_db_schema``): read only, a test that writes copies it first."""
    from db_helpers import SAMPLES, run

    db = tmp_path_factory.mktemp("samples-ingested") / "loo.duckdb"
    result = run("ingest", SAMPLES, "--db", db)
    assert result.returncode == 0, result.stderr
    return db

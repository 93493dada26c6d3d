"""``make test``'s units of work (tests/conftest.py): each test file runs whole on one worker,
and the files that read a once-a-worker session fixture run together, so that its command
runs once a suite (docs/performance.md, "Test time")."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import SHARED_SESSION_FIXTURES, pytest_xdist_make_scheduler, work_unit

TESTS = Path(__file__).resolve().parent


def _asks_for(path: Path) -> set[str]:
    """The session fixtures of SHARED_SESSION_FIXTURES that a function of ``path`` (a test
    or a fixture) takes as an argument."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.FunctionDef):
            names.update(a.arg for a in node.args.args if a.arg in SHARED_SESSION_FIXTURES)
    return names


def test_the_files_grouped_are_the_files_that_ask_for_each_fixture() -> None:
    found: dict[str, set[str]] = {name: set() for name in SHARED_SESSION_FIXTURES}
    for path in TESTS.rglob("test_*.py"):
        for name in _asks_for(path):
            found[name].add(path.relative_to(TESTS.parent).as_posix())
    assert found == {name: set(files) for name, files in SHARED_SESSION_FIXTURES.items()}


def test_a_grouped_file_is_its_groups_unit_and_any_other_file_its_own() -> None:
    assert work_unit("tests/test_reports_cli.py::test_a_clean_log_exits_0") == "[sample_audit]"
    assert work_unit("tests/test_pages_layout.py::test_x[390]") == "[sample_audit]"
    assert work_unit("tests/test_db_schema.py::test_y") == "[samples_ingested]"
    assert work_unit("tests/test_cli.py::test_z") == "tests/test_cli.py"
    assert work_unit("tests/hostile/test_serve.py::test_w") == "tests/hostile/test_serve.py"
    assert work_unit("tests/hostile/test_db_schema.py::t") == "tests/hostile/test_db_schema.py"


class _Worker:
    """What pytest-xdist's scheduler sends a worker: the indices of its tests."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_pytest_xdist_hands_out_a_group_whole_in_the_collections_order() -> None:
    """The scheduler made for ``--dist loadfile --no-loadscope-reorder`` (the Makefile's),
    given two workers and a collection: the three ``sample_audit`` files go to one worker,
    their tests in the collection's order, the other files each whole to one worker."""
    pytest.importorskip("xdist")
    options = {"dist": "loadfile", "tx": ["2*popen"]}
    config: Any = SimpleNamespace(
        getvalue=options.__getitem__, option=SimpleNamespace(loadscopereorder=False)
    )
    scheduler = pytest_xdist_make_scheduler(config, None)
    collection = [
        "tests/test_pages_phone.py::test_a",
        "tests/test_reports_browser.py::test_b",
        "tests/test_pages_layout.py::test_c",
        "tests/test_reports_cli.py::test_d",
        "tests/test_reports_cli.py::test_e",
        "tests/test_cli.py::test_f",
        "tests/test_db_ingest.py::test_g",
        "tests/test_db_analysis.py::test_h",
    ]
    workers = [_Worker("gw0"), _Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    done: set[tuple[str, int]] = set()
    while not scheduler.tests_finished:  # each worker runs what it was sent, in turn
        for worker in workers:
            for index in list(worker.sent):
                if (worker.name, index) not in done:
                    done.add((worker.name, index))
                    scheduler.mark_test_complete(worker, index)
    ran = [[collection[i] for i in worker.sent] for worker in workers]
    assert sorted(t for tests in ran for t in tests) == sorted(collection)  # each test once
    for tests in ran:  # each unit whole on one worker, in the collection's order
        for unit in {work_unit(t) for t in tests}:
            assert [t for t in tests if work_unit(t) == unit] == [
                t for t in collection if work_unit(t) == unit
            ]
    assert len({work_unit(t) for t in collection}) == 4


def test_any_other_dist_is_pytest_xdists_own() -> None:
    config: Any = SimpleNamespace(getvalue={"dist": "load"}.__getitem__)
    assert pytest_xdist_make_scheduler(config, None) is None

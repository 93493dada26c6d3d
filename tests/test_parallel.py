"""``run.workers.ordered_map``: the one bounded, ordered map over worker processes that validate,
ingest and the reports share."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from loo_replay.run.workers import early_context, mapped_now, ordered_map, started_pool

_OFFSET: int | None = None  # set in each worker by _start


def _start(offset: int) -> None:
    global _OFFSET
    _OFFSET = offset


def _shifted(n: int) -> tuple[int, int]:
    assert _OFFSET is not None, "the initializer ran first"
    return n + _OFFSET, os.getpid()


def _start_from(queue: Any) -> None:
    """An initializer whose state arrives on a queue after the workers started."""
    _start(queue.get())


def _square(n: int) -> int:
    return n * n


@pytest.mark.parametrize("spawn", [False, True])
def test_results_come_back_in_input_order_from_other_processes(spawn: bool) -> None:
    results = list(ordered_map(_square, range(40), 2, spawn=spawn))
    assert results == [n * n for n in range(40)]


def test_the_initializer_runs_in_every_spawned_worker() -> None:
    results = list(
        ordered_map(_shifted, range(20), 2, initializer=_start, initargs=(100,), spawn=True)
    )
    assert [value for value, _ in results] == list(range(100, 120))
    assert os.getpid() not in {pid for _, pid in results}


def test_one_job_runs_here_after_the_initializer() -> None:
    results = list(ordered_map(_shifted, range(3), 1, initializer=_start, initargs=(7,)))
    assert results == [(7, os.getpid()), (8, os.getpid()), (9, os.getpid())]


def _doubled_here(n: int) -> tuple[int, int]:
    return n + 1000, os.getpid()


def test_this_process_takes_a_share_beside_one_worker() -> None:
    """``here``: with two jobs, one spawned worker and this process (which holds what the
    worker would have to build again: report --jobs 2 as two processes, not three); the
    results in input order whoever worked them."""
    results = list(
        ordered_map(
            _shifted,
            range(40),
            2,
            initializer=_start,
            initargs=(100,),
            spawn=True,
            here=_doubled_here,
        )
    )
    ours = [n for n, (value, pid) in enumerate(results) if pid == os.getpid()]
    theirs = {pid for _, pid in results} - {os.getpid()}
    assert ours and len(theirs) == 1  # one worker, and this process worked some items
    assert [v for v, _ in results] == [n + (1000 if n in ours else 100) for n in range(40)]


def test_one_job_with_a_share_here_runs_everything_here_without_the_initializer() -> None:
    results = list(
        ordered_map(_shifted, range(3), 1, initializer=_start, initargs=(7,), here=_doubled_here)
    )
    assert results == [(1000, os.getpid()), (1001, os.getpid()), (1002, os.getpid())]


def test_closing_early_stops_reading_the_input() -> None:
    taken: list[int] = []

    def items() -> Iterator[int]:
        for n in range(10_000):
            taken.append(n)
            yield n

    results = ordered_map(_square, items(), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 4]
    results.close()
    assert len(taken) <= 3 + 2 * 2  # what was read: the three results and one window ahead


def test_a_started_pool_works_before_its_state_is_known() -> None:
    """Ingest forks its workers before it opens the database that holds what they need to
    know: their initializer waits for it on a queue."""
    queue = early_context().SimpleQueue()
    pool = started_pool(2, initializer=_start_from, initargs=(queue,))
    for _ in range(2):
        queue.put(100)
    results = list(mapped_now(_shifted, range(20), pool, 4))
    assert [value for value, _ in results] == list(range(100, 120))
    assert os.getpid() not in {pid for _, pid in results}


_SEEN: Any = None  # a queue each worker reports its items on, set by _report_to


def _report_to(queue: Any) -> None:
    global _SEEN
    _SEEN = queue


def _reported(n: int) -> int:
    _SEEN.put(n)
    return n * n


def test_mapped_now_hands_out_its_first_window_before_a_result_is_asked_for() -> None:
    """Ingest starts its workers on the first pieces before it opens a new database:
    they are at work while it does, and no more than the window is taken from the input."""
    seen = early_context().Queue()
    pool = started_pool(2, initializer=_report_to, initargs=(seen,))
    taken: list[int] = []

    def items() -> Iterator[int]:
        for n in range(10):
            taken.append(n)
            yield n

    results = mapped_now(_reported, items(), pool, 4)
    begun = sorted(seen.get(timeout=60) for _ in range(4))  # no result asked for yet
    assert begun == [0, 1, 2, 3] and taken == [0, 1, 2, 3]
    assert list(results) == [n * n for n in range(10)]


def _slow_square(n: int) -> int:
    time.sleep(0.05)
    return n * n


def test_idle_is_called_only_once_every_item_is_handed_out_and_a_result_is_late() -> None:
    """Ingest's loader inserts what it holds while the workers finish the last pieces
    (``idle``): never while input is still to hand out, only before a wait, and the
    results are the same, in order."""
    pool = started_pool(2, initializer=_start, initargs=(0,))
    handed = 0

    def items() -> Iterator[int]:
        nonlocal handed
        for n in range(10):
            handed += 1
            yield n

    calls: list[int] = []
    results = mapped_now(_slow_square, items(), pool, 4, idle=lambda: calls.append(handed))
    assert list(results) == [n * n for n in range(10)]
    assert calls and set(calls) == {10}  # each after the last item was handed out
    assert len(calls) <= 4  # once a wait at most: the window's results


def _dies_at_three(n: int) -> int:
    if n == 3:
        os.kill(os.getpid(), 9)  # as the kernel's out-of-memory killer ends a worker
    return n


def test_a_worker_that_dies_is_the_librarys_error_whatever_the_work() -> None:
    """The pool's ``BrokenProcessPool`` is said once, in ``run/``, as ``WorkerDied``
    (exit status 2, ``cli/failures.py``): the loader, the judging and the report see the
    library's error, the same words."""
    from loo_replay.cli.failures import status_of
    from loo_replay.errors import WorkerDied
    from loo_replay.run.driver import Processes

    with pytest.raises(WorkerDied, match=r"a worker process died \(out of memory\?\)"):
        list(Processes(2).map(_dies_at_three, range(8)))
    assert status_of(WorkerDied) == 2


def test_work_apart_runs_in_a_spawned_process_with_more_than_one_job_and_here_with_one() -> None:
    """``Processes.apart`` (issue 53): what the work leaves allocated ends with its process;
    with one job, no process is started."""
    from loo_replay.run.driver import Processes

    assert Processes(2).apart(os.getpid) != os.getpid()
    assert Processes(1).apart(os.getpid) == os.getpid()
    assert Processes(2).apart(_square, 7) == 49


def test_an_error_apart_comes_back_as_it_was_raised_and_a_death_is_the_librarys_error() -> None:
    from loo_replay.errors import WorkerDied
    from loo_replay.run.driver import Processes

    with pytest.raises(ValueError, match="invalid literal"):
        Processes(2).apart(int, "seven")
    with pytest.raises(WorkerDied, match=r"a worker process died \(out of memory\?\)"):
        Processes(2).apart(_dies_at_three, 3)

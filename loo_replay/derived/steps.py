"""The steps that bring the results derived over the whole database up to date.

A load marks the stored ``fairness``, ``collusion`` and ``collusion_acts`` tables and the
report folder stale by raising the content version (``db.content``); it computes none of
them.  Every command that shows one calls the same step before it does: ``report`` and
``audit`` call ``refresh_stale`` before the pages are written, and record the folder with
``record_reports`` after; ``fairness --db`` and ``collusion --db`` run their tests through
``fairness_now`` and ``screen_now``, which keep the run when it is the stored one and the
stored one is stale.  ``serve`` writes nothing and calls none of them (``explorer.app``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import duckdb

from loo_replay.db import content
from loo_replay.db.errors import DatabaseBusy
from loo_replay.db.opening import opened

if TYPE_CHECKING:
    from loo_replay.collusion.screen import Report as Screen
    from loo_replay.fairness.verdicts import Report as Fairness
    from loo_replay.run.driver import Processes

T = TypeVar("T")


@dataclass(frozen=True)
class UpToDate:
    """The stored results once ``refresh_stale`` is done: what they flag, what was computed
    now, and what was left stale (the collusion screen, when asked to leave it)."""

    fairness_flagged: int  # tests
    collusion_flagged: int  # pairs
    refreshed: tuple[str, ...]
    stale: tuple[str, ...]
    unwritten: bool = False  # stale, but the database could not be written (in use, read-only)


def _writing(db: Path, what: str) -> contextlib.AbstractContextManager[duckdb.DuckDBPyConnection]:
    """A read-write connection for the block."""
    return opened(db, write=True, failed=f"cannot bring {what} up to date in {db}")


def _read(db: Path, what: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """What ``what`` reads, on a read-only connection (an older schema upgraded first)."""
    with opened(db) as con:
        return what(con)


def refresh_stale(
    db: Path, *, collusion: bool = True, workers: Processes | None = None
) -> UpToDate:
    """Recompute the stored fairness tests and collusion screen of the database at ``db``
    where a load has marked them stale, each with its coverage in one transaction (left
    stale where the database cannot be written now: read-only, or read by another
    process, ``unwritten``; the pages then say how much they cover); with
    ``collusion`` False (``audit --no-analysis``, which would otherwise analyse every deal
    it loaded for the screen) the screen is left as it is, stale.  Given the command's
    ``workers``, the work is done in a process of its own where they have more than one job
    (``Processes.apart``): the pages written after it do not sit beside what it left
    allocated; else here."""
    stale = _read(db, content.stale)
    # The screen first, each on a connection of its own: at a million deals the tests alone
    # peak at 580 MB and the screen at 470, and the tests after the screen at 560, but the
    # screen after the tests at 760 (what the tests' run leaves allocated is not given back;
    # benchmarks/results/million.md).
    wanted = [
        result
        for result, stale_too in (
            (content.COLLUSION, (content.COLLUSION, content.COLLUSION_ACTS) if collusion else ()),
            (content.FAIRNESS, (content.FAIRNESS,)),
        )
        if set(stale_too) & set(stale)
    ]
    unwritten = bool(wanted) and not _writable(db)
    if wanted and not unwritten:
        args = (db, wanted)
        unwritten = _refreshed(*args) if workers is None else workers.apart(_refreshed, *args)
    fair, pairs, left = _read(db, _flagged)
    return UpToDate(
        fair,
        pairs,
        () if unwritten else tuple(wanted),
        tuple(r for r in left if r != content.REPORTS),
        unwritten,
    )


def _refreshed(db: Path, wanted: list[str]) -> bool:
    """The results ``wanted`` recomputed in turn, each on a connection of its own; True
    where another process reads the database, and the rest are left stale."""
    from loo_replay.collusion import table as collusion_table
    from loo_replay.fairness import table as fairness_table

    refreshes = {
        content.FAIRNESS: fairness_table.refresh,
        content.COLLUSION: collusion_table.refresh,
    }
    for result in wanted:
        try:
            with _writing(db, result) as con:
                refreshes[result](con)
        except DatabaseBusy:  # another process reads it: the pages say what they cover
            return True
    return False


def _flagged(con: duckdb.DuckDBPyConnection) -> tuple[int, int, list[str]]:
    ((fair, pairs),) = con.execute(
        "SELECT (SELECT count(*) FROM fairness WHERE flagged), "
        "(SELECT count(DISTINCT (player_a, player_b)) FROM collusion WHERE flagged)"
    ).fetchall()
    return int(fair), int(pairs), content.stale(con)


def record_reports(db: Path, covers: content.Covers, out: Path) -> bool:
    """Record that the report folder ``out`` was written from ``covers``, so that the next
    load marks it stale; False where the database cannot be written now (the folder's pages
    say what they cover all the same)."""
    if not _writable(db):
        return False
    try:
        with _writing(db, "the reports' record") as con:
            con.begin()
            content.record(con, content.REPORTS, covers, str(out))
            con.commit()
    except DatabaseBusy:
        return False
    return True


def fairness_now(db: Path, by: Sequence[str], alpha: float, default: bool = False) -> Fairness:
    """The fairness tests of ``by`` at ``alpha`` over the database at ``db`` as it is now.
    When the run is the stored one (``default``: the default scopes and alpha) and the
    stored table is stale, it is kept in the table too, where the database can be written
    (another process reading it, or a file without write permission, leaves it stale)."""
    from loo_replay.fairness import table as fairness_table
    from loo_replay.fairness.verdicts import fairness

    if default and _writable(db) and content.FAIRNESS in _read(db, content.stale):
        try:
            with _writing(db, "the fairness tests") as con:
                return fairness_table.refresh(con)
        except DatabaseBusy:
            pass  # shown all the same, from a read-only connection
    return _read(db, lambda con: fairness(con, by, alpha))


def screen_now(db: Path, alpha: float, default: bool = False) -> Screen:
    """The collusion screen at ``alpha`` over the database at ``db`` as it is now; kept in
    the collusion tables as ``fairness_now`` keeps the fairness tests."""
    from loo_replay.collusion import table as collusion_table
    from loo_replay.collusion.screen import screen

    stale = _read(db, content.stale) if default and _writable(db) else []
    if {content.COLLUSION, content.COLLUSION_ACTS} & set(stale):
        try:
            with _writing(db, "the collusion screen") as con:
                return collusion_table.refresh(con)
        except DatabaseBusy:
            pass
    return _read(db, lambda con: screen(con, alpha))


def _writable(db: Path) -> bool:
    return os.access(db, os.W_OK) and os.access(db.parent, os.W_OK)

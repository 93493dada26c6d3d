"""Helpers for the report tests: a session worked out by hand, loading it, and a browser.

The hand-worked session (three-card Loo, ann bob cat; the dealer antes 3,
a loo is 3, a revoke forfeits 12):

1. cat deals, pool 3 (single, the first). Ann takes the Miss, bob passes, cat plays.
   Ann wins 2 tricks (2 chips), cat 1 (1). Nobody looed; carried 0.
2. ann deals, pool 3 (single after an empty pool: a must, all play). Bob 2 tricks,
   ann 1, cat none: cat looed 3. Carried 3.
3. bob deals, pool 6 (double, 2 a trick). Cat plays, ann passes, bob defends with the
   Miss. Cat wins 2 tricks (4); the defender takes nothing and is not looed. Carried 2.
4. cat deals, pool 5 (double), clubs trumps. Ann and bob play, cat passes. Ann leads
   A♠; bob holds 3♠ but plays 4♥: a revoke (follow-suit), 12 forfeited into the next
   pool, and he is looed 3. Ann 3 tricks (3). Carried 5 - 3 + 3 + 12 = 17.
5. ann deals; bob plays A♥, but does not hold it: a log error, the deal is rejected.

Per deal (net = payout - loo - penalties - ante):
ann +2, -2, 0, +3 (so far 2, 0, 0, 3); bob 0, +2, -3, -15 (0, 2, -1, -16);
cat -2, -3, +4, -3 (-2, -5, -1, -4).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from db_helpers import hand_worked_doc, run

from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# What the hand-worked session gives, deal by deal (audited deals 1-4; 5 is rejected).
POOL_START = [3, 3, 6, 5]
POOL_NEXT = [0, 3, 2, 17]
NET_SO_FAR = {"ann": [2, 0, 0, 3], "bob": [0, 2, -1, -16], "cat": [-2, -5, -1, -4]}


def hand_doc(sid: str, chips: dict[str, int] | None = None, **session: Any) -> dict[str, Any]:
    """The hand-worked session under id ``sid``; ``session`` adds fields such as ``venue``."""
    doc = hand_worked_doc(sid)
    if chips is not None:
        doc["session"]["chips"] = chips
    doc["session"].update(session)
    return doc


def load(directory: Path, docs: dict[str, dict[str, Any]]) -> Path:
    """Write ``docs`` (file name -> document) into ``directory`` and ingest them into
    ``directory/loo.duckdb`` with the real ingest; returns the database."""
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for name, doc in docs.items():
        path = directory / name
        path.write_bytes(orjson.dumps(doc))
        files.append(path)
    db = directory / "loo.duckdb"
    result = ingest(files, db, RuleChoice())
    assert result.exit_code == 0 and not result.conflicts, result
    return db


def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (skips when it is not installed):
    the body of each browser test module's ``browser`` fixture."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield browser
        browser.close()


@dataclass(frozen=True)
class SampleAudit:
    """What ``loo-replay audit sample_logs`` made, from the project as the Makefile runs it:
    its database, its reports folder and what it said."""

    db: Path
    out: Path
    stdout: str


def audit_samples(tmp: Path) -> SampleAudit:
    """``loo-replay audit sample_logs`` into ``tmp`` (a fresh database and folder)."""
    db, out = tmp / "loo.duckdb", tmp / "reports"
    result = run("audit", "sample_logs", "--db", db, "--out", out)
    assert result.returncode == 1, result.stderr  # the samples hold violations
    return SampleAudit(db, out, result.stdout)


def copy_of(audit: SampleAudit, tmp: Path) -> SampleAudit:
    """The database and reports folder of ``audit`` copied into ``tmp``: each test module
    that writes to them, or reads them while another writes, has its own.  The audit is the
    same command's output, made once a worker (conftest.py's ``sample_audit``): about 5 CPU
    seconds each time it is not run again."""
    db, out = tmp / audit.db.name, tmp / audit.out.name
    shutil.copyfile(audit.db, db)
    wal = audit.db.with_name(audit.db.name + ".wal")  # none after a clean exit, but whole
    if wal.exists():
        shutil.copyfile(wal, db.with_name(db.name + ".wal"))
    shutil.copytree(audit.out, out, symlinks=True)
    return SampleAudit(db, out, audit.stdout)


@contextmanager
def shot_on_failure(page: Any, path: Path) -> Iterator[None]:
    """Save a full-page screenshot of ``page`` at ``path`` when the block's check fails, for
    whoever reads the failure.  Only then: a screenshot costs more than the checks, and the
    pictures for the docs come from ``make screenshots``."""
    try:
        yield
    except AssertionError:
        page.screenshot(path=path, full_page=True)
        raise

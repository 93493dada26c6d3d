"""Helpers for the database tests: the real CLI, a database's whole content, a hand-worked log."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
from loo_helpers import deal_doc, declarations, session_doc, trick_plays

from loo_replay.db.tables import ORDER_KEYS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"


def run(
    *args: str | Path, cwd: Path = ROOT, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``loo-replay ARGS`` in a subprocess; never a traceback, whatever the outcome."""
    result = subprocess.run(
        [sys.executable, "-m", "loo_replay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


_COUNTS = re.compile(
    r"(?P<deals>\d+) deal\(s\) in (?P<sessions>\d+) session\(s\) from (?P<files>\d+) file\(s\): "
    r"(?P<loaded>\d+) loaded, (?P<rejected>\d+) rejected .*?, (?P<skipped>\d+) skipped .*?, "
    r"(?P<conflicts>\d+) in conflict"
)


def counts(result: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """The counts ``ingest`` prints; they must add up to the input."""
    found = _COUNTS.search(result.stdout)
    assert found, result.stdout + result.stderr
    c = {k: int(v) for k, v in found.groupdict().items()}
    assert c["loaded"] + c["rejected"] + c["skipped"] + c["conflicts"] == c["deals"]
    return c


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table in a total order: equal dumps, equal databases."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            table: con.execute(f"SELECT * FROM {table} ORDER BY {', '.join(keys)}").fetchall()
            for table, keys in ORDER_KEYS.items()
        }
    finally:
        con.close()


def sql(db: Path, query: str, *params: Any) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(query, list(params)).fetchall()
    finally:
        con.close()


# -- a session worked out by hand --------------------------------------------------------

P3 = ("ann", "bob", "cat")


def hand_worked_doc(sid: str = "hand-worked") -> dict[str, Any]:
    """Three-card Loo (ante 3 by the dealer, loo 3, revoke 12 forfeited), ann bob cat.

    1. cat deals, pool 3 (single, the first: no must). Ann takes the Miss, bob passes, cat
       plays. Ann wins 2 tricks (2 chips), cat 1 (1). Nobody looed; pool_next 0.
    2. ann deals, pool 3 (single: a must, all play). Bob 2 tricks (2), ann 1 (1), cat
       none: looed 3. pool_next 3.
    3. bob deals, pool 6 (double, share 2). Cat plays, ann passes, bob defends with the
       Miss. Cat 2 tricks (4); the defender takes nothing and is not looed. pool_next 2.
    4. cat deals, pool 5 (double, share 1), clubs trumps, nobody holds one. Ann and bob
       play, cat passes. Ann leads A♠; bob holds 3♠ but plays 4♥: a revoke (follow-suit),
       12 chips into the next pool, and he is looed 3. Ann 3 tricks (3). pool_next
       5 - 3 + 3 + 12 = 17.
    5. ann deals; bob plays A♥, but does not hold it: a log error, the deal is rejected.

    Net chips (payouts - loo - penalties - antes): ann 2-2+0+3 = 3, bob 0+2-3-15 = -16,
    cat -2-3+4-3 = -4; the pool grew from 0 to 17 = -(3 - 16 - 4).
    """
    deals = [
        deal_doc(
            {"ann": "2S 3H 4C", "bob": "5S 6H 7C", "cat": "KD 8S 8H"},
            declarations("ann take_miss", "bob pass", "cat play")
            + trick_plays("ann AD cat KD", "ann QD cat 8H", "ann 3S cat 8S"),
            number=1,
            dealer="cat",
            miss="AD QD 3S",
            turn_up="9D",
        ),
        deal_doc(
            {"bob": "AH KH 2C", "cat": "QH 5D 6D", "ann": "3H 7C 8C"},
            trick_plays("bob AH cat QH ann 3H", "bob KH cat 5D ann 7C", "bob 2C cat 6D ann 8C"),
            number=2,
            dealer="ann",
            turn_up="4S",
        ),
        deal_doc(
            {"cat": "AS KS 3D", "ann": "4C 5C 6C", "bob": "7C 8C 9C"},
            declarations("cat play", "ann pass", "bob defend")
            + trick_plays("cat AS bob QS", "cat KS bob 4D", "cat 3D bob 5D"),
            number=3,
            dealer="bob",
            miss="QS 4D 5D",
            turn_up="2H",
        ),
        deal_doc(
            {"ann": "AS KS QH", "bob": "3S 4H 5H", "cat": "7D 8D 9D"},
            declarations("ann play", "bob play", "cat pass")
            + trick_plays("ann AS bob 4H", "ann KS bob 3S", "ann QH bob 5H"),
            number=4,
            dealer="cat",
            miss="JD TD 6D",
            turn_up="2C",
        ),
        deal_doc(
            {"ann": "2S 3S 4S", "bob": "5S 6S 7S", "cat": "8S 9S TS"},
            declarations("bob play", "cat play", "ann play") + trick_plays("bob AH"),
            number=5,
            dealer="ann",
            miss="JS QS KS",
            turn_up="AD",
        ),
    ]
    return session_doc(deals, players=P3, sid=sid)

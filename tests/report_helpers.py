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
5. ann deals; bob plays A♥, which he does not hold: a log error, the deal is rejected.

Per deal (net = payout - loo - penalties - ante):
ann +2, -2, 0, +3 (so far 2, 0, 0, 3); bob 0, +2, -3, -15 (0, 2, -1, -16);
cat -2, -3, +4, -3 (-2, -5, -1, -4).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from loo_helpers import deal_doc, declarations, session_doc, trick_plays

from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
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
P3 = ("ann", "bob", "cat")

# What the hand-worked session gives, deal by deal (audited deals 1-4; 5 is rejected).
POOL_START = [3, 3, 6, 5]
POOL_NEXT = [0, 3, 2, 17]
NET_SO_FAR = {"ann": [2, 0, 0, 3], "bob": [0, 2, -1, -16], "cat": [-2, -5, -1, -4]}


def hand_deals() -> list[dict[str, Any]]:
    return [
        deal_doc(
            1,
            "cat",
            {"ann": "2S 3H 4C", "bob": "5S 6H 7C", "cat": "KD 8S 8H"},
            declarations("ann take_miss", "bob pass", "cat play")
            + trick_plays("ann AD cat KD", "ann QD cat 8H", "ann 3S cat 8S"),
            miss="AD QD 3S",
            turn_up="9D",
        ),
        deal_doc(
            2,
            "ann",
            {"bob": "AH KH 2C", "cat": "QH 5D 6D", "ann": "3H 7C 8C"},
            trick_plays("bob AH cat QH ann 3H", "bob KH cat 5D ann 7C", "bob 2C cat 6D ann 8C"),
            turn_up="4S",
        ),
        deal_doc(
            3,
            "bob",
            {"cat": "AS KS 3D", "ann": "4C 5C 6C", "bob": "7C 8C 9C"},
            declarations("cat play", "ann pass", "bob defend")
            + trick_plays("cat AS bob QS", "cat KS bob 4D", "cat 3D bob 5D"),
            miss="QS 4D 5D",
            turn_up="2H",
        ),
        deal_doc(
            4,
            "cat",
            {"ann": "AS KS QH", "bob": "3S 4H 5H", "cat": "7D 8D 9D"},
            declarations("ann play", "bob play", "cat pass")
            + trick_plays("ann AS bob 4H", "ann KS bob 3S", "ann QH bob 5H"),
            miss="JD TD 6D",
            turn_up="2C",
        ),
        deal_doc(
            5,
            "ann",
            {"ann": "2S 3S 4S", "bob": "5S 6S 7S", "cat": "8S 9S TS"},
            declarations("bob play", "cat play", "ann play") + trick_plays("bob AH"),
            miss="JS QS KS",
            turn_up="AD",
        ),
    ]


def hand_doc(sid: str, chips: dict[str, int] | None = None, **session: Any) -> dict[str, Any]:
    """The hand-worked session under id ``sid``; ``session`` adds fields such as ``venue``."""
    doc = session_doc(hand_deals(), players=P3, sid=sid, chips=chips)
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

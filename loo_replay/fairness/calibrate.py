"""Calibration: the fairness tests run on simulated sessions whose dealing is known.

One run = one simulated session (six players, three-card Loo unless told),
written to a log, loaded by ``ingest`` and judged over all its deals, exactly
as ``loo-replay fairness LOG --by all`` would.  ``scripts/fairness_calibration.py``
repeats runs over many seeds for the table in docs/fairness.md; the tests run
a few.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from loo_replay.db.ingest import ingest
from loo_replay.db.opening import opened
from loo_replay.fairness.verdicts import Report, fairness
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.simulate import Crooked, Simulator, Truth, write_simulation

R = TypeVar("R")


@dataclass(frozen=True)
class Dealing:
    """How a simulated session is dealt: fairly, by a crooked dealer, or from riffles."""

    crooked: Crooked | None = None
    riffles: int | None = None
    repeat: bool = False  # deal the last deal's cards again, exactly, once


def simulated_run(
    dealing: Dealing,
    deals: int,
    seed: int,
    *,
    players: int = 6,
    ruleset: str = "three-card",
    alpha: float = 0.01,
) -> Report:
    sim = Simulator(
        builtin(ruleset).options, ruleset, players, seed, crooked=dealing.crooked,
        riffles=dealing.riffles,
    )  # fmt: skip
    doc = sim.session(f"calibration-{seed}", deals)
    if dealing.repeat:
        repeat_last_deal(doc)
    return judged(doc, sim.truth, lambda con: fairness(con, ["all"], alpha))


def judged(doc: dict[str, Any], truth: Truth, judge: Callable[[duckdb.DuckDBPyConnection], R]) -> R:
    """``judge`` on a database loaded by ``ingest`` (with the analysis) from the simulated
    session ``doc``, written as a log with its ``truth`` beside it; the files are removed
    afterwards.  The collusion screen's calibration runs its screen the same way."""
    with tempfile.TemporaryDirectory(prefix="loo-calibration-") as tmp:
        log = Path(tmp) / "run.jsonl"
        write_simulation(log, [doc], 1, truth)
        db = Path(tmp) / "run.duckdb"
        ingest([log], db, RuleChoice(None, {}))
        with opened(db) as con:
            return judge(con)


def repeat_last_deal(doc: dict[str, Any]) -> None:
    """End the session with an earlier deal dealt again, card for card: the latest deal that
    has an earlier one by the same dealer with a Miss where it has one (so the ruleset deals
    both alike) becomes a copy of it, and the deals after it are dropped.  The copy keeps
    its events and drops its recorded amounts, so it is audited, not rejected."""
    deals = doc["deals"]
    for last in range(len(deals) - 1, 0, -1):
        target = deals[last]
        for earlier in reversed(deals[:last]):
            if earlier["dealer"] == target["dealer"] and ("miss" in earlier) == ("miss" in target):
                again = {k: v for k, v in earlier.items() if k != "recorded"}
                doc["deals"] = [*deals[:last], {**again, "deal": target["deal"]}]
                return
    raise ValueError("no earlier deal to repeat")

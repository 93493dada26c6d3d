"""Calibration: the fairness tests run on simulated sessions whose dealing is known.

One run = one simulated session (six players, three-card Loo unless told),
written to a log, loaded by ``ingest`` and judged over all its deals, exactly
as ``loo-replay fairness LOG --by all`` would.  ``scripts/fairness_calibration.py``
repeats runs over many seeds for the table in docs/fairness.md; the tests run
a few.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loo_replay.db.ingest import ingest
from loo_replay.db.queries import open_for_reading
from loo_replay.fairness.audit import Report, fairness
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.simulate import Crooked, Simulator, write_simulation


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
    with tempfile.TemporaryDirectory(prefix="loo-calibration-") as tmp:
        log = Path(tmp) / "run.jsonl"
        write_simulation(log, [doc], 1, sim.truth)
        db = Path(tmp) / "run.duckdb"
        ingest([log], db, RuleChoice(None, {}))
        con = open_for_reading(db)
        try:
            return fairness(con, ["all"], alpha)
        finally:
            con.close()


def repeat_last_deal(doc: dict[str, Any]) -> None:
    """Deal an earlier deal again, card for card, as the session's last deal: the latest one
    by the same dealer with a Miss where the last has one (so the ruleset deals it alike).
    Its events come along and its recorded amounts are dropped, so it is audited, not
    rejected."""
    deals = doc["deals"]
    last = deals[-1]
    for earlier in reversed(deals[:-1]):
        if earlier["dealer"] == last["dealer"] and ("miss" in earlier) == ("miss" in last):
            again = {k: v for k, v in earlier.items() if k != "recorded"}
            deals[-1] = {**again, "deal": last["deal"]}
            return
    raise ValueError("no earlier deal to repeat")

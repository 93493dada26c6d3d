"""Calibration: the collusion screen run on simulated sessions whose colluders are known.

One run = one simulated session (six players, three-card Loo unless told), written to a
log, loaded by ``ingest`` with its double-dummy analysis and screened, exactly as
``loo-replay collusion LOG`` would.  ``benchmarks/collusion_calibration.py`` repeats runs
over many seeds for the table in docs/collusion.md; the tests run a few.
"""

from __future__ import annotations

from loo_replay.collusion.screen import Report, screen
from loo_replay.fairness.calibrate import judged
from loo_replay.rulesets import builtin
from loo_replay.simulate import Colluders, Simulator


def simulated_run(
    colluders: tuple[Colluders, ...],
    deals: int,
    seed: int,
    *,
    players: int = 6,
    ruleset: str = "three-card",
    alpha: float = 0.01,
) -> Report:
    sim = Simulator(builtin(ruleset).options, ruleset, players, seed, colluders=colluders)
    doc = sim.session(f"collusion-{seed}", deals)
    return judged(doc, sim.truth, lambda con: screen(con, alpha))


def named(report: Report) -> set[tuple[str, str]]:
    """The pairs a run flagged."""
    return {p.pair for p in report.flagged}

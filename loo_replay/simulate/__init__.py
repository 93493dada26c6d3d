"""Seeded simulated sessions with ground truth, played through the engine itself
(docs/simulate.md).  Same seed, same bytes.

``simulator`` runs sessions deal by deal; ``dealing`` deals the cards, fairly or, on
purpose, not (docs/fairness.md, "Simulating unfair dealing"); ``players`` seats a ``Bot``
per player, which declares and plays from the engine's legal moves; ``injector`` breaks a
rule or corrupts a recorded block where asked; ``truth`` records what was done, and
``colluders`` lets two players play for each other (docs/collusion.md); ``writing`` writes
the logs and the ground truth.
"""

from loo_replay.simulate.colluders import Colluders, parse_colluders
from loo_replay.simulate.dealing import Crooked, parse_crooked, parse_shuffle, riffle, top_trump
from loo_replay.simulate.players import Bot
from loo_replay.simulate.simulator import NAMES, Simulator, max_players
from loo_replay.simulate.truth import Truth, TruthAct, TruthDiscrepancy, TruthFinding, TruthSwap
from loo_replay.simulate.writing import write_simulation

__all__ = [
    "NAMES",
    "Bot",
    "Colluders",
    "Crooked",
    "Simulator",
    "Truth",
    "TruthAct",
    "TruthDiscrepancy",
    "TruthFinding",
    "TruthSwap",
    "max_players",
    "parse_colluders",
    "parse_crooked",
    "parse_shuffle",
    "riffle",
    "top_trump",
    "write_simulation",
]

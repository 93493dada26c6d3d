"""The ground truth of a simulation: every violation injected, every record corrupted,
every card a crooked dealer swapped and every act a colluder did for a partner, for the
audit, the fairness tests and the collusion screen to be checked against (docs/simulate.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class TruthFinding:
    session: str
    deal: int
    trick: int | None
    player: str
    code: str


@dataclass(frozen=True)
class TruthDiscrepancy:
    session: str
    deal: int
    field: str
    recorded: int
    expected: int


@dataclass(frozen=True)
class TruthSwap:
    """A crooked dealer's swap: ``card`` came to his hand from ``source`` (a player, "miss"
    or "stock")."""

    session: str
    deal: int
    player: str
    card: str
    source: str


@dataclass(frozen=True)
class TruthAct:
    """A colluder's act for the partner (docs/collusion.md): ``behaviour`` is a test's name;
    ``trick`` is None for a declaration."""

    session: str
    deal: int
    trick: int | None
    player: str
    partner: str
    behaviour: str


@dataclass
class Truth:
    findings: list[TruthFinding] = field(default_factory=list)
    discrepancies: list[TruthDiscrepancy] = field(default_factory=list)
    dealing: dict[str, Any] | None = None  # only when the dealing was made unfair
    swaps: list[TruthSwap] = field(default_factory=list)
    colluders: list[dict[str, Any]] | None = None  # only when some players collude
    acts: list[TruthAct] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "findings": [asdict(f) for f in self.findings],
            "discrepancies": [asdict(d) for d in self.discrepancies],
        }
        if self.dealing is not None:
            out["dealing"] = {**self.dealing, "swaps": [asdict(s) for s in self.swaps]}
        if self.colluders is not None:
            out["collusion"] = {
                "pairs": self.colluders,
                "acts": [asdict(a) for a in self.acts],
            }
        return out

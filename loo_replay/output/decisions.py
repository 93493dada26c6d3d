"""The judged decisions in the audit's outputs: docs/judging-decisions.md, "Output".

Each deal gains a ``decisions`` member; the summary gains ``decisions``,
``inaccuracies``, ``mistakes``, ``blunders`` and each player's ``accuracy`` over
every decision read.  Text: one line per classed decision under its deal, each
judged deal's players in one line, and a table of the players at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loo_replay.engine.judging import SKIPPED, DealDecisions, Decision
from loo_replay.engine.records import field, fields, record
from loo_replay.output import numbers
from loo_replay.output.analysis import AnalysisSummary
from loo_replay.output.analysis import summary_line as analysis_summary_line
from loo_replay.output.text import Style, safe
from loo_replay.run.audit import Summary

DIGITS = 2  # values in the JSON output: hundredths of a chip


TOO_FEW = 30  # judged decisions below which a player's figures are "too few to judge"
# A player's row: decisions, the sum of their accuracies, how many had one, the sum of
# their squares, the chips lost, the loss in units (one trick's worth of its deal) and the
# sum of its squared standard errors.  Every member adds, deal by deal and run by run.
DECISIONS, ACC_SUM, ACC_N, ACC_SQ, LOSS, UNITS, UNITS_VAR = range(7)


@record(frozen=False)
class DecisionSummary(AnalysisSummary):
    decisions: int = 0
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0
    players: dict[str, list[float]] = field(default_factory=dict)

    def judged(self, deal: DealDecisions) -> None:
        self.decisions += len(deal.items)
        for d in deal.items:
            self.inaccuracies += d.klass == "inaccuracy"
            self.mistakes += d.klass == "mistake"
            self.blunders += d.klass == "blunder"
            row = self.players.setdefault(d.player, [0.0] * 7)
            row[UNITS] += d.loss / deal.unit
            row[UNITS_VAR] += (d.loss_se / deal.unit) ** 2
            if d.accuracy is not None:
                row[ACC_SQ] += d.accuracy**2
        for p in deal.players:
            row = self.players.setdefault(p.player, [0.0] * 7)
            row[DECISIONS] += p.decisions
            row[ACC_SUM] += p.accuracy_sum
            row[ACC_N] += p.accuracy_n
            row[LOSS] += p.loss

    def merge(self, other: Summary) -> None:
        """Counts added field by field, as ``Summary.merge`` does; the players by name."""
        for name in fields(other):
            if name != "players":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        if isinstance(other, DecisionSummary):
            for player, row in other.players.items():
                into = self.players.setdefault(player, [0.0] * 7)
                for i, v in enumerate(row):
                    into[i] += v

    def accuracy(self) -> dict[str, float | None]:
        return {
            name: round(row[ACC_SUM] / row[ACC_N], 1) if row[ACC_N] else None
            for name, row in sorted(self.players.items())
        }

    def as_json(self) -> dict[str, Any]:
        """docs/judging-decisions.md, "Output": the counts, each player's accuracy, and
        ``by_player``: their figures with their counts and standard errors, the loss in
        units (one trick's worth of each deal), never chips added across unlike stakes."""
        return {
            **super().as_json(),
            "decisions": self.decisions,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "accuracy": self.accuracy(),
            "by_player": {name: _player_json(row) for name, row in sorted(self.players.items())},
        }


def accuracy_se(row: list[float]) -> float | None:
    """The standard error of a player's mean accuracy: the spread of their accuracies over
    the root of their number; None below two."""
    n = row[ACC_N]
    if n < 2:
        return None
    mean = row[ACC_SUM] / n
    variance = max(0.0, (row[ACC_SQ] - n * mean * mean) / (n - 1))
    return float((variance / n) ** 0.5)


TOO_FEW_WORDS = "too few to judge"


def judged_figures(
    decisions: int,
    accuracy: float | None,
    accuracy_se: float | None,
    accuracy_n: int,
    loss: float,
    loss_se: float,
    places: int,
    none: str = "-",
) -> tuple[str, str] | None:
    """A player's accuracy with its standard error and count (``71.3% ± 2.1 of 40``) and
    their loss in units with its standard error (``0.42 ± 0.08``, to ``places``), for the
    text, ``stats`` and the decisions page alike; None under ``TOO_FEW`` judged decisions,
    which are "too few to judge"; ``none`` for an accuracy no decision gave."""
    if decisions < TOO_FEW:
        return None
    shown = numbers.estimate(accuracy, accuracy_se, 1, "%") if accuracy is not None else None
    acc = none if shown is None else f"{shown} of {numbers.count(accuracy_n)}"
    return acc, numbers.estimate(loss, loss_se, places)


def judged_cells(r: Mapping[str, Any], none: str) -> tuple[str, str]:
    """A player's row of the database's judged figures (``db.queries.PLAYER_DECISIONS``)
    as ``stats`` and the decisions page show it: the accuracy and the tricks lost a deal,
    each with its standard error, or "too few to judge" and ``none``."""
    shown = judged_figures(
        r["decisions"],
        r["accuracy"],
        r["accuracy_se"],
        r["accuracy_n"],
        r["loss_a_deal"],
        r["loss_a_deal_se"],
        2,
        none,
    )
    return shown or (TOO_FEW_WORDS, none)


def _player_json(row: list[float]) -> dict[str, Any]:
    se = accuracy_se(row)
    return {
        "decisions": int(row[DECISIONS]),
        "too_few": row[DECISIONS] < TOO_FEW,
        "accuracy_n": int(row[ACC_N]),
        "accuracy": round(row[ACC_SUM] / row[ACC_N], 1) if row[ACC_N] else None,
        "accuracy_se": None if se is None else round(se, 1),
        "loss_units": _num(row[UNITS]),
        "loss_units_se": _num(row[UNITS_VAR] ** 0.5),
    }


def _num(x: float) -> float:
    return round(x, DIGITS) + 0.0  # no -0.0


def decision_json(d: Decision) -> dict[str, Any]:
    return {
        "player": d.player,
        "kind": d.kind,
        "trick": d.trick,
        "index": d.index,
        "chosen": d.chosen,
        "best": d.best,
        "options": {o.key: {"value": _num(o.value), "se": _num(o.se)} for o in d.options},
        "loss": _num(d.loss),
        "loss_se": _num(d.loss_se),
        "class": d.klass,
        "message": d.message,
    }


def decisions_json(deal: DealDecisions) -> dict[str, Any]:
    """A deal's ``decisions`` member."""
    if deal.status == SKIPPED:
        return {"status": deal.status, "reason": deal.reason}
    out: dict[str, Any] = {"status": deal.status, "samples": deal.samples, "unit": deal.unit}
    if deal.declarations is not None:
        out["declarations"] = deal.declarations
    out["items"] = [decision_json(d) for d in deal.items]
    if deal.unjudged:
        out["unjudged"] = [
            {"player": u.player, "index": u.index, "reason": u.reason} for u in deal.unjudged
        ]
    out["players"] = {
        p.player: {
            "decisions": p.decisions,
            "loss": _num(p.loss),
            "accuracy": None if p.accuracy is None else round(p.accuracy, 1),
            "inaccuracies": p.inaccuracies,
            "mistakes": p.mistakes,
            "blunders": p.blunders,
        }
        for p in deal.players
    }
    return out


def decision_lines(deal: DealDecisions, style: Style, findings_only: bool = False) -> list[str]:
    """Under a deal: its classed decisions, then its players in one line; with
    ``findings_only``, the classed decisions alone."""
    if deal.status == SKIPPED:
        return [] if findings_only else [f"    decisions: not judged ({safe(str(deal.reason))})"]
    lines = [
        f"    {style(d.klass, 'warn')}: {safe(d.message, 400)}"
        for d in deal.items
        if d.klass is not None
    ]
    if deal.players and not findings_only:
        judged = ", ".join(
            f"{safe(p.player)} {p.decisions} (loss {p.loss:.1f}"
            + ("" if p.accuracy is None else f", accuracy {p.accuracy:.0f}%")
            + ")"
            for p in deal.players
        )
        lines.append(f"    decisions judged on {deal.samples} worlds: {judged}")
    return lines


class Judged:
    """A document's judged deals, for ``rendered_analysis`` to add to each deal."""

    key = "decisions"

    def __init__(self, deals: list[DealDecisions]) -> None:
        self.deals = deals

    def json(self, deal: int) -> dict[str, Any]:
        return decisions_json(self.deals[deal])

    def lines(self, deal: int, style: Style, findings_only: bool = False) -> list[str]:
        return decision_lines(self.deals[deal], style, findings_only)

    def found(self, deal: int) -> bool:
        """An inaccuracy, a mistake or a blunder in the deal."""
        return any(d.klass is not None for d in self.deals[deal].items)

    def summary(self) -> DecisionSummary:
        counts = DecisionSummary()
        for deal in self.deals:
            counts.judged(deal)
        return counts


def summary_line(s: DecisionSummary) -> str:
    """The last line of the text, and the players' table under it: each player's loss in
    units (one trick's worth of each deal, so unlike stakes add up) with its standard error,
    and their accuracy with its count and standard error; "too few to judge" below 30
    judged decisions."""
    head = (
        f"{analysis_summary_line(s)}; decisions: {s.decisions} judged, {s.inaccuracies} "
        f"inaccuracies, {s.mistakes} mistakes, {s.blunders} blunders"
    )
    if not s.players:
        return head
    rows = [
        head,
        "",
        f"{'player':<16} {'decisions':>9} {'loss in tricks':>15} {'accuracy':>22}",
    ]
    for name, row in sorted(s.players.items()):
        n = int(row[DECISIONS])
        mean = row[ACC_SUM] / row[ACC_N] if row[ACC_N] else None
        shown = judged_figures(
            n, mean, accuracy_se(row), int(row[ACC_N]), row[UNITS], row[UNITS_VAR] ** 0.5, 1
        )
        if shown is None:
            rows.append(f"{safe(name)[:16]:<16} {n:>9} {'':>15} {TOO_FEW_WORDS:>22}")
            continue
        acc, loss = shown
        rows.append(f"{safe(name)[:16]:<16} {n:>9} {loss:>15} {acc:>22}")
    rows.append(
        f"loss in tricks: chips lost over each deal's worth of a trick, with its standard "
        f"error; accuracy: the mean over the decisions whose choices differed, their number; "
        f"under {TOO_FEW} judged decisions a player is {TOO_FEW_WORDS}"
    )
    return "\n".join(rows)

"""Numbers with their units and their doubt (docs/judging-decisions.md, "Output"): the
players' table adds losses in each deal's unit, never chips across unlike stakes, with
standard errors and counts; under 30 judged decisions a player is "too few to judge"."""

from __future__ import annotations

from loo_replay.engine.judging import DealDecisions, Decision, PlayerDecisions
from loo_replay.output.decisions import DecisionSummary, summary_line


def _deal(unit: int, losses: list[float], accuracies: list[float]) -> DealDecisions:
    items = tuple(
        Decision("ann", "card", 1, i, "2C", "3C", (), loss, 0.5 * unit, None, acc, "")
        for i, (loss, acc) in enumerate(zip(losses, accuracies, strict=True))
    )
    player = PlayerDecisions(
        "ann", len(items), sum(losses), sum(accuracies) / len(items), sum(accuracies),
        len(items), 0, 0, 0,
    )  # fmt: skip
    return DealDecisions("judged", samples=100, unit=unit, items=items, players=(player,))


def test_losses_add_in_units_across_unlike_stakes_with_their_standard_error() -> None:
    s = DecisionSummary()
    s.judged(_deal(1, [1.0] * 20, [50.0] * 20))  # three-chip game: a trick is 1 chip
    s.judged(_deal(1000, [1000.0] * 20, [100.0] * 20))  # unlimited loo: a trick is 1000
    doc = s.as_json()
    ann = doc["by_player"]["ann"]
    assert doc["accuracy"] == {"ann": 75.0}  # the old member, kept
    assert ann["loss_units"] == 40.0  # 20 + 20 tricks' worth, not 20,020 chips
    assert ann["loss_units_se"] == round((40 * 0.5**2) ** 0.5, 2)
    assert ann["accuracy_n"] == 40 and ann["decisions"] == 40 and not ann["too_few"]
    assert ann["accuracy_se"] == round((25**2 * 40 / 39 / 40) ** 0.5, 1)
    table = summary_line(s).splitlines()
    row = next(line for line in table if line.startswith("ann "))
    assert "40.0 ± 3.2" in row and "75.0% ± 4.0 of 40" in row
    assert "20020" not in "\n".join(table)


def test_fewer_than_30_judged_decisions_are_too_few_to_judge() -> None:
    s = DecisionSummary()
    s.judged(_deal(2, [1.0] * 29, [80.0] * 29))
    row = next(line for line in summary_line(s).splitlines() if line.startswith("ann "))
    assert row.split()[1] == "29" and row.endswith("too few to judge")
    assert s.as_json()["by_player"]["ann"]["too_few"] is True

"""Holm's adjustment of a run's p-values, shared by the fairness tests and the collusion
screen: apart from the tests' module, so that the screen does not import SciPy's statistics
for it (most of a second of every run, docs/performance.md, "The collusion screen")."""

from __future__ import annotations

from collections.abc import Sequence


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the k-th smallest p times (m - k + 1), made monotone."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted

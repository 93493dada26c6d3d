"""A fairness run's verdicts kept on disk between their tests and Holm's judgement.

Holm's adjustment needs every p-value of the run before any test is judged, and a run over
a million deals makes 720,000 tests.  Holding them all took 1.9 GB (docs/fairness.md,
"Speed"), so the verdicts go to an anonymous temporary file a batch at a time, as marshalled
tuples, and only what the judgement and the text need stay in memory: every p-value (a
float each), the verdicts that could be flagged (an adjusted p-value is never below its
p-value, so only those below alpha), and how many deals the tests with too few needed.
Reading the spool gives the judged verdicts in the order they were added, as often as asked.
"""

from __future__ import annotations

import marshal
import operator
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import fields
from typing import Any

from loo_replay.fairness.holm import holm
from loo_replay.fairness.stats import Verdict, judged, tested_message, too_few_message

FIELDS = tuple(f.name for f in fields(Verdict))
_FIELDS_OF = operator.attrgetter(*FIELDS)
_HEADER = 8  # bytes of a batch's length


class Spool:
    """Verdicts added by batches (``add``), then judged together (``judge``) and read back
    (iteration), judged, in their order."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (it lives as long as the spool)
        self._end = 0
        self.tests = 0
        self.p_values: list[float] = []
        self._candidates: list[tuple[int, Verdict]] = []  # (index in p_values, verdict)
        self._adjusted: list[float] = []
        self.flagged: list[Verdict] = []
        self.needs: dict[str, tuple[int, int]] = {}  # test -> (deals it needs, most it had)

    def add(self, verdicts: Iterable[Verdict]) -> None:
        rows = []
        for v in verdicts:
            p = v.p_value
            if p is None:
                need, most = self.needs.get(v.test, (v.min_deals, 0))
                self.needs[v.test] = (max(need, v.min_deals), max(most, v.deals))
            else:
                if p < self.alpha:
                    self._candidates.append((len(self.p_values), v))
                self.p_values.append(p)
            rows.append(_FIELDS_OF(v))
        blob = marshal.dumps(rows)
        self._file.write(len(blob).to_bytes(_HEADER, "little") + blob)
        self._end += _HEADER + len(blob)
        self.tests += len(rows)

    def judge(self) -> None:
        """Holm's adjustment over every p-value added; the flagged verdicts judged."""
        self._file.flush()
        self._adjusted = holm(self.p_values)
        self.flagged = [
            judged(v, self._adjusted[k], self.alpha)
            for k, v in self._candidates
            if self._adjusted[k] < self.alpha
        ]

    def _batches(self) -> Iterator[list[tuple[Any, ...]]]:
        """The spooled batches, in order, each its verdicts' fields as tuples."""
        fd, offset = self._file.fileno(), 0
        while offset < self._end:
            size = int.from_bytes(os.pread(fd, _HEADER, offset), "little")
            yield marshal.loads(os.pread(fd, size, offset + _HEADER))
            offset += _HEADER + size

    def __iter__(self) -> Iterator[Verdict]:
        """The judged verdicts in order, made from ``columns``."""
        for columns in self.columns():
            for row in zip(*(columns[name] for name in FIELDS), strict=True):
                v = object.__new__(Verdict)
                v.__dict__.update(zip(FIELDS, row, strict=True))
                yield v

    def columns(self) -> Iterator[dict[str, list[Any]]]:
        """The judged verdicts a spooled batch at a time, as columns: each field of
        ``Verdict`` a list (``fairness.table.store`` writes them without a Python object a
        test: docs/fairness.md, "Speed")."""
        adjusted, alpha, k = self._adjusted, self.alpha, 0
        for rows in self._batches():
            if not rows:
                continue
            columns = dict(zip(FIELDS, map(list, zip(*rows, strict=True)), strict=True))
            p_adjusted: list[float | None] = []
            flagged: list[bool] = []
            message: list[str] = []
            for p, finding, deals, least in zip(
                columns["p_value"],
                columns["finding"],
                columns["deals"],
                columns["min_deals"],
                strict=True,
            ):
                if p is None:
                    p_adjusted.append(None)
                    flagged.append(False)
                    message.append(too_few_message(deals, least))
                    continue
                q = adjusted[k]
                k += 1
                p_adjusted.append(q)
                flagged.append(q < alpha)
                message.append(tested_message(finding, p, q, q < alpha))
            columns.update(p_adjusted=p_adjusted, flagged=flagged, message=message)
            yield columns

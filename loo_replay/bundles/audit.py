"""The audit a bundle holds, run on the bag's own copies of the logs: the JSON that
``validate``, ``fairness``, ``analyse``, ``collusion`` and ``analyse --decisions`` print,
byte for byte, from the same library calls those commands make; and where two such
outputs first differ, as a JSON pointer.

The audit runs with the bag's folder as the working directory, so that each log is named
as in the bag (``data/logs/…``) in the JSON, wherever the bag lies: made in one folder,
re-run from another, the bytes are the same.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from loo_replay.engine.analysis import DEFAULT_MAX_NODES
from loo_replay.engine.options import OptionError
from loo_replay.errors import InputError
from loo_replay.files import staging
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.analysis import AnalysisSummary
from loo_replay.output.decisions import DecisionSummary
from loo_replay.output.json_document import Rendered, write_audit
from loo_replay.rulesets import RuleChoice, RulesetError, load, parse_settings
from loo_replay.run.audit import Summary
from loo_replay.run.driver import each_document
from loo_replay.run.render import (
    ANALYSE_TASK_BYTES,
    DECISIONS_TASK_BYTES,
    TASK_BYTES,
    AnalyseSpec,
    RenderSpec,
    Sampling,
    analyse_documents,
    render_documents,
)

MOST_SAMPLES = 100_000  # --samples' bound: a stranger's statement asks no more of verify
ALPHA = 0.01  # fairness's and collusion's default (their tables' ALPHA), which a bundle records
AUDIT = "data/audit.json"
FAIRNESS = "data/fairness.json"
ANALYSIS = "data/analysis.json"
COLLUSION = "data/collusion.json"
DECISIONS = "data/decisions.json"
Step = Callable[[str], None]  # what is being done, for a status line
# The version field the JSON audits open with: the one part of an output that may differ.
_VERSION = re.compile(rb'^\{"loo_replay":"[^"]*"')


@dataclass(frozen=True)
class AuditOptions:
    """What the audit was run with, as the statement records it."""

    ruleset: str | None = None  # a built-in name, or the bag's name of a ruleset file
    settings: tuple[str, ...] = ()  # --set, as typed
    analysis: bool = False
    decisions: Sampling | None = None  # --decisions --samples K --seed S

    def as_json(self) -> dict[str, Any]:
        d = self.decisions
        return {
            "ruleset": self.ruleset,
            "set": list(self.settings),
            "analysis": self.analysis,
            "decisions": None if d is None else {"samples": d.samples, "seed": d.seed},
            "alpha": ALPHA,
        }

    @classmethod
    def from_json(cls, data: Any) -> AuditOptions:
        """The options a statement records; ``ValueError`` when they are not."""
        try:
            d = data["decisions"]
            sampling = None if d is None else Sampling(int(d["samples"]), int(d["seed"]))
            if sampling is not None and not 1 <= sampling.samples <= MOST_SAMPLES:
                raise ValueError
            ruleset = data["ruleset"]
            settings = data["set"]
            if not (ruleset is None or isinstance(ruleset, str)) or not all(
                isinstance(s, str) for s in settings
            ):
                raise TypeError
            return cls(ruleset, tuple(settings), bool(data["analysis"]), sampling)
        except (KeyError, TypeError, ValueError):
            raise ValueError("the statement's options are not as loo-replay writes them") from None

    def choice(self) -> RuleChoice:
        """The rules of the command line these options stand for; ``InputError`` if not."""
        try:
            chosen = load(self.ruleset) if self.ruleset else None
            return RuleChoice(chosen, parse_settings(self.settings))
        except RulesetError:
            raise
        except (OptionError, ValueError) as exc:
            raise InputError(f"--set: {exc}") from None


@contextlib.contextmanager
def _working_in(folder: Path) -> Iterator[None]:
    """The process's working directory at ``folder`` for the block (the audit names the
    logs as given: relative to the bag)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _json_audit(
    paths: list[Path],
    options: AuditOptions,
    jobs: int,
    scheduler: str | None,
    limits: Limits,
    analyse: bool,
    sampling: Sampling | None = None,
    step: Step | None = None,
) -> bytes:
    """``validate --format json``, or with ``analyse`` ``analyse --format json`` (with
    ``sampling``, ``--decisions``), as bytes: audited in ``jobs`` processes or on the Dask
    cluster at ``scheduler``."""
    choice = options.choice()
    out = io.BytesIO()
    if not analyse:
        spec = RenderSpec(choice, True, limits=limits)
        docs = each_document(paths, render_documents, spec, limits, jobs, scheduler, TASK_BYTES)
        write_audit(_counted(docs, "audited", step), out, False, Summary())
        return out.getvalue()
    analysed = AnalyseSpec(choice, True, False, False, DEFAULT_MAX_NODES, limits, sampling)
    task_bytes = DECISIONS_TASK_BYTES if sampling else ANALYSE_TASK_BYTES
    docs = each_document(paths, analyse_documents, analysed, limits, jobs, scheduler, task_bytes)
    what = "judged" if sampling else "analysed"
    summary = DecisionSummary() if sampling else AnalysisSummary()
    write_audit(_counted(docs, what, step), out, False, summary)
    return out.getvalue()


def _counted(docs: Iterator[Rendered], what: str, step: Step | None) -> Iterator[Rendered]:
    """``docs``, each said to ``step`` as it comes (a status line over a long judging)."""
    for n, doc in enumerate(docs, 1):
        if step is not None:
            step(f"re-running the audit: {n} session(s) {what}")
        yield doc


def _screens(
    paths: list[Path], options: AuditOptions, jobs: int, scheduler: str | None, limits: Limits
) -> dict[str, bytes]:
    """fairness (and, with the analysis, collusion) of the logs loaded into a temporary
    database by ``ingest``, then run as ``fairness LOGS`` and ``collusion LOGS`` run them."""
    from loo_replay.db.ingest import ingest
    from loo_replay.derived.steps import fairness_now, screen_now
    from loo_replay.fairness.verdicts import DEFAULT_BY

    found: dict[str, bytes] = {}
    with staging(Path(tempfile.gettempdir())) as tmp:
        db = tmp / "bundle.duckdb"
        choice = options.choice()
        ingest(paths, db, choice, jobs=jobs, scheduler=scheduler, limits=limits)
        found[FAIRNESS] = _screen_json(fairness_now(db, DEFAULT_BY, ALPHA, True).as_json())
        if options.analysis:
            found[COLLUSION] = _screen_json(screen_now(db, ALPHA, True).as_json())
    return found


def _screen_json(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


def audit_outputs(
    folder: Path,
    logs: list[str],
    options: AuditOptions,
    jobs: int = 1,
    scheduler: str | None = None,
    limits: Limits = LIMITS,
    step: Step | None = None,
) -> dict[str, bytes]:
    """Each output's name in the bag and its bytes, for the logs ``logs`` (names relative
    to ``folder``, the bag) audited under ``options``, in ``jobs`` processes or on the Dask
    cluster at ``scheduler``; ``step`` hears of each session done.  On a cluster the
    documents are read here and carried to its workers, which need not see the bag."""
    with _working_in(folder):
        paths = [Path(name) for name in logs]
        where = (jobs, scheduler)
        outputs = {AUDIT: _json_audit(paths, options, *where, limits, False, step=step)}
        outputs |= _screens(paths, options, *where, limits)
        if options.analysis:
            outputs[ANALYSIS] = _json_audit(paths, options, *where, limits, True, step=step)
        if options.decisions is not None:
            d = options.decisions
            outputs[DECISIONS] = _json_audit(paths, options, *where, limits, True, d, step)
    return dict(sorted(outputs.items()))


def _pointer_part(key: object) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


def _first(a: Any, b: Any, at: str) -> str | None:
    """The JSON pointer of the first place ``a`` and ``b`` differ, or None."""
    if type(a) is not type(b):
        return at
    if isinstance(a, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                return at + _pointer_part(key)
            if (found := _first(a[key], b[key], at + _pointer_part(key))) is not None:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if (found := _first(x, y, at + _pointer_part(i))) is not None:
                return found
        return None if len(a) == len(b) else at + _pointer_part(min(len(a), len(b)))
    return None if a == b else at


def first_difference(recorded: bytes, again: bytes) -> str | None:
    """None when the two outputs are the same bytes (their version fields aside), else where
    they first differ: a JSON pointer (``/`` for the whole), or why there is none."""
    if _VERSION.sub(b"{", recorded, 1) == _VERSION.sub(b"{", again, 1):
        return None
    try:
        a, b = orjson.loads(recorded), orjson.loads(again)
    except orjson.JSONDecodeError:
        return "(the bundle's copy is not JSON)"
    for doc in (a, b):
        if isinstance(doc, dict):
            doc.pop("loo_replay", None)
    found = _first(a, b, "")
    if found is None:
        return "(the same values, written in other bytes)"
    return found or "/"

"""Read, audit and render hand logs, in one process or many.

The input is cut into tasks of about ``task_bytes``: a piece of a plain JSON
Lines file, which the worker process reads itself, or a batch of documents
read here (a gzip or ``.json`` file, whose lines cannot be found without
reading it, or anything bound for a Dask cluster, whose workers may not see
this machine's files).  Workers return ``Rendered`` documents, so only bytes
cross process boundaries, and this process does no more than plan, collect
and write; ``--jobs N`` output is identical to one job's because tasks come
back in input order and the pieces of a file do not depend on the number of
jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from loo_replay.gc_thresholds import fewer_collections
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.pieces import Piece as FilePiece
from loo_replay.logs.pieces import plan_pieces, read_piece
from loo_replay.logs.reader import Document, ReadError
from loo_replay.output.json_document import Rendered, rendered_json
from loo_replay.output.text import rendered_text
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import (
    AuditItem,
    SessionReport,
    UnreadableFile,
    audit_document,
    found_files,
    read_paths,
)
from loo_replay.run.workers import dask_map, ordered_map

if TYPE_CHECKING:  # the analysis is imported where it runs: validate does without it
    from loo_replay.engine.analysis import DealAnalysis
    from loo_replay.engine.judging import DealDecisions

S = TypeVar("S")
# Input bytes per task: enough to amortise a process hop, few enough that the last tasks
# leave no worker idle for long and memory stays small
# (docs/performance.md, "What remains between the ratio and 1").
TASK_BYTES = 1 << 20

Task = FilePiece | list[Document | UnreadableFile]


@dataclass(frozen=True)
class RenderSpec:
    choice: RuleChoice
    json: bool
    indent: bool = False
    colour: bool = False
    findings_only: bool = False  # only the deals with findings
    limits: Limits = LIMITS  # what one document may hold (logs/limits.py)


def tasks(
    paths: Iterable[Path], task_bytes: int, carry: bool = False, limits: Limits = LIMITS
) -> Iterator[Task]:
    """The input under ``paths`` as tasks, in order; with ``carry`` every task carries its
    documents, read within ``limits``.  A path that cannot be read is a task of its
    ``UnreadableFile``."""
    if carry:
        yield from _batches(read_paths(paths, parse=False, limits=limits), task_bytes)
        return
    for path in found_files(paths):
        if isinstance(path, UnreadableFile):
            yield [path]
            continue
        pieces = plan_pieces([path], task_bytes)
        if pieces[0].stop is not None:  # plain JSON Lines: workers read it
            yield from pieces
        else:
            yield from _batches(read_paths([path], parse=False, limits=limits), task_bytes)


def _batches(
    docs: Iterable[Document | UnreadableFile], task_bytes: int
) -> Iterator[list[Document | UnreadableFile]]:
    batch: list[Document | UnreadableFile] = []
    held = 0
    for doc in docs:
        batch.append(doc)
        held += len(doc.raw) if isinstance(doc, Document) else 0
        if held >= task_bytes:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def documents(task: Task, limits: Limits = LIMITS) -> Iterator[Document | UnreadableFile]:
    """A task's documents: read from its piece of a file within ``limits``, or the ones it
    carries."""
    if not isinstance(task, FilePiece):
        yield from task
        return
    try:
        yield from read_piece(task, limits)
    except ReadError as exc:
        yield UnreadableFile(str(exc))


def render_batch(task: tuple[Task, RenderSpec]) -> list[Rendered]:
    """validate's step: audit and render a task's documents (in a worker process or here)."""
    source, spec = task
    batch = []
    with fewer_collections():
        for doc in documents(source, spec.limits):
            if isinstance(doc, UnreadableFile):
                item: AuditItem = doc
            else:  # rendering reads the verdicts only: their replays go deal by deal
                item = audit_document(doc, spec.choice, keep=False, limits=spec.limits)
            if spec.json:
                batch.append(rendered_json(item, spec.indent, spec.findings_only))
            else:
                batch.append(rendered_text(item, spec.colour, spec.findings_only))
    return batch


# Input bytes per task, a quarter of validate's: a deal's search is slow, and a worker left
# with the last task leaves the other idle for as long as the task takes
# (docs/performance.md, "The double-dummy analysis at load time").
ANALYSE_TASK_BYTES = 1 << 18
# With --decisions a deal costs a thousand audits and more (docs/performance.md, "Judging
# decisions"): tasks of a few sessions' deals keep both workers busy to the end.
DECISIONS_TASK_BYTES = 1 << 13


@dataclass(frozen=True)
class AnalyseSpec:
    choice: RuleChoice
    json: bool
    indent: bool
    colour: bool
    max_nodes: int
    limits: Limits = LIMITS
    decisions: Sampling | None = None  # --decisions (docs/judging-decisions.md)
    findings_only: bool = False  # only the deals with findings, and only their findings


@dataclass(frozen=True)
class Sampling:
    """``--samples`` and ``--seed`` of ``--decisions`` (the commands' defaults:
    ``engine.judging.DEFAULT_SAMPLES`` and 0)."""

    samples: int
    seed: int = 0


def analyse_batch(task: tuple[Task, AnalyseSpec]) -> list[Rendered]:
    """analyse's step: audit, analyse and render a task's documents (in a worker process or
    here)."""
    from loo_replay.engine.analysis import SKIPPED, DealAnalysis, analyse_deal, start_of_play
    from loo_replay.output.analysis import rendered_analysis
    from loo_replay.output.decisions import Judged

    source, spec = task
    batch = []
    for doc in documents(source, spec.limits):
        if isinstance(doc, UnreadableFile):
            batch.append(rendered_analysis(doc, [], spec.json, spec.indent, spec.colour))
            continue
        item = audit_document(doc, spec.choice, start_of_play, limits=spec.limits)
        analyses: list[DealAnalysis] = []
        judged: list[DealDecisions] = []
        if isinstance(item, SessionReport):
            options = item.options
            analyses = [
                analyse_deal(d, options, spec.max_nodes)
                if options is not None
                else DealAnalysis(SKIPPED, str(d.status))
                for d in item.deals
            ]
            if spec.decisions is not None:
                judged = _judged(item, spec.decisions)
        only = spec.findings_only
        if spec.decisions is None:
            batch.append(
                rendered_analysis(
                    item, analyses, spec.json, spec.indent, spec.colour, None, None, only
                )
            )
            continue
        extra = Judged(judged)
        batch.append(
            rendered_analysis(
                item, analyses, spec.json, spec.indent, spec.colour, extra.summary(), extra, only
            )
        )
    return batch


def _judged(item: SessionReport, sampling: Sampling) -> list[DealDecisions]:
    from loo_replay.engine.judging import SKIPPED, DealDecisions, judge_deal

    options = item.options
    if options is None:
        return [DealDecisions(SKIPPED, "not_audited") for _ in item.deals]
    return [judge_deal(d, options, sampling.samples, sampling.seed, item.id) for d in item.deals]


def rendered(
    paths: Iterable[Path],
    spec: S,
    jobs: int = 1,
    scheduler: str | None = None,
    render: Callable[[tuple[Task, S]], list[Rendered]] = render_batch,  # type: ignore[assignment]
    task_bytes: int = TASK_BYTES,
    limits: Limits = LIMITS,
) -> Iterator[Rendered]:
    """Every document under ``paths`` audited and rendered by ``render``, in input order:
    in this process, in ``jobs`` local processes, or on the Dask cluster at ``scheduler``.
    What this process reads is read within ``limits``; ``render`` reads within its spec's."""
    # One job reads here in any case: a file streamed line by line, not planned in pieces.
    carry = scheduler is not None or jobs <= 1
    work = ((task, spec) for task in tasks(paths, task_bytes, carry, limits))
    results = dask_map(render, work, scheduler) if scheduler else ordered_map(render, work, jobs)
    for batch in results:
        yield from batch

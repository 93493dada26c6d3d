"""Read, audit and render hand logs, in one process or many.

Worker processes receive batches of raw documents and return rendered
``Piece``s, so only bytes cross process boundaries; ``--jobs N`` output is
identical to one job's because batches come back in input order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from loo_replay.audit import AuditItem, UnreadableFile, audit_document, read_paths
from loo_replay.collector import fewer_collections
from loo_replay.logs.reader import Document
from loo_replay.output.audit_json import Piece, json_piece
from loo_replay.output.text import text_piece
from loo_replay.parallel import batched, dask_map, ordered_map
from loo_replay.rulesets import RuleChoice

S = TypeVar("S")
# Documents per task: enough to amortise a process hop, few enough that the last tasks
# leave no worker idle for long (64 sessions of 100 deals left one core waiting up to a
# second at the end of a run) and memory stays small.
BATCH = 16


@dataclass(frozen=True)
class RenderSpec:
    choice: RuleChoice
    json: bool
    indent: bool = False
    colour: bool = False
    findings_only: bool = False  # only the deals with findings


def render_batch(task: tuple[list[Document | UnreadableFile], RenderSpec]) -> list[Piece]:
    batch, spec = task
    pieces = []
    with fewer_collections():
        for doc in batch:
            if isinstance(doc, UnreadableFile):
                item: AuditItem = doc
            else:  # rendering reads the verdicts only: their replays go deal by deal
                item = audit_document(doc, spec.choice, keep=False)
            if spec.json:
                pieces.append(json_piece(item, spec.indent, spec.findings_only))
            else:
                pieces.append(text_piece(item, spec.colour, spec.findings_only))
    return pieces


def rendered(
    paths: Iterable[Path],
    spec: S,
    jobs: int = 1,
    scheduler: str | None = None,
    render: Callable[[tuple[list[Document | UnreadableFile], S]], list[Piece]] = render_batch,  # type: ignore[assignment]
) -> Iterator[Piece]:
    """Every document under ``paths`` audited and rendered by ``render``, in input order:
    in this process, in ``jobs`` local processes, or on the Dask cluster at ``scheduler``."""
    docs = read_paths(paths, parse=False)
    tasks = ((batch, spec) for batch in batched(docs, BATCH))
    results = dask_map(render, tasks, scheduler) if scheduler else ordered_map(render, tasks, jobs)
    for pieces in results:
        yield from pieces

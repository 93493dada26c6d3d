"""``run.render.tasks``: the input cut into tasks that workers read themselves, or that carry
their documents, renders the same output whatever the cut and the number of jobs."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from loo_replay.logs.pieces import Piece
from loo_replay.output.json_document import write_audit
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import UnreadableFile
from loo_replay.run.render import RenderSpec, rendered, tasks

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _audit(paths: list[Path], task_bytes: int, jobs: int = 1) -> bytes:
    out = io.BytesIO()
    spec = RenderSpec(RuleChoice(), True)
    write_audit(rendered(paths, spec, jobs, task_bytes=task_bytes), out)
    return out.getvalue()


def _corpus(tmp_path: Path) -> list[Path]:
    """A JSON Lines file of every sample session (blank lines between), the same gzipped,
    and a missing path between them."""
    lines = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        lines.extend(path.read_bytes().splitlines())
    plain = tmp_path / "all.jsonl"
    plain.write_bytes(b"\n\n".join(lines) + b"\n")
    packed = tmp_path / "all.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    return [plain, tmp_path / "missing.jsonl", packed]


def test_a_file_cut_into_many_pieces_audits_as_one(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    cut = list(tasks(paths, 1))
    pieces = [t for t in cut if isinstance(t, Piece)]
    assert len(pieces) > 3  # one piece a line: each worker reads its own
    assert [p.first_line for p in pieces] == sorted(p.first_line for p in pieces)
    assert len(cut) > len(pieces)  # the missing path and the gzip file are carried
    whole = _audit(paths, 1 << 30)
    assert _audit(paths, 1) == whole
    assert _audit(paths, 1, jobs=2) == whole
    assert b"missing.jsonl: no such file or directory" in whole


def test_every_task_carries_its_documents_for_a_cluster(tmp_path: Path) -> None:
    """Bound for Dask, whose workers may not see this machine's files, no task is a
    piece to read; an unreadable path is a task of its own, in its place."""
    paths = _corpus(tmp_path)
    carried = list(tasks(paths, 1, carry=True))
    assert all(isinstance(t, list) for t in carried)
    missing = [t for t in carried if isinstance(t, list) and isinstance(t[0], UnreadableFile)]
    assert len(missing) == 1
    assert carried.index(missing[0]) > 0

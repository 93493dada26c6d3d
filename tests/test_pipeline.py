"""``run.driver``'s planning for validate and analyse: the input cut into pieces that workers
read themselves, or into tasks that carry their documents, renders the same output whatever
the cut and the number of jobs, with a path that cannot be read in its place."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from loo_replay.logs.limits import LIMITS
from loo_replay.logs.pieces import Piece
from loo_replay.output.json_document import write_audit
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import UnreadableFile
from loo_replay.run.driver import Carried, each_document, planned, tasks
from loo_replay.run.render import RenderSpec, render_documents

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _audit(paths: list[Path], task_bytes: int, jobs: int = 1) -> bytes:
    out = io.BytesIO()
    spec = RenderSpec(RuleChoice(), True)
    write_audit(each_document(paths, render_documents, spec, LIMITS, jobs, None, task_bytes), out)
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
    units = planned(paths, 1)
    pieces = [p for u in units if isinstance(u, tuple) for p in u if p.stop is not None]
    assert len(pieces) > 3  # one piece a line: each worker reads its own
    assert [p.first_line for p in pieces] == sorted(p.first_line for p in pieces)
    missing = [u for u in units if isinstance(u, UnreadableFile)]
    assert len(missing) == 1 and 0 < units.index(missing[0]) < len(units) - 1  # in its place
    whole = _audit(paths, 1 << 30)
    assert _audit(paths, 1) == whole
    assert _audit(paths, 1, jobs=2) == whole
    assert _audit(paths, 1 << 30, jobs=2) == whole
    assert b"missing.jsonl: no such file or directory" in whole


def test_one_process_streams_each_file_whole(tmp_path: Path) -> None:
    """Without workers nothing is cut: each file is one piece, read from its start."""
    units = planned(_corpus(tmp_path), None)
    pieces = [p for u in units if isinstance(u, tuple) for p in u]
    assert [p.stop for p in pieces] == [None, None]
    assert all(isinstance(p, Piece) and p.first and p.last for p in pieces)


def test_every_task_carries_its_documents_for_a_cluster(tmp_path: Path) -> None:
    """Bound for Dask, whose workers may not see this machine's files, no task is a
    piece to read; an unreadable path is a task of its own, in its place."""
    carried = list(tasks(planned(_corpus(tmp_path), None), LIMITS, 1, carry_all=True))
    assert all(isinstance(t, Carried | UnreadableFile) for t in carried)
    missing = [t for t in carried if isinstance(t, UnreadableFile)]
    assert len(missing) == 1
    assert carried.index(missing[0]) > 0
    assert sum(isinstance(t, Carried) for t in carried) > 3  # in tasks of about a byte


def test_workers_read_plain_json_lines_and_are_carried_the_rest(tmp_path: Path) -> None:
    plain, _, packed = _corpus(tmp_path)
    cut = list(tasks(planned([plain, packed], 1 << 30), LIMITS, 1 << 30, carry_all=False))
    assert not isinstance(cut[0], Carried | UnreadableFile)  # read by a worker
    assert cut[0][0].file == str(plain)
    assert isinstance(cut[-1], Carried)  # the gzip file, read here

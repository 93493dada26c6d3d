"""A plain JSON Lines file cut into pieces at line ends: every line in exactly one piece,
numbered as in the whole file, and the last piece's worth of a longer file in quarters."""

from __future__ import annotations

from pathlib import Path

from loo_replay.logs.pieces import plan_pieces, read_piece
from loo_replay.logs.reader import read_documents

LINE = 100  # bytes a line, its newline included


def _log(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "big.jsonl"
    path.write_bytes(
        b"".join(b'{"n":%06d,"pad":"%s"}\n' % (k, b"x" * (LINE - 22)) for k in range(lines))
    )
    return path


def test_the_last_piece_of_a_long_file_is_cut_in_quarters(tmp_path: Path) -> None:
    log = _log(tmp_path, 1_000)  # 100,000 bytes: ten pieces of 10,000
    pieces = plan_pieces([log], 10_000)
    sizes = [p.size for p in pieces]
    assert sum(sizes) == log.stat().st_size
    assert [p.start for p in pieces[1:]] == [p.start + p.size for p in pieces[:-1]]
    assert [p.first for p in pieces] == [True] + [False] * (len(pieces) - 1)
    assert [p.last for p in pieces] == [False] * (len(pieces) - 1) + [True]
    # Whole pieces while more than 20,000 bytes are left; then a piece of what is over the
    # last 10,000, and those in quarters of 2,500 (each to the end of the line it stops in).
    assert all(10_000 <= s <= 10_000 + LINE for s in sizes[:-5])
    assert sizes[-5] <= 10_000 + LINE
    assert 10_000 - LINE <= sum(sizes[-4:]) <= 10_000 + LINE
    assert all(2_500 <= s <= 2_500 + LINE for s in sizes[-4:-1])
    read = [d for p in pieces for d in read_piece(p)]
    whole = list(read_documents(log, parse=False))
    assert [(d.line, d.raw) for d in read] == [(d.line, d.raw) for d in whole]


def test_a_file_of_two_pieces_or_less_is_not_cut_in_quarters(tmp_path: Path) -> None:
    log = _log(tmp_path, 200)  # 20,000 bytes
    assert [p.size for p in plan_pieces([log], 10_000)] == [10_000 + LINE, 10_000 - LINE]
    assert [p.size for p in plan_pieces([log], 20_000)] == [20_000]

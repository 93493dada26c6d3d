"""Log files cut into pieces that processes can read on their own.

A plain JSON Lines file is cut at line ends into pieces of about ``piece_bytes``,
so that one big file spreads over worker processes, each reading its own bytes
(the process that plans them only finds and counts line ends); a ``.json`` or gzip
file is one piece.  Small whole files are then gathered into shares, read one
after another by one process, so that a file's fixed costs (a batch of frames,
a statement, a message to a worker) are paid once for many.  Pieces and shares
depend on the files only, never on the number of workers, so every ``--jobs``
audits the same documents under the same names and line numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

from loo_replay.engine.records import record
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.reader import (
    READ_BUFFER,
    Document,
    ReadError,
    log_kind,
    read_documents,
    read_lines,
)

PIECE_BYTES = 4 << 20  # ~3,000 deals of six players: seconds of auditing, not minutes


@record
class Piece:
    """Bytes [start, stop) of a plain JSON Lines file, or a whole file when ``stop`` is None;
    ``file`` is read, ``name`` is how its documents are recorded (``db.paths.log_name``)."""

    file: str
    name: str
    start: int
    stop: int | None
    first_line: int
    size: int  # bytes on disk, for progress
    first: bool  # the first piece of its file: a transaction begins
    last: bool  # the last: it commits


def plan_pieces(
    files: list[Path], piece_bytes: int | None = PIECE_BYTES, names: list[str] | None = None
) -> list[Piece]:
    """The pieces of ``files``, whose documents are named ``names`` (default: the paths);
    with ``piece_bytes`` None, each file whole, never cut (one process streams it)."""
    pieces: list[Piece] = []
    for k, path in enumerate(files):
        file = str(path)
        name = names[k] if names is not None else file
        try:
            size = path.stat().st_size
            splittable = log_kind(path) == "jsonl" and not file.lower().endswith(".gz")
            if not splittable or piece_bytes is None:
                points = []
            elif size <= piece_bytes:  # one piece: the file need not be read to know it
                points = [(0, 1)]
            else:
                points = _split_points(path, piece_bytes, size)
        except OSError:
            size, points = 0, []  # the reader reports it
        if not points:
            pieces.append(Piece(file, name, 0, None, 1, size, True, True))
            continue
        bounds = [*points, (size, 0)]
        for i, ((start, line), (stop, _)) in enumerate(itertools.pairwise(bounds)):
            pieces.append(
                Piece(file, name, start, stop, line, stop - start, i == 0, i == len(points) - 1)
            )
    return pieces


# Pieces read one after another by one process: a piece of a file cut in several, alone, or
# whole files together (``share``).
Share = tuple[Piece, ...]


def share(pieces: list[Piece], share_bytes: int, share_files: int) -> list[Share]:
    """``pieces`` in input order, consecutive whole files of at most ``share_bytes`` in all
    together, ``share_files`` at most: 3,000 files of one deal had cost a batch of frames
    each, 15 Arrow tables of a row or two, about 4 ms of a file's 7 (docs/performance.md,
    "The loader").  A piece of a file cut in several is a share of its own."""
    shares: list[Share] = []
    held: list[Piece] = []
    size = 0
    for piece in pieces:
        whole = piece.first and piece.last
        if held and (not whole or size + piece.size > share_bytes or len(held) >= share_files):
            shares.append(tuple(held))
            held, size = [], 0
        if not whole:
            shares.append((piece,))
            continue
        held.append(piece)
        size += piece.size
    if held:
        shares.append(tuple(held))
    return shares


def _split_points(path: Path, piece_bytes: int, size: int) -> list[tuple[int, int]]:
    """(offset, line number) where each piece starts: just after a newline.  The last
    ``piece_bytes`` of a file of more than two pieces are cut in quarters: the workers'
    last pieces then end closer together, and the loader has less left to load once they
    are done."""

    def step(start: int) -> int:
        left = size - start
        if size <= 2 * piece_bytes or left > 2 * piece_bytes:
            return piece_bytes
        return left - piece_bytes if left > piece_bytes else max(piece_bytes // 4, 1)

    points = [(0, 1)]
    newlines = 0  # before ``pos``
    pos = 0
    target = step(0)
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            counted = 0  # the block's bytes whose newlines ``newlines`` holds
            while target < pos + len(block):
                i = block.find(b"\n", max(target - pos, 0))
                if i < 0:
                    break  # the line goes on into the next block
                newlines += _newlines(block, counted, i + 1)
                counted = i + 1
                points.append((pos + counted, 1 + newlines))
                target = pos + counted + step(pos + counted)
            newlines += _newlines(block, counted, len(block))
            pos += len(block)
    if len(points) > 1 and points[-1][0] >= pos:
        points.pop()  # nothing after the last newline
    return points


def _newlines(block: bytes, start: int, stop: int) -> int:
    """The newlines in ``block[start:stop]``, found one by one: ``find`` runs at memory
    speed and a log's lines are long (a session each), where ``count`` of one byte looks at
    every byte in turn (docs/performance.md, "What remains between the ratio and 1")."""
    n = 0
    i = block.find(b"\n", start, stop)
    while i >= 0:
        n += 1
        i = block.find(b"\n", i + 1, stop)
    return n


def read_piece(piece: Piece, limits: Limits = LIMITS) -> Iterator[Document]:
    """The documents of a piece, numbered as ``read_documents`` numbers the whole file, and
    not yet parsed (the audit reads them, plainly or in full: ``audit_document``); a line
    past ``limits`` is yielded rejected, as ``read_documents`` does."""
    path = Path(piece.file)
    if piece.stop is None:
        yield from read_documents(path, parse=False, name=piece.name, limits=limits)
        return
    try:
        with path.open("rb", buffering=READ_BUFFER) as stream:
            stream.seek(piece.start)
            size = piece.stop - piece.start
            yield from read_lines(stream, piece.name, limits, None, piece.first_line, size)
    except OSError as exc:
        raise ReadError(f"{path}: cannot read: {exc.strerror or exc}") from None

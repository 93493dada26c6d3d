"""``loo-replay seal``: seals added to logs written by other means, each file whole or not
at all.

Every value of the log stays as it is: the session gains its ``seal`` and each deal its
own, at the end of their objects, and the file is written again (JSON Lines one document
a line, a ``.json`` file indented, gzip kept) through ``files.py``.  Sealing over a chain
that does not hold would launder a change, so it is refused unless ``renew`` says the
change is meant.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import orjson

from loo_replay.errors import InputError
from loo_replay.evidence.codes import code
from loo_replay.evidence.seals import BROKEN, SEALED, UNSEALABLE, check, sealed
from loo_replay.files import write_atomic
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.reader import ReadError, log_kind, read_documents


class SealRefused(InputError):
    """A log that cannot be sealed, or not without ``--renew``."""


@dataclass(frozen=True, slots=True)
class SealedFile:
    """A file sealed: where it was written, its sessions, how many were sealed already
    and how many were sealed again over a broken chain (``--renew``)."""

    path: Path
    sessions: int
    already: int
    renewed: int
    last_codes: tuple[tuple[str, str | None], ...]  # each session's id and its last code


def _where(path: Path, line: int | None) -> str:
    return str(path) if line is None else f"{path} line {line}"


def seal_file(
    path: Path, out: Path | None = None, renew: bool = False, limits: Limits = LIMITS
) -> SealedFile:
    """Seal every session of ``path`` and write it to ``out`` (default: ``path`` itself)."""
    target = path if out is None else out
    if log_kind(path) is None:
        raise SealRefused(
            f"{path}: not a hand log (expected .json, .jsonl, .ndjson, optionally .gz)"
        )
    if out is not None and log_kind(out) != log_kind(path):
        raise SealRefused(f"--out {out}: not the same kind of file as {path}")
    lines: list[bytes] = []
    already = renewed = 0
    codes: list[tuple[str, str | None]] = []
    try:
        docs = list(read_documents(path, limits=limits))
    except ReadError as exc:
        raise SealRefused(str(exc)) from None
    for doc in docs:
        where = _where(path, doc.line)
        if doc.error is not None:
            raise SealRefused(f"{where}: cannot be sealed: {doc.error}")
        value = doc.value
        session = value.get("session") if isinstance(value, dict) else None
        if not isinstance(value, dict) or not isinstance(value.get("deals"), list):
            raise SealRefused(f"{where}: not a session document (no deals array)")
        if not isinstance(session, dict):
            raise SealRefused(f"{where}: the session is not a JSON object")
        found = check(value)
        if found.status == UNSEALABLE:
            raise SealRefused(f"{where}: cannot be sealed: {found.at} {found.reason}")
        if found.status == BROKEN:
            if not renew:
                raise SealRefused(
                    f"{where}: the seals are broken at {found.at}: the log was changed after "
                    "it was sealed; sealing it again would hide that (use --renew if the "
                    "change is meant)"
                )
            renewed += 1
        already += found.status == SEALED
        sid = session.get("id")
        last = code(found.seals[-1]) if len(found.seals) > 1 else None
        codes.append((sid if isinstance(sid, str) else where, last))
        document = sealed(value, found.seals)
        # a .json file written over several lines stays so; one line stays one line
        indent = orjson.OPT_INDENT_2 if b"\n" in doc.raw.strip() else 0
        lines.append(orjson.dumps(document, option=indent) + b"\n")
    data = b"".join(lines)
    if target.name.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_atomic(target, data)
    return SealedFile(target, len(docs), already, renewed, tuple(codes))

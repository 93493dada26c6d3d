"""The log files a command line names: the one path expander of every command.

A file is taken as named; a folder stands for every hand-log file below it
(``log_kind``), in sorted order of their paths relative to it.  The folder is
walked here, entry by entry (docs/limits.md, "What is read from a folder"):

- a symbolic link is followed, to a file or a folder; a folder is walked once
  however many links lead to it, and a link back to a folder that holds it (a
  loop) is skipped;
- an entry that cannot be followed or read is *skipped* with its reason, never
  passed over in silence: a folder that cannot be read, a symbolic link to
  nothing or in a loop, an entry that cannot be examined, and a pipe, socket or
  device bearing a hand-log name;
- files that are not hand logs by name (a README, a picture, the simulator's
  ``.truth.json``) are not input, and neither is a folder loo-replay wrote as
  output (it holds a manifest, ``files.MANIFEST``, or is a replay folder of an
  earlier version's report: ``replays/<session>/stamp.json``).

A path given on the command line that cannot be read at all raises
``ReadError`` with one sentence; a skipped entry below it is a ``Skipped``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from loo_replay.engine.records import field, record
from loo_replay.files import MANIFEST
from loo_replay.logs.reader import ReadError, log_kind

# What an earlier version's report left in each replay folder (reports/replays.py: STAMP).
_LEGACY_STAMP = ("replays", "stamp.json")
_NOT_FILES = {
    stat.S_IFIFO: "a pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


@record(slots=True)
class Skipped:
    """An entry of a folder that looks like input and cannot be read, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"skipped {self.path}: {self.reason}"


@record(frozen=False)
class Expanded:
    """What the paths of a command line hold: log files, entries skipped, and the paths
    that could not be read at all (one sentence each)."""

    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _is_output(folder: Path, names: set[str]) -> bool:
    """Whether ``folder`` (holding ``names``) is a folder loo-replay wrote as output."""
    return MANIFEST in names or (
        _LEGACY_STAMP[1] in names and folder.parent.name == _LEGACY_STAMP[0]
    )


def _broken(path: Path, exc: OSError) -> Skipped:
    """Why ``path``, whose ``stat`` failed with ``exc``, is skipped."""
    if exc.errno == errno.ELOOP:
        return Skipped(str(path), "a symbolic link in a loop")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR) and path.is_symlink():
        return Skipped(str(path), f"a symbolic link to nothing ({os.readlink(path)})")
    return Skipped(str(path), f"cannot be examined ({_why(exc)})")


def entries(given: Path) -> list[Path | Skipped]:
    """The log files named by ``given`` and the entries below it that were skipped, in
    sorted order of their paths; ``ReadError`` if ``given`` itself cannot be read."""
    try:
        st = given.stat()
    except OSError as exc:
        if exc.errno == errno.ENOENT and not given.is_symlink():
            raise ReadError(f"{given}: no such file or directory") from None
        raise ReadError(str(_broken(given, exc)).removeprefix("skipped ")) from None
    if stat.S_ISREG(st.st_mode):
        if log_kind(given) is None:
            raise ReadError(
                f"{given}: not a hand log (expected .json, .jsonl, .ndjson, optionally .gz)"
            )
        return [given]
    if not stat.S_ISDIR(st.st_mode):
        kind = _NOT_FILES.get(stat.S_IFMT(st.st_mode), "not a file")
        raise ReadError(f"{given}: {kind}, not a file or folder of hand logs")
    try:
        found = _walk(given, (st.st_dev, st.st_ino))
    except OSError as exc:
        raise ReadError(f"{given}: cannot read this folder ({_why(exc)})") from None
    if not found:  # a folder named for its logs that holds none: nothing to audit
        raise ReadError(
            f"{given}: no hand logs in this folder (.json, .jsonl, .ndjson, optionally .gz)"
        )
    return [entry for _, entry in sorted(found, key=lambda pair: pair[0])]


def _walk(root: Path, root_id: tuple[int, int]) -> list[tuple[str, Path | Skipped]]:
    """(relative path, entry) of everything under ``root`` that is, or looks like, input;
    an ``OSError`` only when ``root`` itself cannot be read.  A stack, not recursion: a
    folder nested ten thousand deep is walked like any other."""
    found: list[tuple[str, Path | Skipped]] = []
    seen = {root_id}  # folders and files reached: each is read once
    stack: list[tuple[Path, str, frozenset[tuple[int, int]]]] = [(root, "", frozenset(seen))]
    while stack:
        folder, rel, holders = stack.pop()
        try:
            with os.scandir(folder) as it:
                listed = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if folder == root:
                raise
            found.append((rel, Skipped(str(folder), f"a folder that cannot be read ({_why(exc)})")))
            continue
        if _is_output(folder, {e.name for e in listed}):
            continue
        below: list[tuple[Path, str, frozenset[tuple[int, int]]]] = []
        for entry in listed:
            path = folder / entry.name
            key = f"{rel}/{entry.name}" if rel else entry.name
            try:
                st = entry.stat()
            except FileNotFoundError:
                if entry.is_symlink():
                    found.append((key, _broken(path, FileNotFoundError(errno.ENOENT, ""))))
                continue  # removed while being walked
            except OSError as exc:
                found.append((key, _broken(path, exc)))
                continue
            ident = (st.st_dev, st.st_ino)
            if stat.S_ISDIR(st.st_mode):
                if ident in holders:
                    why = "a symbolic link to a folder that holds it (a loop)"
                    found.append((key, Skipped(str(path), why)))
                elif ident not in seen:
                    seen.add(ident)
                    below.append((path, key, holders | {ident}))
            elif log_kind(path) is None or ident in seen:
                continue
            elif stat.S_ISREG(st.st_mode):
                seen.add(ident)
                found.append((key, path))
            else:
                kind = _NOT_FILES.get(stat.S_IFMT(st.st_mode), "not a file")
                found.append((key, Skipped(str(path), f"{kind}, not a file")))
        stack.extend(reversed(below))  # walked in sorted order
    return found


def expand(paths: Iterable[Path]) -> Expanded:
    """Every log file under ``paths``, in order, with what was skipped and the paths that
    could not be read (``entries`` of each)."""
    result = Expanded()
    for given in paths:
        try:
            for entry in entries(given):
                if isinstance(entry, Skipped):
                    result.skipped.append(entry)
                else:
                    result.files.append(entry)
        except ReadError as exc:
            result.errors.append(str(exc))
    return result

"""Every file loo-replay writes, written safely; and what it may remove of its own.

``write_atomic`` is the one way a file is written (docs/limits.md, "What is written and
removed"): a temporary file made by ``tempfile.mkstemp`` in the target's folder (O_EXCL and
O_NOFOLLOW: a name planted there, a symbolic link included, is never opened), written,
fsynced, then renamed over the target with ``os.replace``, which replaces a symbolic link
at the target rather than writing through it.  A reader, or a crash, sees the old file or
the new one, never a part.

An output folder (``report --out``, ``export --parquet``) holds a manifest of what was
written there, ``.loo-replay-manifest.json``: a later run removes only what it lists, and
refuses a folder that holds anything else (``claim``).  A folder an earlier version wrote,
without a manifest, is adopted when everything in it bears a name that version gave.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import BinaryIO

import orjson

from loo_replay.engine.records import record
from loo_replay.errors import OutputError

MANIFEST = ".loo-replay-manifest.json"
_PREFIX = ".loo-"  # temporary files: dotfiles, which no reader takes for input


class OutputRefused(OutputError, OSError):
    """An output folder that holds files loo-replay did not write: nothing is written."""


@cache
def _file_mode() -> int:
    """The mode an ordinary ``open`` would give a new file (``mkstemp`` makes it 0600)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def fsync_folder(folder: Path) -> None:
    """Make a new or replaced name in ``folder`` survive a crash."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C held over the block, then delivered: a temporary file (or folder) made and
    its name kept in a variable, or neither.  Between ``mkstemp`` making the file and
    returning its name, a KeyboardInterrupt would leave a file no one can remove.
    Python raises it in the main thread only, where its handler can be swapped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    earlier = signal.signal(signal.SIGINT, lambda number, _frame: held.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, earlier)
    if held:
        signal.raise_signal(signal.SIGINT)  # to the handler there was: raised here


# The marker in a working folder of ``staging``: whose it is, so that a later run may remove
# it once that process is gone (a kill -9 runs no ``finally``).
STAGE_MARKER = ".loo-replay-stage.json"


def _process_started(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (Linux's ``/proc``), or None
    where that cannot be read: with the id, it tells a process from a later one that was
    given the same id."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rpartition(b")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _gone(pid: int, started: int | None) -> bool:
    """Whether process ``pid`` (started at ``started``) has ended."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # someone else's process: alive
        return False
    now = _process_started(pid)
    return started is not None and now is not None and now != started


def _host() -> str:
    """This machine's name, as ``socket.gethostname`` says it (both ask the kernel's
    ``uname``), without importing ``socket``: every command that reads a log imports
    this module, and ``socket`` cost it 10 million instructions."""
    return os.uname().nodename


def _stale(stage: Path) -> bool:
    """Whether ``stage`` is a working folder of ``staging`` whose process has ended: a real
    folder (not a link) holding loo-replay's marker, written on this machine by a process
    that is gone.  Anything else, a folder without the marker included, is not ours to
    remove."""
    try:
        if stage.is_symlink() or not stage.is_dir():
            return False
        marker = orjson.loads((stage / STAGE_MARKER).read_bytes())
        pid, host, started = marker["pid"], marker["host"], marker["started"]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return False
    if marker.get("written_by") != "loo-replay" or host != _host():
        return False
    if not isinstance(pid, int) or pid <= 0 or not isinstance(started, int | None):
        return False
    return pid != os.getpid() and _gone(pid, started)


def remove_stale_stages(folder: Path) -> list[Path]:
    """Remove the working folders that ``staging`` made in ``folder`` for processes that
    have ended without removing them (killed); those removed.  Nothing without the marker
    of a process that is gone is touched."""
    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(_PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        path = Path(entry.path)
        if _stale(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


@contextlib.contextmanager
def staging(folder: Path) -> Iterator[Path]:
    """A private new folder in ``folder`` for files another library writes, removed with
    whatever is left in it when the block ends.  It holds a marker naming this process
    (``STAGE_MARKER``, which ``move_tree`` does not move), and the stale folders of killed
    runs in ``folder`` are removed first (``remove_stale_stages``)."""
    remove_stale_stages(folder)
    stage = None
    try:
        with _ctrl_c_held():
            stage = Path(tempfile.mkdtemp(dir=folder, prefix=_PREFIX))
        pid = os.getpid()
        marker = {
            "written_by": "loo-replay",
            "pid": pid,
            "host": _host(),
            "started": _process_started(pid),
        }
        (stage / STAGE_MARKER).write_bytes(orjson.dumps(marker))
        yield stage
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)


@contextlib.contextmanager
def replacing(path: Path, *, durable: bool = False) -> Iterator[BinaryIO]:
    """A file to write that replaces ``path`` once the block ends without an error (and
    is removed if it does not), never through a symbolic link; with ``durable`` the
    folder is fsynced too, so that the new name survives a crash."""
    temporary = None
    try:
        with _ctrl_c_held():
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=_PREFIX, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), _file_mode())
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    if durable:
        fsync_folder(path.parent)


def write_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace ``path`` by ``data``, whole or not at all (``replacing``)."""
    with replacing(path, durable=durable) as f:
        f.write(data)


def move_tree(stage: Path, folder: Path) -> list[str]:
    """Move every file made in ``stage`` (a ``tempfile.mkdtemp`` folder, of files another
    library wrote) to the same place under ``folder``, each by ``os.replace`` with the mode
    ``open`` would have given it; their names, relative to ``folder``.

    Each folder under ``stage`` is removed once its files are moved (``os.rmdir``: only if
    it is empty), the deepest first, so that ``stage`` is left holding its marker alone.  An
    export of a million deals makes 80,000 session folders there: left to the final
    ``shutil.rmtree``, which lists, stats and opens each one again, they were walked for
    minutes after the export was written, and a process that died in that walk left tens
    of thousands of empty folders behind (benchmarks/results/million.md)."""
    moved: list[str] = []
    for base, _dirs, names in os.walk(stage, topdown=False):
        rel = Path(base).relative_to(stage)
        (folder / rel).mkdir(parents=True, exist_ok=True)
        for name in names:
            if name == STAGE_MARKER and not rel.parts:
                continue
            os.chmod(os.path.join(base, name), _file_mode(), follow_symlinks=False)
            os.replace(os.path.join(base, name), folder / rel / name)
            moved.append((rel / name).as_posix())
        if rel.parts:
            with contextlib.suppress(OSError):  # not empty (a link to a folder): rmtree's
                os.rmdir(base)
    return moved


def _write_manifest(folder: Path, names: Iterable[str], finished: bool) -> None:
    data = {"written_by": "loo-replay", "finished": finished, "files": sorted(names)}
    write_atomic(folder / MANIFEST, orjson.dumps(data) + b"\n")


@record
class Claim:
    """An output folder made ours: what an earlier run wrote there (relative names)."""

    folder: Path
    earlier: frozenset[str]

    def finish(self, written: Iterable[str]) -> None:
        """Remove what the earlier run wrote and this one did not (and the folders that
        leaves empty), nothing else; then record ``written`` as the finished manifest."""
        kept = frozenset(written)
        emptied: set[Path] = set()
        for name in sorted(self.earlier - kept):
            path = self.folder / name
            with contextlib.suppress(FileNotFoundError):
                if path.is_symlink() or not path.is_dir():
                    path.unlink()
            emptied.update(p for p in path.parents if self.folder in p.parents)
        for parent in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):  # not empty, or gone: left alone
                parent.rmdir()
        _write_manifest(self.folder, kept, finished=True)


def _listing(folder: Path) -> list[str]:
    """Every file and symbolic link under ``folder`` (relative, ``/``-separated), dotfiles
    and dot-folders left out; symbolic links to folders are not followed."""
    found: list[str] = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = Path(base).relative_to(folder)
        found += [(rel / name).as_posix() for name in files if not name.startswith(".")]
        found += [(rel / d).as_posix() for d in dirs if os.path.islink(os.path.join(base, d))]
    return found


def claim(folder: Path, names: tuple[str, ...], what: str) -> Claim:
    """``folder`` as an output folder of ours (created if need be), or ``OutputRefused``
    when it holds anything its manifest does not list.  Without a finished manifest (an
    earlier version wrote the folder, or a run was interrupted) the files whose names
    match the patterns ``names`` that loo-replay gives are taken as ours.  ``what`` names
    the output in the refusal (``the report``).  The manifest is marked unfinished until
    ``Claim.finish``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if folder.is_symlink() or not folder.is_dir():
            raise OutputRefused(f"{folder} is not a folder")
        present = _listing(folder)
    except OutputRefused:
        raise
    except OSError as exc:
        raise OutputRefused(f"cannot write to {folder}: {exc.strerror or exc}") from None
    ours: set[str] = set()
    finished = False
    try:
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
        ours = {str(name) for name in manifest["files"]}
        finished = manifest.get("finished") is True
    except FileNotFoundError:
        pass
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise OutputRefused(
            f"{folder / MANIFEST} cannot be read ({exc}); nothing written"
        ) from None
    if not finished:
        ours |= {name for name in present if any(fnmatch.fnmatch(name, p) for p in names)}
    foreign = [name for name in present if name not in ours]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise OutputRefused(
            f"{folder} holds {foreign[0]}{more}, which loo-replay did not write; write {what} "
            "to an empty folder, or to one that loo-replay wrote"
        )
    earlier = frozenset(ours) & frozenset(present)
    _write_manifest(folder, earlier, finished=False)
    return Claim(folder, earlier)

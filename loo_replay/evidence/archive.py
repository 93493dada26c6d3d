"""A stranger's zip, read safely: every member checked before anything is extracted, then
extracted into a temporary folder of our own, counting what is decompressed.

What a zip says of itself is not trusted.  Before a byte is extracted, every member's name
is checked (no absolute path, no ``..``, no link, no duplicate, no two names the same but
for case or Unicode form, no encrypted member, no method but stored or deflated) and the
number of members is held to its limit.  While extracting, the bytes are counted as they
come out of the decompressor, not read from the headers: the total, and each member's
ratio of decompressed to compressed bytes once past ``RATIO_FLOOR``, stop the extraction
the moment they pass their limits (docs/limits.md, "Evidence bundles").  Files are created
with ``O_EXCL`` and ``O_NOFOLLOW`` under a folder made for the purpose, which the caller
removes (``files.staging``).
"""

from __future__ import annotations

import os
import stat
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path, PurePosixPath

from loo_replay.errors import InputError
from loo_replay.logs.limits import RATIO_FLOOR

_CHUNK = 1 << 16
_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})


class ArchiveError(InputError):
    """An archive refused: unreadable, or past a limit, or holding a name we will not write."""


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """What one archive may hold, each raised by its option (``OPTIONS``)."""

    members: int = 10_000  # entries of the zip, folders included
    total_bytes: int = 1 << 30  # bytes of every member together, decompressed
    ratio: int = 200  # a member's decompressed over compressed bytes, once past RATIO_FLOOR

    def __post_init__(self) -> None:
        for field in fields(self):
            if getattr(self, field.name) < 1:
                raise ValueError(f"the limit {field.name} must be 1 or more")


ARCHIVE_LIMITS = ArchiveLimits()
OPTIONS = {
    "members": "--max-archive-members",
    "total_bytes": "--max-archive-bytes",
    "ratio": "--max-archive-ratio",
}


def _over(name: str, limit: int, what: str) -> ArchiveError:
    label = {"members": "member count", "total_bytes": "total size", "ratio": "compression ratio"}
    return ArchiveError(
        f"{what}: over the archive's {label[name]} limit of {limit:,} "
        f"(raise it with {OPTIONS[name]})"
    )


def _is_link(info: zipfile.ZipInfo) -> bool:
    """A symbolic link (or any file neither regular nor a folder: a device, a fifo) as a Unix
    zip tool records it, in the file type of the high half of the external attributes; a
    type left at 0, as many tools write it, is a regular file."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    return info.create_system == 3 and kind not in (0, stat.S_IFREG, stat.S_IFDIR)


def _name_problem(name: str) -> str | None:
    """Why a member's name will not be written, or None."""
    if not name or any(ord(c) < 32 or c == "\x7f" for c in name):
        return "has an empty name or a control character in it"
    if "\\" in name:
        return "has a backslash in its name"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is an absolute path"
    parts = name.rstrip("/").split("/")
    if ".." in parts:
        return "climbs out of the archive with '..'"
    if any(part in ("", ".") for part in parts):
        return "has an empty or '.' part in its name"
    return None


def checked_members(archive: zipfile.ZipFile, limits: ArchiveLimits) -> list[zipfile.ZipInfo]:
    """The archive's files (folders left out), each name checked; ``ArchiveError`` names
    the first member refused and why."""
    infos = archive.infolist()
    if len(infos) > limits.members:
        raise _over("members", limits.members, f"the archive holds {len(infos):,} members")
    seen: dict[str, str] = {}
    files = []
    for info in infos:
        name = info.filename
        shown = repr(name)
        if problem := _name_problem(name):
            raise ArchiveError(f"member {shown} {problem}; nothing extracted")
        if _is_link(info):
            raise ArchiveError(f"member {shown} is a link, not a file; nothing extracted")
        if info.flag_bits & 0x1:
            raise ArchiveError(f"member {shown} is encrypted; nothing extracted")
        key = unicodedata.normalize("NFC", name.rstrip("/")).casefold()
        if key in seen:
            same = (
                "is a duplicate of"
                if seen[key] == name
                else "differs only by case or Unicode form from"
            )
            raise ArchiveError(f"member {shown} {same} {seen[key]!r}; nothing extracted")
        seen[key] = name
        if info.is_dir():
            continue
        if info.compress_type not in _METHODS:
            raise ArchiveError(
                f"member {shown} is compressed by method {info.compress_type}, "
                "not stored or deflated; nothing extracted"
            )
        files.append(info)
    _no_file_under_a_file(files)
    return files


def _no_file_under_a_file(files: list[zipfile.ZipInfo]) -> None:
    """A name that is both a file and a folder of another (``a`` and ``a/b``)."""
    names = {unicodedata.normalize("NFC", f.filename).casefold() for f in files}
    for info in files:
        for parent in PurePosixPath(info.filename).parents:
            if str(parent) != "." and unicodedata.normalize("NFC", str(parent)).casefold() in names:
                raise ArchiveError(
                    f"member {info.filename!r} lies under {str(parent)!r}, which is a file; "
                    "nothing extracted"
                )


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    with archive.open(info) as member:
        while chunk := member.read(_CHUNK):
            yield chunk


def _create(path: Path) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)


def extract(zip_path: Path, folder: Path, limits: ArchiveLimits = ARCHIVE_LIMITS) -> list[str]:
    """Every file of the zip at ``zip_path`` extracted under ``folder`` (new and empty, ours),
    within ``limits``; their names.  ``ArchiveError`` when the archive cannot be read or is
    refused; what was extracted before a limit was passed stays for the caller to remove
    with ``folder``."""
    try:
        archive = zipfile.ZipFile(zip_path)
    except FileNotFoundError:
        raise ArchiveError(f"{zip_path}: no such file") from None
    except IsADirectoryError:
        raise ArchiveError(f"{zip_path} is a folder, not a zip file") from None
    except OSError as exc:
        raise ArchiveError(f"cannot read {zip_path}: {exc.strerror or exc}") from None
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise ArchiveError(f"{zip_path} is not a readable zip file ({exc})") from None
    with archive:
        members = checked_members(archive, limits)
        total = 0
        for info in members:
            target = folder.joinpath(*info.filename.split("/"))
            written = 0
            try:
                for parent in reversed(target.relative_to(folder).parents):
                    (folder / parent).mkdir(mode=0o700, exist_ok=True)
                fd = _create(target)
            except OSError as exc:  # the names were checked: only a full disk gets here
                raise ArchiveError(
                    f"member {info.filename!r} cannot be extracted: {exc.strerror or exc}"
                ) from None
            try:
                with os.fdopen(fd, "wb") as out:
                    for chunk in _chunks(archive, info):
                        written += len(chunk)
                        total += len(chunk)
                        if total > limits.total_bytes:
                            raise _over(
                                "total_bytes", limits.total_bytes,
                                f"the archive decompresses to more than {limits.total_bytes:,} bytes",
                            )  # fmt: skip
                        if written > RATIO_FLOOR and written > limits.ratio * max(
                            info.compress_size, 1
                        ):
                            raise _over(
                                "ratio", limits.ratio,
                                f"member {info.filename!r} decompresses to over {limits.ratio} "
                                "times its compressed size",
                            )  # fmt: skip
                        out.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
                raise ArchiveError(
                    f"member {info.filename!r} of {zip_path} cannot be read ({exc})"
                ) from None
            except RuntimeError as exc:  # zipfile's word for an encrypted member it met
                raise ArchiveError(f"member {info.filename!r}: {exc}") from None
        return [info.filename for info in members]

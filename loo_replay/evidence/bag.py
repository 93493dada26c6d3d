"""A BagIt bag (RFC 8493), written as a zip with the same bytes every time, and checked.

The manifests and tag files are written here rather than by ``bagit.make_bag``: that
function bags a folder in place, stamps today's date and its own version into
``bag-info.txt``, and writes files whose order and times a zip would carry, so two runs
would differ.  Writing four small text files in a fixed order is what makes the same
inputs and ``SOURCE_DATE_EPOCH`` give the same bytes.  Checking, on the other hand, is the
``bagit`` library's (the Library of Congress's reference implementation): its manifests
parser, its completeness check and its fixity check, whose findings are named file by file.

The zip's members follow one order (the tag files, then the payload, sorted), each with
the time of ``SOURCE_DATE_EPOCH`` (else now), the mode 0644, a Unix origin and deflate at
zlib's default level, under one folder named after the bundle.
"""

from __future__ import annotations

import hashlib
import logging
import time
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import bagit

BAGIT_TXT = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
MANIFEST = "manifest-sha256.txt"
TAGMANIFEST = "tagmanifest-sha256.txt"
TAG_FILES = ("bagit.txt", "bag-info.txt", MANIFEST, TAGMANIFEST)
_CHUNK = 1 << 20
# bagit logs each finding at WARNING; the findings are returned, and said once, by us.
logging.getLogger("bagit").addHandler(logging.NullHandler())
logging.getLogger("bagit").propagate = False


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _encoded(name: str) -> str:
    """A file name as RFC 8493 §2.1.3 writes it in a manifest: CR, LF and % encoded."""
    return name.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def manifest(digests: Mapping[str, str]) -> bytes:
    """``digest  name`` lines, sorted by name."""
    return "".join(f"{digests[n]}  {_encoded(n)}\n" for n in sorted(digests)).encode("utf-8")


def bag_info(fields: Iterable[tuple[str, str]]) -> bytes:
    """``Label: value`` lines in the order given; a value is one line."""
    return "".join(f"{label}: {' '.join(value.split())}\n" for label, value in fields).encode()


def zip_time(epoch: int) -> tuple[int, int, int, int, int, int]:
    """A zip member's time for ``epoch`` (UTC), no earlier than 1980, which zip cannot say."""
    t = time.gmtime(max(epoch, 315532800))
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


@dataclass(frozen=True)
class Member:
    """A file of the bag: its bytes, or a file to stream them from."""

    name: str  # relative to the bag, ``/``-separated
    data: bytes | Path


def write_zip(
    out: BinaryIO, top: str, tags: list[Member], payload: list[Member], epoch: int
) -> None:
    """The bag as a zip on ``out``: ``tags`` in their order, then ``payload`` sorted by name,
    each under ``top/``."""
    when = zip_time(epoch)
    with zipfile.ZipFile(out, "w") as archive:
        for member in [*tags, *sorted(payload, key=lambda m: m.name)]:
            info = zipfile.ZipInfo(f"{top}/{member.name}", date_time=when)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            if isinstance(member.data, bytes):
                archive.writestr(info, member.data)
                continue
            info.file_size = member.data.stat().st_size
            with member.data.open("rb") as src, archive.open(info, "w") as dst:
                while chunk := src.read(_CHUNK):
                    dst.write(chunk)


def bag_root(folder: Path, names: list[str]) -> Path | None:
    """Where ``bagit.txt`` is among the extracted ``names``: at the top, or in the one
    folder the archive holds."""
    if "bagit.txt" in names:
        return folder
    tops = {name.split("/", 1)[0] for name in names}
    if len(tops) == 1 and f"{next(iter(tops))}/bagit.txt" in names:
        return folder / next(iter(tops))
    return None


def _detail(detail: bagit.ManifestErrorDetail) -> str:
    name = Path(detail.path).as_posix()
    if isinstance(detail, bagit.ChecksumMismatch):
        return f"{name} changed: its sha256 is not the one its manifest records"
    if isinstance(detail, bagit.FileMissing):
        return f"{name} is missing: its manifest lists it"
    if isinstance(detail, bagit.UnexpectedFile):
        return f"{name} is an extra file: no manifest lists it"
    return f"{name}: {detail}"


def check_bag(root: Path, names_here: Iterable[str]) -> list[str]:
    """What is wrong with the bag at ``root``, each a sentence naming the file: changed,
    missing or extra (``names_here``: every file under ``root``, relative)."""
    try:
        bag = bagit.Bag(str(root))
    except bagit.BagError as exc:
        return [f"not a BagIt bag: {exc}"]
    problems: list[str] = []
    missing, extra = bag.compare_manifests_with_fs()
    problems += [_detail(bagit.FileMissing(p)) for p in sorted(missing)]
    problems += [_detail(bagit.UnexpectedFile(p)) for p in sorted(extra)]
    tagged = {Path(p).as_posix() for p in bag.tagfile_entries()}
    known = tagged | set(TAG_FILES)
    for name in sorted(names_here):
        if not name.startswith("data/") and name not in known:
            problems.append(_detail(bagit.UnexpectedFile(name)))
    for name in TAG_FILES[1:]:
        if name not in names_here:
            problems.append(f"{name} is missing: a bundle has one")
    try:
        bag.validate()
    except bagit.BagValidationError as exc:
        found = [_detail(d) for d in exc.details or []]
        problems += [p for p in found if p not in problems]
        if not found and not problems:
            problems.append(str(exc.message))
    except bagit.BagError as exc:
        problems.append(f"not a valid BagIt bag: {exc}")
    return problems

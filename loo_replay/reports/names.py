"""File names from untrusted text, and paths that cannot leave the output folder.

Session ids come from logs (any text of 1 to 128 characters: ``../../evil``,
``/etc/passwd``, ``CON``, emoji); a file name made from one keeps only
harmless ASCII and a short hash of the original, so two ids that clean to
the same text still get distinct files.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

from loo_replay.files import write_atomic

MAX_NAME = 80
_HASH = 8  # hex digits of sha256: distinct ids stay distinct, names stay short
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class OutsideOutput(ValueError):
    """A path that would land outside the output folder (a bug, never a log's doing)."""


def safe_filename(text: str) -> str:
    """``text`` as a file name: ASCII letters, digits and ``-_.`` only, no leading dot,
    at most 80 characters, ending in a hash of the original text."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH]
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    stem = _UNSAFE.sub("-", ascii_text).strip(".-_")
    stem = stem[: MAX_NAME - _HASH - 1].rstrip(".-_")
    return f"{stem}-{digest}" if stem else digest


def session_page_name(session_id: str) -> str:
    """The file of a session's report in the output folder."""
    return f"session-{safe_filename(session_id)}.html"


def inside(root: Path, *parts: str) -> Path:
    """``root / parts``, refused unless its folder resolves inside ``root`` (no ``..``, no
    absolute part, no symbolic link leading out).  The last part is not resolved: a
    symbolic link planted there is replaced by a write (``write_atomic``), not followed."""
    base = root.resolve()
    *folders, name = parts
    parent = base.joinpath(*folders).resolve()
    if name in ("", ".", "..") or "/" in name or (parent != base and base not in parent.parents):
        raise OutsideOutput(f"{base.joinpath(*parts)} is outside the output folder {base}")
    return parent / name


def write_file(root: Path, relative: str, data: str | bytes) -> Path:
    """Write ``data`` to ``root/relative`` whole or not at all (``files.write_atomic``)."""
    path = inside(root, *relative.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data.encode("utf-8") if isinstance(data, str) else data)
    return path

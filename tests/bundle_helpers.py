"""Helpers for the bundle tests: a bundle's members read and written back, tampered with as
someone who knows the format would (manifests, statement and tag manifest made to agree)."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable
from pathlib import Path

import orjson

EPOCH = "1700000000"  # SOURCE_DATE_EPOCH of every bundle the tests make


def members(case: Path) -> tuple[str, dict[str, bytes]]:
    """The bundle's top folder and its files by their names in the bag."""
    with zipfile.ZipFile(case) as z:
        names = z.namelist()
        top = names[0].split("/")[0]
        return top, {n.removeprefix(top + "/"): z.read(n) for n in names}


def write_zip(path: Path, top: str, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(f"{top}/{name}", data)
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest(files: dict[str, bytes], names: list[str]) -> bytes:
    return "".join(f"{_sha(files[n])}  {n}\n" for n in sorted(names)).encode()


def restate(files: dict[str, bytes]) -> None:
    """The statement's digests made those of the files (as a forger would)."""
    doc = orjson.loads(files["statement.json"])
    for subject in doc["subject"]:
        subject["digest"]["sha256"] = _sha(files[subject["name"]])
    for group in ("rulesets", "outputs"):
        for name, entry in doc["predicate"][group].items():
            entry["sha256"] = _sha(files[name])
    files["statement.json"] = (
        orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    )


def remanifest(files: dict[str, bytes]) -> None:
    """The manifests, the tag manifest and Payload-Oxum made to agree with the files."""
    payload = [n for n in files if n.startswith("data/")]
    files["manifest-sha256.txt"] = _manifest(files, payload)
    size = sum(len(files[n]) for n in payload)
    info = [
        line if not line.startswith("Payload-Oxum:") else f"Payload-Oxum: {size}.{len(payload)}"
        for line in files["bag-info.txt"].decode().splitlines()
    ]
    files["bag-info.txt"] = ("\n".join(info) + "\n").encode()
    tags = [n for n in files if not n.startswith("data/") and n != "tagmanifest-sha256.txt"]
    files["tagmanifest-sha256.txt"] = _manifest(files, tags)


def tampered(
    case: Path,
    out: Path,
    change: Callable[[dict[str, bytes]], None],
    *,
    statement: bool = False,
    manifests: bool = True,
) -> Path:
    """A copy of ``case`` at ``out`` with ``change`` made to its files, then (as asked) the
    statement's digests and the manifests updated to agree."""
    top, files = members(case)
    change(files)
    if statement:
        restate(files)
    if manifests:
        remanifest(files)
    return write_zip(out, top, files)

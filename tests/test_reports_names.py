"""File names from session ids (any text from a log) stay harmless, short and distinct, and
nothing is written outside the output folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loo_replay.reports.names import OutsideOutput, inside, safe_filename, write_file

HARMLESS = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}")


@pytest.mark.parametrize(
    ("session_id", "stem"),
    [
        ("club-night-2026-11-20", "club-night-2026-11-20"),
        ("../../evil", "evil"),
        ("/etc/passwd", "etc-passwd"),
        ("..", ""),
        (".hidden", "hidden"),
        ("Café ☕ night", "Cafe-night"),
        ("<script>alert(1)</script>", "script-alert-1-script"),
        ("C:\\Windows\\system32", "C-Windows-system32"),
        ("a\x00b\u202ec", "a-bc"),  # non-ASCII without an ASCII form vanishes
        ("\ud800lone", "lone"),
    ],
)
def test_safe_filename_keeps_harmless_ascii_and_adds_a_hash(session_id: str, stem: str) -> None:
    name = safe_filename(session_id)
    assert HARMLESS.fullmatch(name), name
    digest = name.rsplit("-", 1)[-1] if stem else name
    assert re.fullmatch(r"[0-9a-f]{8}", digest)
    assert name == (f"{stem}-{digest}" if stem else digest)
    assert safe_filename(session_id) == name  # the same id, the same file


def test_ids_that_clean_alike_stay_distinct() -> None:
    ids = ["a/b", "a?b", "a b", "a-b", "a\\b", "a..b", "../a/b", "a/b/"]
    assert len({safe_filename(i) for i in ids}) == len(ids)


def test_long_ids_are_cut_to_80_characters() -> None:
    assert len(safe_filename("x" * 128)) == 80
    assert safe_filename("x" * 128) != safe_filename("x" * 127)


@given(st.text(min_size=1, max_size=200))
def test_any_text_gives_a_harmless_name(text: str) -> None:
    name = safe_filename(text)
    assert HARMLESS.fullmatch(name), name
    assert name not in (".", "..") and "/" not in name and not name.startswith(".")


def test_inside_refuses_paths_that_leave_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert inside(out, "replays", "x", "deal-1.html") == out.resolve() / "replays/x/deal-1.html"
    for parts in (("..", "evil.html"), ("/etc/passwd",), ("a", "..", "..", "b"), (".",)):
        with pytest.raises(OutsideOutput):
            inside(out, *parts)
    (out / "link").symlink_to(tmp_path)
    with pytest.raises(OutsideOutput):
        inside(out, "link", "evil.html")


def test_write_file_writes_whole_files_inside_only(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = write_file(out, "replays/s/deal-1.html", "<p>1</p>")
    assert path.read_text() == "<p>1</p>"
    assert [p.name for p in path.parent.iterdir()] == ["deal-1.html"]  # no temporary left
    with pytest.raises(OutsideOutput):
        write_file(out, "../evil.html", "x")
    assert not (tmp_path / "evil.html").exists()

"""A command line's paths are expanded by the run layer's driver, once (issue 52): the check
of the command line, the progress bar's whole and the plan see the same files
(``run.driver.Given``), and ``verify`` reads its documents through the driver."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from db_helpers import SAMPLES, run

from loo_replay.logs.limits import LIMITS
from loo_replay.logs.reader import Document
from loo_replay.run.driver import Given, documents, expanded, input_bytes, plan, unreadable

CLUB = SAMPLES / "three-card-club-night.json"


def test_given_paths_are_walked_once_and_the_plan_sees_that_walk(tmp_path: Path) -> None:
    shutil.copy(CLUB, tmp_path / "a.json")
    given = Given([tmp_path])
    (tmp_path / "b.json").write_bytes(CLUB.read_bytes())  # after the command line's check
    assert expanded(given).files == [tmp_path / "a.json"]
    assert plan(given, 1 << 20, 10, str).found.files == [tmp_path / "a.json"]
    assert expanded([tmp_path]).files == [tmp_path / "a.json", tmp_path / "b.json"]
    assert given == [tmp_path]  # still the paths as given


def test_the_input_bytes_and_the_unreadable_paths(tmp_path: Path) -> None:
    shutil.copy(CLUB, tmp_path / "a.json")
    (tmp_path / "b.jsonl").write_bytes(b"{}\n")
    given = Given([tmp_path, tmp_path / "missing.json"])
    assert input_bytes(given) == CLUB.stat().st_size + 3
    assert unreadable(given) == [f"{tmp_path / 'missing.json'}: no such file or directory"]


def test_documents_in_order_with_what_could_not_be_read_in_its_place(tmp_path: Path) -> None:
    shutil.copy(CLUB, tmp_path / "a.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "nowhere.json")
    broken = gzip.compress(b"{}\n" * 100_000)  # a gzip file broken off after some lines
    (tmp_path / "c.jsonl.gz").write_bytes(broken[: len(broken) // 2])
    found = list(documents([tmp_path], LIMITS, lambda where, why: (where, why)))
    assert isinstance(found[0], Document) and found[0].file == str(tmp_path / "a.json")
    assert found[1] == (
        str(tmp_path / "b.json"),
        f"skipped {tmp_path / 'b.json'}: a symbolic link to nothing ({tmp_path / 'nowhere.json'})",
    )
    lines = found[2:-1]  # the lines read before the break, then why it broke off
    assert lines and all(isinstance(d, Document) and d.file.endswith(".gz") for d in lines)
    last = found[-1]
    assert isinstance(last, tuple)
    where, why = last
    assert where == str(tmp_path / "c.jsonl.gz") and why.startswith(f"{where}: cannot read")


def test_verify_names_what_it_could_not_read(tmp_path: Path) -> None:
    """As before the driver read its documents: the entry or file, then why."""
    shutil.copy(CLUB, tmp_path / "a.json")
    (tmp_path / "b.json").symlink_to("nowhere.json")
    result = run("verify", tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"loo-replay: {tmp_path / 'b.json'}: skipped {tmp_path / 'b.json'}: a symbolic link to "
        "nothing (nowhere.json)"
    ]
    assert "session " in result.stdout

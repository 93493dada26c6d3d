"""Writes that a planted name cannot turn: a symbolic link at the recorder's or a report's
file is replaced, never written through; ``report --out`` and ``export --overwrite``
remove only what loo-replay wrote there and refuse a folder holding anything else
(docs/limits.md, "What is written and removed")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from db_helpers import SAMPLES, run

from loo_replay.files import MANIFEST
from loo_replay.recorder.journal import write_atomic

LOG = SAMPLES / "wrong-payouts.json"
SECRET = b"the victim's own bytes\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One small database for every test here (one session, no analysis)."""
    path = tmp_path_factory.mktemp("db") / "loo.duckdb"
    assert run("ingest", LOG, "--db", path, "--no-analysis").returncode == 0
    return path


def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_bytes(SECRET)
    return path


def test_the_journal_rewrite_replaces_a_planted_link_and_ignores_its_old_temp(
    tmp_path: Path,
) -> None:
    target = victim(tmp_path)
    log = tmp_path / "game.json"
    (tmp_path / ".game.json.tmp").symlink_to(target)  # the old fixed temporary name
    write_atomic(log, b"{}\n")
    log.unlink()
    log.symlink_to(target)  # the log itself made a link
    write_atomic(log, b'{"a": 1}\n')
    assert target.read_bytes() == SECRET
    assert not log.is_symlink() and log.read_bytes() == b'{"a": 1}\n'
    assert (tmp_path / ".game.json.tmp").is_symlink()  # not ours: left alone


def test_a_report_over_planted_links_replaces_them(tmp_path: Path, db: Path) -> None:
    out = tmp_path / "out"
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    target = victim(tmp_path)
    for name in ("index.html", "report.css"):
        (out / name).unlink()
        (out / name).symlink_to(target)
    again = run("report", "--db", db, "--out", out, "--no-replays")
    assert again.returncode == 0, again.stderr
    assert target.read_bytes() == SECRET
    assert not (out / "index.html").is_symlink() and b"<html" in (out / "index.html").read_bytes()


def test_report_refuses_a_folder_with_files_it_did_not_write(tmp_path: Path, db: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gitkeep").touch()  # dotfiles are nobody's business
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    planted = {"session-not-mine.html": b"<p>mine</p>", "notes.txt": SECRET}
    for name, data in planted.items():
        (out / name).write_bytes(data)
        refused = run("report", "--db", db, "--out", out, "--no-replays")
        assert refused.returncode == 2
        assert f"{out} holds {name}, which loo-replay did not write" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
        assert (out / name).read_bytes() == data
        (out / name).unlink()
    assert (out / ".gitkeep").exists()


def test_a_report_folder_of_an_earlier_version_is_adopted(tmp_path: Path, db: Path) -> None:
    out = tmp_path / "out"
    assert run("report", "--db", db, "--out", out).returncode == 0
    (out / MANIFEST).unlink()  # as a version before the manifest left it
    (out / "session-gone-0123abcd.html").write_text("a session no longer loaded")
    again = run("report", "--db", db, "--out", out)
    assert again.returncode == 0, again.stderr
    assert not (out / "session-gone-0123abcd.html").exists()  # its name is one it gave
    assert (out / MANIFEST).is_file()


def test_export_overwrite_removes_only_its_own_files(tmp_path: Path, db: Path) -> None:
    out = tmp_path / "parquet"
    assert run("export", "--db", db, "--parquet", out).returncode == 0
    target = victim(tmp_path)
    (out / "sessions.parquet").unlink()
    (out / "sessions.parquet").symlink_to(target)
    again = run("export", "--db", db, "--parquet", out, "--overwrite")
    assert again.returncode == 0, again.stderr
    assert target.read_bytes() == SECRET
    assert not (out / "sessions.parquet").is_symlink()
    (out / "deals" / "keep-me.txt").write_bytes(SECRET)
    refused = run("export", "--db", db, "--parquet", out, "--overwrite")
    assert refused.returncode == 2
    assert "deals/keep-me.txt, which loo-replay did not write" in refused.stderr
    assert (out / "deals" / "keep-me.txt").read_bytes() == SECRET
    assert (out / "sessions.parquet").is_file()  # nothing removed by a refusal


def test_simulate_and_a_replay_page_replace_a_planted_link(tmp_path: Path) -> None:
    target = victim(tmp_path)
    for name in ("games.jsonl", "games.truth.json", "page.html"):
        (tmp_path / name).symlink_to(target)
    assert run("simulate", "--deals", "2", "--out", tmp_path / "games.jsonl").returncode == 0
    shutil.copy(LOG, tmp_path / "log.json")
    page = run("replay", tmp_path / "log.json", "--deal", "1", "--html", tmp_path / "page.html")
    assert page.returncode in (0, 1), page.stderr
    assert target.read_bytes() == SECRET
    for name in ("games.jsonl", "games.truth.json", "page.html"):
        assert not (tmp_path / name).is_symlink()

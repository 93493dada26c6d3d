"""Names and ids that read the same, through the real commands (docs/limits.md, "Names that
read the same"): a lone surrogate in an id, session ids equal but for normalisation or an
invisible character, file names that are not UTF-8, and five players who all read "Ann".
Each asserts what the command says and keeps, and the peak memory of the command."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, sql
from explorer_helpers import serving
from test_limits import PEAK_MB, measured

# Invisible and direction characters that must never reach a terminal or a page unescaped.
HIDDEN = ("\u200b", "\u200c", "\u200d", "\u2060", "\u061c", "\u202e", "\ufeff", "\u00ad")
# Five ids, five names that read "Ann": Latin, Cyrillic А, a zero width space, a word
# joiner, an Arabic letter mark; fay is the one player told by her name alone.
ANNS = {
    "ann": "Ann",
    "bob": "\u0410nn",
    "cat": "A\u200bnn",
    "dan": "Ann\u2060",
    "eve": "Ann\u061c",
}


def _doc(sid: str, sample: str = "wrong-payouts.json") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SAMPLES / sample).read_bytes())
    doc["session"]["id"] = sid
    return doc


def _lines(*docs: dict[str, Any]) -> str:
    return "".join(json.dumps(d) + "\n" for d in docs)  # ASCII: every odd one a \u escape


def _hidden_in(text: str) -> list[str]:
    return [ch for ch in HIDDEN if ch in text]


def test_a_lone_surrogate_in_a_session_id_is_a_log_error(tmp_path: Path) -> None:
    log = tmp_path / "night.jsonl"
    log.write_text(_lines(_doc("good"), _doc("sur\ud800rogate")))
    said = 'a lone surrogate (\\ud800) in the string "sur\\ud800rogate"'
    audit, peak = measured("validate", log, "--format", "json")
    assert peak < PEAK_MB, f"{peak} MB"
    assert audit.returncode == 2
    out = json.loads(audit.stdout)
    assert [s["id"] for s in out["sessions"]] == ["good"]
    ((error,),) = [[e["message"] for e in out["errors"]]]
    assert error.startswith(said), error
    db = tmp_path / "loo.duckdb"
    loaded, peak = measured("ingest", log, "--db", db, "--no-analysis")
    assert peak < PEAK_MB, f"{peak} MB"
    assert loaded.returncode == 2, loaded.stderr
    assert sql(db, "SELECT session_id FROM sessions") == [("good",)]
    ((kind, message),) = sql(db, "SELECT kind, message FROM rejects WHERE kind <> 'deal'")
    assert kind == "document" and message.startswith(said)
    # the report holds the one session, and never says a log "no longer holds" it
    out_dir = tmp_path / "reports"
    report, peak = measured("report", "--db", db, "--out", out_dir, "--no-replays")
    assert report.returncode == 0 and peak < PEAK_MB, report.stderr
    assert "no longer holds" not in report.stdout + report.stderr


@pytest.mark.parametrize(
    ("first", "second", "spelled"),
    [
        ("caf\u00e9", "cafe\u0301", ("cafe\\u0301", "caf\\u00e9")),
        ("club-night", "club\u200b-night", ("club\\u200b-night", "club-night")),
    ],
)
def test_ids_that_read_the_same_are_a_conflict(
    tmp_path: Path, first: str, second: str, spelled: tuple[str, str]
) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(_lines(_doc(first)))
    other = _doc(second)
    other["deals"] = other["deals"][:3]  # other content
    two.write_text(_lines(other))
    db = tmp_path / "loo.duckdb"
    loaded, peak = measured("ingest", one, two, "--db", db, "--no-analysis")
    assert peak < PEAK_MB, f"{peak} MB"
    assert loaded.returncode == 1, loaded.stderr
    (said,) = [line for line in loaded.stderr.splitlines() if "conflicts" in line]
    assert said.startswith("loo-replay: session ") and "two.jsonl line 1 conflicts" in said
    assert f"its id reads the same as session {first!r}, loaded from {one} line 1" in said
    assert f"({spelled[0]} and {spelled[1]}: they differ only in Unicode normalisation" in said
    assert said.endswith("run the command again with --replace, or give the session another id")
    assert not _hidden_in(loaded.stderr)
    assert "3 in conflict" in loaded.stdout
    assert sql(db, "SELECT session_id, count(*) FROM deals GROUP BY 1") == [(first, 16)]
    # the same file again: skipped, the lookalike a conflict again; --replace takes its place
    again, _ = measured("ingest", one, two, "--db", db, "--no-analysis")
    assert again.returncode == 1 and "16 skipped" in again.stdout
    replaced, peak = measured("ingest", two, "--db", db, "--no-analysis", "--replace")
    assert replaced.returncode == 0 and peak < PEAK_MB, replaced.stderr
    assert sql(db, "SELECT session_id, count(*) FROM deals GROUP BY 1") == [(second, 3)]
    assert sql(db, "SELECT session_id FROM sessions") == [(second,)]
    for table in ("players", "documents", "rejects"):
        ids = {sid for (sid,) in sql(db, f"SELECT DISTINCT session_id FROM {table}")}
        assert first not in ids, table


def test_file_names_that_are_not_utf8_are_kept_whole(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    names = {b"bad\xff.jsonl": "ff", b"bad\xfe.jsonl": "fe", b"file:x.jsonl": "colon"}
    for raw, sid in names.items():
        with open(os.path.join(os.fsencode(folder), raw), "w") as f:
            f.write(_lines(_doc(sid)))
    db = folder / "loo.duckdb"
    loaded, peak = measured("ingest", folder, "--db", db, "--no-analysis")
    assert peak < PEAK_MB, f"{peak} MB"
    assert loaded.returncode == 0, loaded.stderr
    assert sorted(sql(db, "SELECT session_id, file FROM sessions")) == [
        ("colon", "file:file%3Ax.jsonl"),
        ("fe", "file:bad%FE.jsonl"),
        ("ff", "file:bad%FF.jsonl"),
    ]
    again, _ = measured("ingest", folder, "--db", db, "--no-analysis")
    assert again.returncode == 0 and "48 skipped (already loaded)" in again.stdout
    # the report finds each log again by its recorded name (an older database's way)
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM documents")
    con.close()
    out = tmp_path / "reports"
    report, peak = measured("report", "--db", db, "--out", out)
    assert report.returncode == 0 and peak < PEAK_MB, report.stderr
    assert "no longer" not in report.stdout + report.stderr
    assert len(list(out.rglob("deal-*.html"))) >= 3 * 16


def _anns(tmp_path: Path) -> tuple[Path, Path]:
    doc = _doc("anns", "three-card-revokes.json")
    for player in doc["session"]["players"]:
        if player["id"] in ANNS:
            player["name"] = ANNS[player["id"]]
    log = tmp_path / "anns.json"
    log.write_text(json.dumps(doc))
    return log, tmp_path / "loo.duckdb"


def test_five_names_that_read_ann_are_told_apart_in_the_terminal(tmp_path: Path) -> None:
    log, _ = _anns(tmp_path)
    replay, peak = measured("replay", log, "--deal", "1", "--no-analysis")
    assert replay.returncode == 0 and peak < PEAK_MB, replay.stderr
    assert not _hidden_in(replay.stdout)
    seats = [line.split() for line in replay.stdout.splitlines()[5:11]]
    assert [row[:2] for row in seats] == [  # each seat by id, the name beside it
        ["fay", "Fay"],
        ["ann", "Ann"],
        ["bob", "\u0410nn"],
        ["cat", "A\\u200bnn"],
        ["dan", "Ann\\u2060"],
        ["eve", "Ann\\u061c"],
    ]
    text, peak = measured("validate", log)
    assert peak < PEAK_MB and not _hidden_in(text.stdout)


def test_five_names_that_read_ann_are_told_apart_on_pages(tmp_path: Path) -> None:
    log, db = _anns(tmp_path)
    loaded, _ = measured("ingest", log, "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    page = tmp_path / "replay.html"
    replay, peak = measured("replay", log, "--deal", "1", "--no-analysis", "--html", page)
    assert replay.returncode == 0 and peak < PEAK_MB, replay.stderr
    html = page.read_text("utf-8")
    assert not _hidden_in(html)
    for shown in ("Ann (ann)", "\u0410nn (bob)", "A\\\\u200bnn (cat)", "Ann\\\\u2060 (dan)"):
        assert shown in html, shown  # the narration, as the page's JSON holds it
    with serving(db) as server:
        url = server.wait_for_url()
        with urllib.request.urlopen(url + "findings") as answer:
            findings = answer.read().decode("utf-8")
        status = Path(f"/proc/{server.proc.pid}/status").read_text()
    peak = int(status.split("VmHWM:")[1].split()[0]) // 1024
    assert peak < PEAK_MB, f"{peak} MB"
    assert not _hidden_in(findings)
    rows = re.findall(r'<tr class="violation">(.*?)</tr>', findings)
    players = {re.findall(r"<td[^>]*>(.*?)</td>", row)[3] for row in rows}
    expected = {
        "Ann (ann)",
        "\u0410nn (bob)",
        "A\\u200bnn (cat)",
        "Ann\\u2060 (dan)",
        "Ann\\u061c (eve)",
        "Fay Fielding",
    }
    assert players <= expected and len(players) >= 3, players

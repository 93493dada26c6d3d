"""How the explorer reads a session's stored document (docs/explorer.md, "Every deal replays
from the database"): the one row, stored as it is across several of DuckDB's blocks for a
long session; a database whose documents DuckDB compressed (before version 12) converted
when served, its deals replayed; a document past ``--max-document-bytes`` a page that says
so.  Through the real ``ingest`` and ``serve``."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import duckdb
import pytest
from db_helpers import SAMPLES, run
from explorer_helpers import serving
from test_db_schema import _load_at

from loo_replay.db import migrations
from loo_replay.explorer import deals


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return int(answer.status), answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _replay(base: str, session: str, deal: int) -> tuple[int, str]:
    return _get(base + "replay?" + urlencode({"session": session, "deal": deal}))


def _body_storage(db: Path) -> tuple[set[str], int]:
    """The compressions DuckDB stores ``documents.body`` with, and how many blocks it spans."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT compression, block_id, additional_block_ids FROM "
            "pragma_storage_info('documents') WHERE column_name = 'body' "
            "AND segment_type = 'BLOB'"
        ).fetchall()
    blocks = {b for _, first, more in rows for b in (first, *more) if b >= 0}
    return {c for c, _, _ in rows}, len(blocks)


@pytest.fixture(scope="module")
def long_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One simulated session of 1,000 deals (its document about 1.3 MB, 300 kB in LZ4),
    loaded: longer than one of DuckDB's 256 kB blocks."""
    tmp = tmp_path_factory.mktemp("long")
    log, db = tmp / "long.jsonl", tmp / "loo.duckdb"
    made = run("simulate", "--players", "6", "--deals", "1000", "--seed", "7", "--out", log)
    assert made.returncode == 0, made.stderr
    loaded = run("ingest", log, "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    return log, db


def test_a_session_longer_than_a_block_is_read_whole_and_replays_as_its_log(
    long_session: tuple[Path, Path],
) -> None:
    """The document is stored uncompressed by DuckDB (it is LZ4 already) over several
    blocks; its first deal, a deal in the middle and its last replay, each the very page
    the log's own bytes give."""
    log, db = long_session
    compressions, blocks = _body_storage(db)
    assert compressions == {"Uncompressed"} and blocks >= 2
    with duckdb.connect(str(db), read_only=True) as con:
        ((sid, last),) = con.execute(
            "SELECT session_id, max(deal) FROM deals GROUP BY 1"
        ).fetchall()
        wanted = {n: deals.read(con, sid, n) for n in (1, 500, last)}
    raw = log.read_bytes().rstrip(b"\n")
    with serving(db) as server:
        server.wait_for_url()
        for number, loaded in wanted.items():
            status, page = _replay(server.url, sid, number)
            assert status == 200, page
            from_log = deals.Loaded(loaded.job, raw, loaded.analyses, loaded.deals)
            assert page == deals.replay_page(from_log, number), number
        assert _replay(server.url, sid, last + 1)[0] == 404


def test_a_document_past_max_document_bytes_is_a_page_that_says_so(
    long_session: tuple[Path, Path],
) -> None:
    """``serve --max-document-bytes`` bounds what a replay reads, judged by the stored size
    before anything is decompressed: past it, the replay's page names the limit and its
    option (not a server error), and the other pages are served as before."""
    _, db = long_session
    with duckdb.connect(str(db), read_only=True) as con:
        ((sid, size),) = con.execute("SELECT session_id, size FROM documents").fetchall()
    with serving(db, "--max-document-bytes", str(size - 1)) as server:
        server.wait_for_url()
        status, page = _replay(server.url, sid, 1)
        assert status == 404
        assert f"a document of {size:,} bytes, more than {size - 1:,}" in page
        assert "--max-document-bytes" in page
        assert _get(server.url)[0] == 200
    with serving(db, "--max-document-bytes", str(size)) as server:
        server.wait_for_url()
        assert _replay(server.url, sid, 1)[0] == 200


def test_an_older_databases_documents_are_converted_when_served_and_replay(
    tmp_path: Path,
) -> None:
    """A database of version 11, whose ``body`` DuckDB compressed as it chose, is upgraded
    when ``serve`` starts: the same rows, stored as they are, and every session's deals
    replay from them."""
    db = tmp_path / "old.duckdb"
    logs = [SAMPLES / "three-card-revokes.json", SAMPLES / "hoyle-evening.jsonl"]
    _load_at(db, migrations.MIGRATIONS[:11], logs)
    assert _body_storage(db)[0] != {"Uncompressed"}  # as DuckDB chose: FSST, ZSTD
    query = "SELECT session_id, line, digest, size, body FROM documents ORDER BY session_id"
    with duckdb.connect(str(db), read_only=True) as con:
        before = con.execute(query).fetchall()
        firsts = con.execute("SELECT session_id, min(deal) FROM deals GROUP BY 1").fetchall()
    assert len(before) >= 2 and len(firsts) == len(before)
    with serving(db) as server:
        server.wait_for_url()
        for sid, first in firsts:
            status, page = _replay(server.url, sid, first)
            assert status == 200, page
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(query).fetchall() == before
        assert con.execute("SELECT max(version) FROM schema_version").fetchall() == [
            (migrations.VERSION,)
        ]
        (index,) = con.execute("SELECT index_name FROM duckdb_indexes()").fetchall()
        assert index == ("documents_session",)
    assert _body_storage(db)[0] == {"Uncompressed"}


def test_pages_asked_for_at_once_each_get_theirs_and_leave_the_file_free(
    long_session: tuple[Path, Path],
) -> None:
    """Every request attaches the database to the server's one in-memory DuckDB under a
    name of its own and detaches it: many at once each get their page, and once they are
    answered nothing holds the file, so that ``ingest`` can write to it."""
    from concurrent.futures import ThreadPoolExecutor

    log, db = long_session
    with duckdb.connect(str(db), read_only=True) as con:
        ((sid,),) = con.execute("SELECT session_id FROM sessions").fetchall()
    with serving(db) as server:
        server.wait_for_url()
        urls = [
            server.url + "replay?" + urlencode({"session": sid, "deal": n}) for n in range(1, 9)
        ]
        urls += [server.url, server.url + "players", server.url + "findings"] * 4
        with ThreadPoolExecutor(len(urls)) as pool:
            answers = list(pool.map(_get, urls))
        assert [status for status, _ in answers] == [200] * len(urls)
        alone = [_get(url) for url in urls[:8]]  # the same replays, one at a time
        assert answers[:8] == alone and len({page for _, page in alone}) == 8
        again = run("ingest", log, "--db", db, "--no-analysis", "--replace")
        assert again.returncode == 0, again.stderr

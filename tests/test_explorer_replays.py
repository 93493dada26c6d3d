"""The explorer's replays (explorer/deals.py) against the reports' own: every deal of real
sessions, loaded by the real ingest, rendered from the stored document with only the deals
up to it audited, is the very page a whole audit of the session gives."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from db_helpers import SAMPLES, counts, run
from test_db_schema import _load_at

from loo_replay.db import migrations, opening
from loo_replay.explorer import deals
from loo_replay.replayer.html import Links, render_page
from loo_replay.replayer.judged import as_loaded
from loo_replay.replayer.steps import build_replay
from loo_replay.reports.replays import loaded_report
from loo_replay.run.audit import SessionReport


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("replays") / "loo.duckdb"
    logs = (
        "three-card-revokes.json",
        "hoyle-evening.jsonl",
        "modern-online.jsonl.gz",
        "broken-deals.json",
    )
    result = run("ingest", *(SAMPLES / name for name in logs), "--db", db)
    assert result.returncode in (0, 2), result.stderr
    return db


def test_every_deal_replayed_from_its_first_deals_is_the_whole_audits_page(db: Path) -> None:
    with duckdb.connect(str(db), read_only=True) as con:
        ids = [r[0] for r in con.execute("SELECT session_id FROM sessions ORDER BY 1").fetchall()]
        assert len(ids) >= 4
        checked = misdeals = 0
        for sid in ids:
            first = deals.read(con, sid, 1)
            assert first.raw is not None
            whole = loaded_report(first.job, first.raw)
            assert isinstance(whole, SessionReport)
            numbers = [d.number for d in whole.deals if d.number in first.deals]
            assert sorted(first.deals) == numbers  # every audited deal and misdeal, only those
            for at, (index, deal) in enumerate(
                (i, d) for i, d in enumerate(whole.deals) if d.number in first.deals
            ):
                assert deal.number is not None
                one = deals.read(con, sid, deal.number)  # as serve reads it: this deal's analysis
                assert set(one.analyses) <= {index}
                links = Links(
                    deals.session_link(sid),
                    (numbers[at - 1], deals.deal_link(sid, numbers[at - 1])) if at else None,
                    (numbers[at + 1], deals.deal_link(sid, numbers[at + 1]))
                    if at + 1 < len(numbers)
                    else None,
                )
                analysis = one.analyses.get(index)
                rp = build_replay(whole, deal, one.job.analysed, analysis=analysis)
                rp = as_loaded(rp, one.decisions.get(index))  # the seat views, any decisions
                assert deals.replay_page(one, deal.number) == render_page(rp, links), (sid, index)
                checked += 1
                misdeals += deal.status == "misdeal"
    assert checked > 50 and misdeals > 0


def test_a_rejected_or_missing_deal_says_why(db: Path) -> None:
    with duckdb.connect(str(db), read_only=True) as con:
        (sid, deal), *_ = con.execute(
            "SELECT session_id, deal FROM rejects WHERE kind = 'deal' ORDER BY ALL"
        ).fetchall()
        one = deals.read(con, sid, deal)
        missing = deals.read(con, sid, 9999)
    with pytest.raises(deals.NoReplay, match="rejected"):
        deals.replay_page(one, deal)
    with pytest.raises(deals.NoSuchDeal, match="has no deal 9999"):
        deals.replay_page(missing, 9999)


def test_a_session_loaded_before_documents_were_kept_says_how_to_add_one(tmp_path: Path) -> None:
    """A database of schema version 7 is upgraded as serve starts; its sessions have no
    document until ``ingest --replace`` loads their logs again."""
    db = tmp_path / "old.duckdb"
    log = SAMPLES / "three-card-revokes.json"
    _load_at(db, migrations.MIGRATIONS[:7], [log])
    opening.open_db(db).close()  # what serve's start does (db.opening.ready)
    with duckdb.connect(str(db), read_only=True) as con:
        (sid,) = con.execute("SELECT session_id FROM sessions").fetchone() or ("",)
        old = deals.read(con, sid, 1)
    assert old.raw is None and old.deals
    with pytest.raises(deals.NoReplay, match="ingest --replace"):
        deals.replay_page(old, min(old.deals))
    again = run("ingest", log, "--db", db, "--replace")
    assert again.returncode == 0 and counts(again)["loaded"] == 24, again.stdout
    with duckdb.connect(str(db), read_only=True) as con:
        again = deals.read(con, sid, 1)
    assert "<script" in deals.replay_page(again, min(again.deals))

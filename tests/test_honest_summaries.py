"""A page that found nothing says how much it could not judge (issue 43, part 3): the fairness
page's "nothing flagged" with the tests that had too few deals, and every "no violations" or
"no discrepancies" of the reports with the deals rejected for log errors and those recorded
with hands left out.  The counts are read from the database the real ``audit`` wrote."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from db_helpers import run

from loo_replay.reports import queries
from loo_replay.reports.names import session_page_name

LOGS = ("broken-deals.json", "three-card-club-night.json", "three-card-table-recorded.json")


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The database and the reports of three samples: rejected deals and no violation, a
    clean club night, a game recorded at a table with hands left out."""
    tmp = tmp_path_factory.mktemp("honest")
    db, out = tmp / "loo.duckdb", tmp / "reports"
    result = run("audit", *(Path("sample_logs") / n for n in LOGS), "--db", db, "--out", out)
    assert result.returncode in (0, 1), result.stderr
    return db, out


def _words(html: str) -> str:
    """Text as a reader reads it: tags and scripts dropped, spaces folded."""
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _panel(path: Path, title: str) -> str:
    """The text of the page's panel headed ``title``."""
    html = path.read_text(encoding="utf-8")
    start = html.index(f"<h2>{title}</h2>")
    return _words(html[start : html.index("</section>", start)])


def test_the_fairness_page_says_how_many_tests_had_too_few_deals(
    audited: tuple[Path, Path],
) -> None:
    db, out = audited
    with duckdb.connect(str(db), read_only=True) as con:
        sql = "SELECT count(*), count(p_value), count(*) FILTER (flagged) FROM fairness"
        total, judged, flagged = con.execute(sql).fetchone() or (0, 0, 0)
    assert flagged == 0 and 0 < judged < total  # the case of the issue: few deals, no flag
    words = _panel(out / "fairness.html", "What the tests found")
    said = f"Nothing flagged; {total - judged:,} of {total:,} tests had too few deals to judge."
    assert said in words
    assert f"The other {judged:,} are consistent with fair dealing." in words
    assert "every test is consistent" not in words


def _session(db: Path, session_id: str) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = queries.sessions(con).to_dicts()
    return next(r for r in rows if r["session_id"] == session_id)


def test_a_session_with_rejected_deals_and_no_violation_says_what_was_not_judged(
    audited: tuple[Path, Path],
) -> None:
    db, out = audited
    s = _session(db, "broken-deals-2026-11-21")
    assert s["violations"] == s["discrepancies"] == 0 and s["rejected"] > 0
    page = out / session_page_name("broken-deals-2026-11-21")
    judged = s["deals"] - s["rejected"]
    rejected = f"{s['rejected']} rejected deals (log errors) could not be judged."
    for title, what in (("Violations", "violations"), ("Discrepancies", "discrepancies")):
        said = _panel(page, title)
        assert f"No {what} in {judged} deals judged. {rejected}" in said, said


def test_hands_left_out_are_counted_where_nothing_was_found(audited: tuple[Path, Path]) -> None:
    db, out = audited
    with duckdb.connect(str(db), read_only=True) as con:
        rows = queries.sessions(con).to_dicts()
    s = next(r for r in rows if r["partial"])
    assert s["discrepancies"] == 0
    said = _panel(out / session_page_name(s["session_id"]), "Discrepancies")
    assert f"{s['partial']} deals with hands left out were judged only where the plays" in said


def test_the_all_sessions_page_and_the_empty_figure_count_the_same(
    audited: tuple[Path, Path],
) -> None:
    """Every discrepancy, over every session: none, in all the deals judged, with every
    rejected deal and every deal with hands left out counted."""
    db, out = audited
    with duckdb.connect(str(db), read_only=True) as con:
        rows = queries.sessions(con).to_dicts()
    deals, rejected, partial = (sum(r[k] for r in rows) for k in ("deals", "rejected", "partial"))
    assert sum(r["discrepancies"] for r in rows) == 0 and rejected and partial
    said = _panel(out / "all-sessions.html", "Every discrepancy")
    assert (
        f"No discrepancies in {deals - rejected} deals judged. {rejected} rejected deals "
        f"(log errors) could not be judged. {partial} deals with hands left out were judged "
        "only where the plays prove it."
    ) in said, said
    broken = _session(db, "broken-deals-2026-11-21")
    page = (out / session_page_name("broken-deals-2026-11-21")).read_text(encoding="utf-8")
    figure = page[page.index('id="fig-violations-data"') :]  # its "<br>" escaped in JSON
    judged = broken["deals"] - broken["rejected"]
    said = f"No violations in {judged} deals judged.\\u003cbr\\u003e{broken['rejected']} rejected"
    assert said in figure


def test_no_trick_thrown_away_counts_the_deals_the_analysis_could_not_solve(
    audited: tuple[Path, Path],
) -> None:
    """The game recorded at a table: the analysis skips deals with hands left out, so its
    "no card threw a trick away" says how many it solved and how many it could not."""
    db, out = audited
    with duckdb.connect(str(db), read_only=True) as con:
        rows = queries.sessions(con).to_dicts()
        skipped = con.execute(
            "SELECT count(*) FROM analysis_deals WHERE status <> 'solved'"
        ).fetchone() or (0,)
    s = next(r for r in rows if r["partial"])
    assert skipped[0] > 0 and s["solved"] < s["deals"] - s["rejected"]
    said = _panel(out / session_page_name(s["session_id"]), "Tricks thrown away")
    left = s["deals"] - s["rejected"] - s["solved"]
    assert (
        f"No card threw a trick away in {s['solved']} deal(s) analysed; {left} deal(s) could not"
        in said
    )

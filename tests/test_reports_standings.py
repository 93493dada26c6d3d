"""What the pages say, against the hand-worked session (``report_helpers``: the arithmetic is
in its docstring), loaded twice by the real ingest and written by the real report (issue 13,
point 7): names where the log gives them, ids otherwise; discrepancies in words; stacks below
zero as debts; the all-sessions standings and its list of every finding, linked to replays.

``hand-a`` names nobody.  ``hand-n`` names ann and bob (not cat), gives every player 10 chips
and records deal 2's payouts wrong (bob 3; the rules give 2).  Bob's stack: 10, then
0, +2, -3, -15 a deal: 10, 12, 9, -6, so he ends owing 6.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import plotly.graph_objects as go  # type: ignore[import-untyped]
import pytest
from report_helpers import hand_doc, load

from loo_replay.reports import across_figures, queries, session_figures
from loo_replay.reports.build import write_reports
from loo_replay.reports.names import session_page_name
from loo_replay.reports.replays import folder

NAMES = {"ann": "Ann Pepys", "bob": "Robert Hooke"}


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[duckdb.DuckDBPyConnection, Path]]:
    tmp = tmp_path_factory.mktemp("standings")
    named = hand_doc("hand-n", chips={"ann": 10, "bob": 10, "cat": 10}, started_at="2026-11-21")
    for player in named["session"]["players"]:
        if player["id"] in NAMES:
            player["name"] = NAMES[player["id"]]
    named["deals"][1]["recorded"] = {"payouts": {"bob": 3, "ann": 1}}
    db = load(tmp, {"a.json": hand_doc("hand-a", started_at="2026-11-20"), "n.json": named})
    out = tmp / "out"
    with duckdb.connect(str(db), read_only=True) as con:
        write_reports(con, out, source="loo.duckdb")
    connection = duckdb.connect(str(db), read_only=True)
    yield connection, out
    connection.close()


def _shown_text(page: str) -> str:
    """The page's text as a reader sees it: no scripts, no tags."""
    page = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_standings_per_player_over_every_session(
    built: tuple[duckdb.DuckDBPyConnection, Path],
) -> None:
    con, out = built
    rows = {r["player"]: r for r in queries.standings(con).to_dicts()}
    # Net per session: ann +3, bob -16, cat -4; four audited deals each; bob looed at deal 4,
    # cat at 2 (3 chips each time); bob's revoke at deal 4.
    assert {
        p: (r["sessions"], r["deals"], r["net"], r["loos"], r["loo_chips"], r["violations"])
        for p, r in rows.items()
    } == {
        "ann": (2, 8, 6, 0, 0, 0),
        "bob": (2, 8, -32, 2, 6, 2),
        "cat": (2, 8, -8, 2, 6, 0),
    }
    assert list(rows) == ["ann", "cat", "bob"]  # the most chips won first
    assert queries.player_names(con) == NAMES
    page = (out / "all-sessions.html").read_text()
    standings = page[page.index("<h2>Standings</h2>") : page.index("fig-pool-sizes")]
    order = [standings.index(n) for n in ("Ann Pepys", ">cat<", "Robert Hooke")]
    assert order == sorted(order)
    assert '<span class="red">−32</span>' in standings


def test_every_violation_and_discrepancy_links_to_its_replay(
    built: tuple[duckdb.DuckDBPyConnection, Path],
) -> None:
    _, out = built
    page = (out / "all-sessions.html").read_text()
    violations = page[page.index("<h2>Every violation</h2>") : page.index("<h2>Every discrepancy")]
    for sid in ("hand-a", "hand-n"):
        link = f"{folder(sid)}/deal-4.html"
        assert f'href="{link}"' in violations and (out / link).is_file()
        assert f'href="{session_page_name(sid)}"' in violations
    assert violations.count('<tr class="violation">') == 2
    discrepancies = page[page.index("<h2>Every discrepancy</h2>") :]
    assert f'href="{folder("hand-n")}/deal-2.html"' in discrepancies
    assert "Robert Hooke&#x27;s payout: recorded 3, the rules give 2" in discrepancies


def test_discrepancies_read_as_words_not_field_names(
    built: tuple[duckdb.DuckDBPyConnection, Path],
) -> None:
    _, out = built
    shown = _shown_text((out / session_page_name("hand-n")).read_text())
    assert "Robert Hooke's payout: recorded 3, the rules give 2" in shown.replace("&#x27;", "'")
    assert "Ann Pepys's payout: recorded 1, the rules give 1" not in shown  # ann's was right
    assert "payouts.bob" not in shown


def test_a_stack_below_zero_is_a_debt_in_the_table_and_the_chart(
    built: tuple[duckdb.DuckDBPyConnection, Path],
) -> None:
    con, out = built
    shown = _shown_text((out / session_page_name("hand-n")).read_text())
    assert "owes 6" in shown  # bob's last stack, -6
    fig = go.Figure(session_figures.chips_figure(con, "hand-n", {}))
    bob = next(t for t in fig.data if t.name == "Robert Hooke")
    assert list(bob.y) == [10, 10, 12, 9, -6]
    assert bob.hovertext[-1] == "Robert Hooke: stack owes 6"
    assert [a.text for a in fig.layout.annotations] == ["0 chips: below this line, owing"]
    plain = go.Figure(
        session_figures.chips_figure(con, "hand-a", {})
    )  # net chips, no stacks: no debt
    assert not plain.layout.annotations


def test_figures_and_tables_name_players_where_the_log_does(
    built: tuple[duckdb.DuckDBPyConnection, Path],
) -> None:
    con, out = built
    loo = go.Figure(session_figures.loo_figure(con, "hand-n", {}))
    assert list(loo.data[0].x) == ["Ann Pepys", "Robert Hooke", "cat"]
    assert list(go.Figure(session_figures.loo_figure(con, "hand-a", {})).data[0].x) == [
        "ann",
        "bob",
        "cat",
    ]
    (bars,) = go.Figure(session_figures.violations_figure(con, "hand-n", {})).data
    assert bars.name == "Robert Hooke"
    grid = go.Figure(across_figures.loo_rates_by_session_figure(con, queries.player_names(con)))
    assert list(grid.data[0].y) == ["Ann Pepys", "Robert Hooke", "cat"]
    shown = _shown_text((out / session_page_name("hand-n")).read_text())
    # The deals table: deal 2 dealt by ann, cat looed 3; deal 4 dealt by cat, bob looed 3.
    assert re.search(r"Ann Pepys\s+3 single", shown)
    assert "Robert Hooke 3" in shown

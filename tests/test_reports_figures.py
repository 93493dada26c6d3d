"""The report's figures against the hand-worked session (``report_helpers``: the arithmetic
is in its docstring), loaded into DuckDB by the real ingest: every trace must carry the
values worked out by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import plotly.graph_objects as go  # type: ignore[import-untyped]
import pytest
from report_helpers import NET_SO_FAR, POOL_NEXT, POOL_START, hand_doc, load

from loo_replay.reports import across_figures, figures, queries, session_figures
from loo_replay.reports.figures import PALETTE, assign_colours, label, log_axis

CHIPS = {"ann": 100, "bob": 100, "cat": 100}


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    tmp = tmp_path_factory.mktemp("figures")
    db = load(
        tmp,
        {
            "a.json": hand_doc("hand-a", venue="The Cocoa Tree", started_at="2026-11-20T19:30:00Z"),
            "b.json": hand_doc("hand-b", chips=CHIPS, started_at="2026-11-21T19:30:00Z"),
        },
    )
    connection = duckdb.connect(str(db), read_only=True)
    yield connection
    connection.close()


def valid(spec: figures.Figure) -> go.Figure:
    """The spec as plotly.py reads it: every attribute validated (a typo raises), and
    reachable as ``fig.data[0].x``."""
    return go.Figure(spec)


def _trace(fig: Any, name: str) -> Any:
    (found,) = [t for t in fig.data if t.name == name]
    return found


def test_pool_figure_draws_pool_start_and_carried_with_a_gap_at_the_rejected_deal(
    con: duckdb.DuckDBPyConnection,
) -> None:
    fig = valid(session_figures.pool_figure(con, "hand-a"))
    start, carried = _trace(fig, "pool at the deal"), _trace(fig, "pool carried")
    assert list(start.x) == [1, 2, 3, 4, 5]
    assert list(start.y) == [*POOL_START, None]
    assert list(carried.x) == [1, 2, 3, 4, 5]
    assert list(carried.y) == [*POOL_NEXT, None]
    assert fig.layout.yaxis.type == "linear"  # 17 / 2 is no balloon
    assert [a.text for a in fig.layout.annotations] == ["deal 5 rejected"]
    assert [s.x0 for s in fig.layout.shapes] == [5]


def test_pool_figure_marks_the_loos_on_the_carried_pool_and_the_revoke(
    con: duckdb.DuckDBPyConnection,
) -> None:
    fig = valid(session_figures.pool_figure(con, "hand-a"))
    assert [t.name for t in fig.data] == ["pool at the deal", "pool carried", "revoke", "loo"]
    loo = _trace(fig, "loo")
    assert (list(loo.x), list(loo.y)) == ([2, 4], [3, 17])  # cat looed 3 at deal 2, bob at 4
    assert list(loo.hovertext) == ["deal 2: looed cat 3", "deal 4: looed bob 3"]
    revoke = _trace(fig, "revoke")
    assert (list(revoke.x), list(revoke.y)) == ([4], [17])
    assert list(revoke.hovertext) == ["deal 4: revoke by bob (follow-suit)"]


def test_loo_figure_rates_per_player_declaration_and_seat(con: duckdb.DuckDBPyConnection) -> None:
    fig = valid(session_figures.loo_figure(con, "hand-a", assign_colours(queries.seating(con))))
    per_player, own, miss, seat = fig.data
    assert list(per_player.x) == ["ann", "bob", "cat"]
    assert list(per_player.y) == [0.0, pytest.approx(1 / 3), pytest.approx(1 / 3)]
    assert list(per_player.text) == ["0/3", "1/3", "1/3"]
    # ann: the Miss at deal 1, her own hand at 2 and 4; bob defended at 3 (the Miss).
    assert list(own.text) == ["0/2", "1/2", "1/3"]
    assert list(miss.text) == ["0/1", "0/1", "–"]
    assert list(miss.y) == [0.0, 0.0, None]
    # Eldest (1): ann, bob, cat, ann, none looed; 2: cat at 2 and bob at 4, both looed;
    # the dealer (3): cat, ann, bob.
    assert list(seat.x) == ["1 eldest", "2", "3 dealer"]
    assert list(seat.text) == ["0/4", "2/2", "0/3"]
    assert list(seat.y) == [0.0, 1.0, 0.0]


def test_chips_figure_is_net_so_far_without_stacks(con: duckdb.DuckDBPyConnection) -> None:
    fig = valid(session_figures.chips_figure(con, "hand-a", {}))
    assert fig.layout.title.text == "Net chips over the deals"
    assert {t.name: (list(t.x), list(t.y)) for t in fig.data} == {
        p: ([1, 2, 3, 4], totals) for p, totals in NET_SO_FAR.items()
    }


def test_chips_figure_is_stacks_from_the_start_with_chips(con: duckdb.DuckDBPyConnection) -> None:
    fig = valid(session_figures.chips_figure(con, "hand-b", {}))
    assert fig.layout.title.text == "Stacks over the deals"
    assert {t.name: (list(t.x), list(t.y)) for t in fig.data} == {
        p: ([0, 1, 2, 3, 4], [100] + [100 + v for v in totals]) for p, totals in NET_SO_FAR.items()
    }


@pytest.mark.parametrize("session", ["hand-a", "hand-b"])
def test_chips_figure_shows_the_last_deals_chips_clear_of_the_edge(
    con: duckdb.DuckDBPyConnection, session: str
) -> None:
    """issue 55: as steps ("hv"), each deal's chips hold until the next deal, so the last
    deal's had no width at the plot's edge: a dot marks it, half a deal inside the axis."""
    fig = valid(session_figures.chips_figure(con, session, {}))
    for t in fig.data:
        assert "markers" in t.mode, t.name
        sizes = list(t.marker.size)
        assert sizes[-1] > 0 and set(sizes[:-1]) == {0}, (t.name, sizes)
        assert t.marker.color == t.line.color
    assert list(fig.layout.xaxis.range) == [fig.data[0].x[0], 4.5]  # the last deal is 4


def test_violations_figure_by_rule_and_player(con: duckdb.DuckDBPyConnection) -> None:
    colours = assign_colours(queries.seating(con))
    fig = valid(session_figures.violations_figure(con, "hand-a", colours))
    (bob,) = fig.data
    assert (bob.name, list(bob.x), list(bob.y)) == ("bob", ["follow-suit"], [1])
    assert bob.marker.color == colours["bob"]


def test_player_colours_are_distinct_at_a_table_and_the_same_everywhere(
    con: duckdb.DuckDBPyConnection,
) -> None:
    colours = assign_colours(queries.seating(con))
    assert len({colours[p] for p in ("ann", "bob", "cat")}) == 3
    fig = valid(session_figures.loo_figure(con, "hand-b", colours))
    assert list(fig.data[0].marker.color) == [colours[p] for p in ("ann", "bob", "cat")]
    chips = valid(session_figures.chips_figure(con, "hand-b", colours))
    assert [t.line.color for t in chips.data] == [colours[p] for p in ("ann", "bob", "cat")]


def test_colours_avoid_those_already_at_the_table() -> None:
    import polars as pl

    seating = pl.DataFrame(
        {"session_id": ["s1", "s1", "s2", "s2", "s3", "s3"], "player": list("abcdac")}
    )
    colours = assign_colours(seating)
    assert colours["a"] != colours["c"]  # met at s3, coloured apart at s1 and s2
    assert set(colours.values()) <= set(PALETTE)


def test_all_sessions_figures(con: duckdb.DuckDBPyConnection) -> None:
    colours = assign_colours(queries.seating(con))
    rates = valid(across_figures.loo_rates_figure(con, colours))
    (bars,) = rates.data
    assert list(bars.x) == ["bob", "cat", "ann"]  # highest rate first, then by id
    assert list(bars.text) == ["2/6", "2/6", "0/6"]
    by_player = dict(
        con.execute("SELECT player, loo_rate FROM player_stats ORDER BY player").fetchall()
    )
    assert list(bars.y) == [pytest.approx(by_player[p]) for p in ("bob", "cat", "ann")]
    grid = valid(across_figures.loo_rates_by_session_figure(con))
    assert list(grid.data[0].x) == ["hand-a", "hand-b"]  # in date order
    assert list(grid.data[0].y) == ["ann", "bob", "cat"]
    assert [list(row) for row in grid.data[0].text] == [
        ["0/3", "0/3"],
        ["1/3", "1/3"],
        ["1/3", "1/3"],
    ]
    rules = valid(across_figures.violations_by_ruleset_figure(con))
    assert (list(rules.data[0].x), list(rules.data[0].y)) == (["three-card"], ["follow-suit"])
    assert [list(row) for row in rules.data[0].z] == [[2]]
    pools = valid(across_figures.pool_sizes_figure(con))
    (box,) = pools.data
    assert list(box.x) == ["hand-a", "hand-b"]
    # POOL_START sorted is 3 3 5 6: quartiles by linear interpolation at 0.75, 1.5 and 2.25.
    assert sorted(POOL_START) == [3, 3, 5, 6]
    assert (list(box.lowerfence), list(box.upperfence)) == ([3, 3], [6, 6])
    assert (list(box.q1), list(box.median), list(box.q3)) == ([3, 3], [4, 4], [5.25, 5.25])


def test_a_ballooning_pool_gets_a_log_axis_and_an_empty_pool_a_gap() -> None:
    assert log_axis([3, 15, 99, 301])
    assert not log_axis([3, 15, 99, 300, 0, None])
    rows = [
        {"deal": 1, "pool_start": 3, "pool_next": 400},
        {"deal": 2, "pool_start": 403, "pool_next": 0},
    ]
    lines = session_figures.pool_lines(rows, [3], log=True)
    assert lines["deal"] == [1, 2, 3]
    assert lines["pool_next"] == [400, None, None]
    assert session_figures.pool_lines(rows, [], log=False)["pool_next"] == [400, 0]


def test_sample_unlimited_session_is_drawn_on_a_log_axis(tmp_path: Path) -> None:
    from db_helpers import SAMPLES

    from loo_replay.db.ingest import ingest
    from loo_replay.rulesets import RuleChoice

    db = tmp_path / "u.duckdb"
    ingest([SAMPLES / "hoyle-unlimited-balloon.json"], db, RuleChoice())
    with duckdb.connect(str(db), read_only=True) as c:
        fig = valid(session_figures.pool_figure(c, "unlimited-2026-11-25"))
        ((biggest,),) = c.execute("SELECT max(pool_start) FROM deals").fetchall()
    assert fig.layout.yaxis.type == "log" and "log scale" in fig.layout.title.text
    assert max(v for v in _trace(fig, "pool at the deal").y if v is not None) == biggest
    assert all(v is None or v > 0 for v in _trace(fig, "pool carried").y)


def test_labels_escape_what_plotly_would_read_as_html() -> None:
    assert label("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert label("\u202eevil") == "\\u202eevil"
    assert len(label("x" * 500)) == 80


def test_empty_session_figures_say_so(tmp_path: Path) -> None:
    doc = hand_doc("empty")
    doc["deals"] = []
    db = load(tmp_path, {"e.json": doc})
    with duckdb.connect(str(db), read_only=True) as c:
        figs = {k: valid(f) for k, f in session_figures.session_figures(c, "empty", {}).items()}
    for key, fig in figs.items():
        assert len(fig.data) == 0, key
        assert fig.layout.annotations, key


def test_every_figure_of_the_sample_logs_is_valid_plotly(tmp_path: Path) -> None:
    """The specs are plain dicts, so plotly.py's validation runs here, not in the report:
    every figure of every sample session, and of the all-sessions page, must pass it."""
    from db_helpers import SAMPLES

    from loo_replay.db.ingest import ingest
    from loo_replay.rulesets import RuleChoice

    db = tmp_path / "s.duckdb"
    ingest(sorted(SAMPLES.iterdir()), db, RuleChoice())
    with duckdb.connect(str(db), read_only=True) as c:
        colours = figures.player_colours(c)
        sessions = queries.sessions(c)["session_id"].to_list()
        specs = [
            f for s in sessions for f in session_figures.session_figures(c, s, colours).values()
        ]
        specs += across_figures.all_sessions_figures(c, colours).values()
    assert len(sessions) >= 8
    for spec in specs:  # go.Figure raises on an attribute plotly.js does not have
        assert len(valid(spec).data) == len(spec["data"])


def test_loo_rate_grid_keeps_the_latest_sessions_only(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(across_figures, "GRID_SESSIONS", 1)
    grid = valid(across_figures.loo_rates_by_session_figure(con))
    assert list(grid.data[0].x) == ["hand-b"]  # the later of the two
    assert grid.layout.title.text.endswith("(the latest 1 of 2 sessions)")
    assert [list(row) for row in grid.data[0].text] == [["0/3"], ["1/3"], ["1/3"]]


def test_session_ids_are_in_the_order_of_the_sessions_table(
    con: duckdb.DuckDBPyConnection,
) -> None:
    assert queries.session_ids(con) == queries.sessions(con)["session_id"].to_list()
    assert queries.session_ids(con) == ["hand-a", "hand-b"]  # 2026-11-20, then 11-21

"""One way to write numbers (docs/reports.md, "How numbers read"): ``output/numbers.py`` on
its own, then as the static pages, the explorer and ``query`` show the same values, each
through the real CLI (``report``, ``serve``, ``query``)."""

from __future__ import annotations

import decimal
import json
import math
import re
import statistics
import urllib.request
from pathlib import Path

import pytest
from db_helpers import SAMPLES, run, sql
from explorer_helpers import serving
from report_helpers import hand_doc, load

from loo_replay.output import numbers


def test_the_conventions() -> None:
    assert [numbers.count(n) for n in (0, 7, 1234, -3, -811188)] == [
        "0",
        "7",
        "1,234",
        "−3",
        "−811,188",
    ]
    assert [numbers.signed(n) for n in (9, -3, 0, 1500)] == ["+9", "−3", "0", "+1,500"]
    assert [numbers.percent(s) for s in (0, 0.0, 1 / 3, 1)] == ["0%", "0%", "33%", "100%"]
    assert numbers.percent(0.125, 1) == "12.5%"
    assert numbers.fixed(-0.004, 2) == "0.00"  # no "−0.00"
    assert numbers.fixed(-1234.5, 1) == "−1,234.5"
    assert [numbers.signed_fixed(x, 2) for x in (3.114, -0.5, 0.0, -0.001)] == [
        "+3.11",
        "−0.50",
        "0.00",
        "0.00",
    ]
    assert numbers.estimate(0.4213, 0.0791, 2) == "0.42 ± 0.08"
    assert numbers.estimate(-1.5, 0.25, 1) == "−1.5 ± 0.2"
    assert numbers.estimate(71.25, None, 1, "%") == "71.2%"
    assert numbers.rate(1, 3) == "33% of 3" and numbers.rate(0, 3) == "0% of 3"
    assert numbers.rate(0, 0) == "–"
    assert [numbers.p_value(p) for p in (0.0321, 1.0, 3.2e-5, None)] == [
        "0.032",
        "1",
        "3.2×10⁻⁵",
        "–",
    ]


def test_a_column_is_written_alike() -> None:
    """The issue's column: ``3.49e+05`` and ``1237`` no longer side by side."""
    assert numbers.column([348959.4, 1237.0, None]) == ["348959", "1237", ""]
    assert numbers.column([74.5, 0.125, -3.0]) == ["74.500", "0.125", "−3.000"]
    assert numbers.column([1 / 3, 2.0]) == ["0.3333", "2.0000"]
    assert numbers.column([12, -3, None]) == ["12", "−3", ""]
    assert numbers.column([decimal.Decimal("12.50"), decimal.Decimal("-3.1")]) == [
        "12.50",
        "−3.10",
    ]
    # Truly huge or tiny: the whole column in exponent notation.
    assert numbers.column([3.2e18, 2.5]) == ["3.200e+18", "2.500e+00"]
    assert numbers.column([1e-7, 2.5]) == ["1.000e-07", "2.500e+00"]
    assert numbers.column([float("nan"), float("-inf"), 1.5]) == ["nan", "−inf", "1.5"]


def _cells(stdout: str) -> list[list[str]]:
    """A table's rows, cut at its columns' two spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in stdout.splitlines()[2:-1]]


def test_query_writes_a_column_alike_and_csv_in_full(tmp_path: Path) -> None:
    db = load(tmp_path, {"hand.json": hand_doc("numbers")})
    sql = (
        "SELECT player, net_chips, loo_rate, net_chips * 21812.3 AS big, "
        "CASE player WHEN 'ann' THEN 1237 ELSE 0.5 END AS mixed "
        "FROM player_stats ORDER BY player"
    )
    table = run("query", "--db", db, sql)
    assert table.returncode == 0, table.stderr
    assert _cells(table.stdout) == [
        ["ann", "3", "0.0000", "65437", "1237.0"],
        ["bob", "−16", "0.3333", "−348997", "0.5"],
        ["cat", "−4", "0.3333", "−87249", "0.5"],
    ]
    lines = table.stdout.splitlines()
    assert lines[2].endswith("1237.0") and lines[3].endswith("   0.5")  # aligned right
    as_csv = run("query", "--db", db, sql, "--format", "csv")
    assert as_csv.stdout.splitlines()[1:] == [
        "ann,3,0.0,65436.9,1237.0",
        "bob,-16,0.3333333333333333,-348996.8,0.5",
        "cat,-4,0.3333333333333333,-87249.2,0.5",
    ]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load(tmp_path_factory.mktemp("numbers"), {"hand.json": hand_doc("numbers")})


def _row(page: str, player: str) -> list[str]:
    """The cells of the first table row that names ``player``, tags stripped."""
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S):
        cells = [
            re.sub(r"<[^>]+>", "", c).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        ]
        if player in cells[:2]:
            return cells
    raise AssertionError(f"no row for {player}")


def test_the_pages_and_the_explorer_write_the_same_numbers(db: Path, tmp_path: Path) -> None:
    """ann won 3 chips and was never looed in 3 deals played; bob lost 16, looed once in 3
    (tests/report_helpers.py): ``+3``, ``−16``, ``0% of 3``, ``33% of 3`` on the session's
    page, in the standings and in the explorer's players, never ``-16`` or ``0.0%``."""
    out = tmp_path / "reports"
    done = run("report", "--db", db, "--out", out)
    assert done.returncode == 0, done.stderr
    (session,) = out.glob("session-numbers-*.html")
    page = session.read_text()
    # Seat, player, deals, played, passed, took the Miss, looed, loo rate, loo chips,
    # tricks, net chips.
    assert _row(page, "ann")[6:11] == ["0", "0% of 3", "0", "6", "+3"]
    assert _row(page, "bob")[6:11] == ["1", "33% of 3", "3", "3", "−16"]
    # The chips figure's hover: each player's net so far, a change, signed.
    assert '"ann: net so far +3"' in page and '"bob: net so far −16"' in page
    standings = (out / "all-sessions.html").read_text()
    assert _row(standings, "ann")[1:4] == ["1", "4", "+3"]  # sessions, deals, net chips
    assert _row(standings, "bob")[1:4] == ["1", "4", "−16"]

    with serving(db) as server:
        url = server.wait_for_url()
        with urllib.request.urlopen(url + "players?sort=player", timeout=60) as response:
            players = response.read().decode()
    ann, bob = _row(players, "ann"), _row(players, "bob")
    assert ann[5:7] == ["0% of 3", "+3"]
    assert bob[5:7] == ["33% of 3", "−16"]
    for shown in (page, standings, players):
        assert "0.0%" not in shown and ">-16<" not in shown


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The club night's 24 deals judged on 4 worlds: five players with 28 to 41 decisions,
    so one is too few to judge."""
    db = tmp_path_factory.mktemp("judged") / "loo.duckdb"
    done = run(
        "ingest", SAMPLES / "three-card-club-night.json", "--db", db, "--decisions",
        "--samples", "4", "--no-analysis",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


def _expected(db: Path) -> dict[str, tuple[int, int, str, str]]:
    """Each player's decisions, judged deals sat in, accuracy and tricks lost a deal as
    docs/reports.md, "How numbers read", writes them, worked out here from the rows: each
    loss over its deal's unit, the accuracy's standard error its spread over the root of
    its number."""
    rows = sql(
        db,
        "SELECT c.player, c.loss, c.loss_se, c.accuracy, d.unit FROM decisions c "
        "JOIN decision_deals d USING (session_id, deal_index) WHERE c.chosen",
    )
    sat = dict(
        sql(
            db,
            "SELECT t.player, count(*) FROM seats t JOIN decision_deals d "
            "USING (session_id, deal_index) WHERE d.status = 'judged' GROUP BY t.player",
        )
    )
    out = {}
    for player in {r[0] for r in rows}:
        mine = [r for r in rows if r[0] == player]
        accuracies = [r[3] for r in mine if r[3] is not None]
        loss = sum(r[1] / r[4] for r in mine) / sat[player]
        loss_se = math.sqrt(sum((r[2] / r[4]) ** 2 for r in mine)) / sat[player]
        se = statistics.stdev(accuracies) / math.sqrt(len(accuracies))
        if len(mine) < 30:
            shown = ("too few to judge", "–")
        else:
            shown = (
                f"{statistics.mean(accuracies):.1f}% ± {se:.1f} of {len(accuracies)}",
                f"{loss:.2f} ± {loss_se:.2f}",
            )
        out[player] = (len(mine), sat[player], *shown)
    return out


def test_stats_and_the_decisions_page_give_each_estimate_its_doubt(
    judged: Path, tmp_path: Path
) -> None:
    expected = _expected(judged)
    assert sorted(n for n, *_ in expected.values()) == [28, 33, 35, 35, 41]
    shown = run("stats", "--db", judged)
    assert shown.returncode == 0, shown.stderr
    head = shown.stdout.splitlines()[0].split()
    assert head[-7:] == [
        "decisions", "deals_judged", "accuracy", "tricks_lost_a_deal", "inaccuracies",
        "mistakes", "blunders",
    ]  # fmt: skip
    printed = {cells[0]: cells for cells in _cells(shown.stdout)}
    assert printed["cat"][6] == "38% of 13"  # looed 5 of the 13 deals cat played
    for player, (n, deals, accuracy, loss) in expected.items():
        cells = printed[player]
        assert cells[-7:-3] == [str(n), str(deals), accuracy, loss.replace("–", "-")], player

    out = tmp_path / "reports"
    assert run("report", "--db", judged, "--out", out).returncode == 0
    page = (out / "decisions.html").read_text()
    names = {"ann": "Ann Pepys", "bob": "Robert Hooke", "cat": "Catherine Sedley"}
    for player, name in names.items():
        n, deals, accuracy, loss = expected[player]
        assert _row(page, name)[1:5] == [str(n), str(deals), accuracy, loss]
    rows = re.findall(r"<tr><td>([^<]+)</td>", page.partition("Standing, by")[0])
    assert rows[-1] == "Catherine Sedley"  # too few to judge: last
    # The replay pages of the costliest decisions: each option's chips as the pages write
    # them, a loss below zero with its true minus (the page's script shows these texts).
    options = []
    for replay in (out / "replays").rglob("*.html"):
        found = re.search(r'id="replay-data"[^>]*>(.*?)</script>', replay.read_text(), re.S)
        assert found is not None
        data = json.loads(found[1])
        for step in data["steps"]:
            if "decision" in step:
                d = step["decision"]
                assert d["lossShown"] == f"{d['loss']:.2f} ± {d['lossSe']:.2f}"
                options += d["options"]
    assert options
    for o in options:
        assert o["shown"] == ("+" if o["value"] > 0 else "") + f"{o['value']:.2f}".replace("-", "−")
    assert any(o["shown"].startswith("−") for o in options)

"""The double-dummy analysis in the reports (docs/analysis.md, "The notes"): a figure per player on the
session and all-sessions pages — tricks thrown away, avoidable loos against all loos — and
each deal with a note linked to its replay page, which marks the card."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, run

from loo_replay.reports import across_figures, session_figures

SESSION = "wrong-payouts-2026-11-27"


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """``audit`` of one sample log (database and reports), and ``analyse --format json``."""
    tmp = tmp_path_factory.mktemp("reports-analysis")
    log = tmp / "wrong-payouts.json"
    shutil.copy(SAMPLES / "wrong-payouts.json", log)
    result = run("audit", log, "--db", tmp / "loo.duckdb", "--out", tmp / "out")
    assert result.returncode in (0, 1), result.stderr
    doc = json.loads(run("analyse", log, "--format", "json").stdout)
    return tmp / "loo.duckdb", tmp / "out", doc


def _expected(doc: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    """Per player, worked out from the JSON: (tricks thrown away, avoidable loos, loos) over
    the solved deals they played."""
    out: dict[str, list[int]] = {}
    for deal in doc["sessions"][0]["deals"]:
        a = deal["analysis"]
        for player, v in a.get("players", {}).items():
            row = out.setdefault(player, [0, 0, 0])
            row[0] += v["lost"]
            row[2] += deal["looed"].get(player, 0) > 0
        for n in a.get("notes", []):
            if n["code"] == "avoidable-loo":
                out[n["player"]][1] += 1
    return {p: (t, a, lo) for p, (t, a, lo) in out.items()}


def test_session_figure_shows_thrown_tricks_and_avoidable_loos_per_player(
    audited: tuple[Path, Path, dict[str, Any]],
) -> None:
    db, _, doc = audited
    con = duckdb.connect(str(db), read_only=True)
    try:
        fig = session_figures.session_analysis_figure(con, SESSION)
        names = dict(con.execute("SELECT player, name FROM players").fetchall())
        across = across_figures.all_analysis_figure(con, names)
    finally:
        con.close()
    want = {names[p]: w for p, w in _expected(doc).items()}  # the bars name the players
    for spec in (fig, across):  # one session: the same bars on both pages
        bars = {t["name"]: dict(zip(t["x"], t["y"], strict=True)) for t in spec["data"]}
        assert set(bars) == {"tricks thrown away", "avoidable loos", "loos"}
        assert bars["tricks thrown away"] == {p: w[0] for p, w in want.items()}
        assert bars["avoidable loos"] == {p: w[1] for p, w in want.items()}
        assert bars["loos"] == {p: w[2] for p, w in want.items()}
    assert sum(w[1] for w in want.values()) == 2  # cat's J♠ at deal 6, A♥ at deal 14


def test_each_deal_with_a_note_links_to_its_replay_which_marks_the_card(
    audited: tuple[Path, Path, dict[str, Any]],
) -> None:
    _, out, doc = audited
    (page,) = out.glob(f"session-{SESSION}-*.html")
    html = page.read_text("utf-8")
    assert 'id="fig-analysis"' in html and "Tricks thrown away" in html
    links = re.findall(
        r'<tr data-code="([a-z-]+)"><td class="num"><a href="([^"]+)">(\d+)</a>', html
    )
    noted = [
        (n["code"], d["deal"])
        for d in doc["sessions"][0]["deals"]
        for n in d["analysis"].get("notes", [])
        if n["code"] != "no-safe-trick"
    ]
    assert [(code, int(deal)) for code, _, deal in links] == noted
    for _, href, deal in links:
        assert href.endswith(f"/deal-{deal}.html")
        replay = (out / href).read_text("utf-8")
        assert '"mark":{"before":1,"after":0,"lost":' in replay
    whole = (out / "all-sessions.html").read_text("utf-8")
    assert 'id="fig-analysis"' in whole

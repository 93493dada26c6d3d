"""The html module: what is markup, what is escaped, cards as people read them, and the
pages' assets as package files (docs/reports.md "Safety")."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from loo_replay.engine.cards import canonical, display
from loo_replay.html import Markup, asset, card, escape
from loo_replay.reports.pages import index_page

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "loo_replay" / "assets"


@given(st.text())
def test_escape_makes_any_text_inert_and_leaves_markup_alone(text: str) -> None:
    shown = escape(text)
    assert isinstance(shown, Markup)
    assert "<" not in shown and ">" not in shown and '"' not in shown
    assert escape(shown) is shown  # markup is never escaped twice


def test_card_is_the_display_form_hearts_and_diamonds_in_red() -> None:
    for c in range(52):
        shown = card(canonical(c))
        red = canonical(c)[-1] in "HD"
        assert shown == (f'<span class="red">{display(c)}</span>' if red else display(c))
    assert card("10H") == '<span class="red">10♥</span>'
    assert card(None) == card("") == ""


def test_a_code_that_is_no_card_is_shown_as_text() -> None:
    assert card("<b>") == "&lt;b&gt;"


def test_a_log_text_in_a_table_cell_is_escaped_not_run() -> None:
    row = {
        "session_id": "s1",
        "started_at": None,
        "venue": "<img src=x onerror=alert(1)>",
        "ruleset": "<b>hoyle</b>",
        "players": 3,
        "deals": 1,
        "violations": 0,
        "discrepancies": 0,
        "rejected": 0,
        "pool_max": 3,
        "loos": 0,
        "partial": 0,
    }
    page = index_page([row], {}, "loo.duckdb", "")
    assert "<td>&lt;img src=x onerror=alert(1)&gt;</td>" in page
    assert "&lt;b&gt;hoyle&lt;/b&gt;" in page and "<b>hoyle" not in page


def test_every_asset_is_read_from_its_file_and_shipped_in_the_package() -> None:
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["loo_replay"]
    files = sorted(ASSETS.iterdir())
    assert {f.name for f in files} == {
        "explorer.css",
        "replay.css",
        "replay.js",
        "report.css",
        "report.js",
    }
    for f in files:
        assert asset(f.name) == f.read_text("utf-8")
        assert any(fnmatch.fnmatch(f"assets/{f.name}", g) for g in globs), f.name

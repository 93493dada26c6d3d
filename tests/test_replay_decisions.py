"""The judged decisions and the seat views on a replay (issue 41 part 4, issue 43 part 2):
``loo-replay replay --decisions`` in the terminal and as a page in Debian's Chromium, its
figures checked against ``analyse --decisions --format json`` run with the same seed and
samples; V's seat view checked on a simulated deal where a player's discard revealed a void;
and what the plays reveal checked against the hands the players really held.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from db_helpers import run
from explorer_helpers import serving
from page_geometry import SIDEWAYS_JS, TEXT_OVERLAPS_JS, span_js
from report_helpers import chromium

from loo_replay.engine.cards import SUIT_SYMBOLS, display, parse_card
from loo_replay.explorer.deals import deal_link
from loo_replay.replayer.judged import with_views
from loo_replay.replayer.steps import DealReplay, build_replay
from loo_replay.reports.replays import folder
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
CLUB = ROOT / "sample_logs/three-card-club-night.json"
CLUB_ID = "club-night-2026-11-20"  # the session's id in that log
SAMPLING = ("--samples", "40", "--seed", "5")
STEP = "() => Number(document.body.dataset.step)"
WORDS = {"play": "stand", "pass": "pass", "take_miss": "take the Miss", "defend": "defend"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def analysed() -> dict[int, dict[str, Any]]:
    """Each deal of the club night's analysis with its judged decisions, by number."""
    done = run("analyse", CLUB, "--decisions", *SAMPLING, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    (session,) = json.loads(done.stdout)["sessions"]
    return {d["deal"]: d["decisions"] for d in session["deals"]}


@pytest.fixture(scope="module")
def studied(analysed: dict[int, dict[str, Any]]) -> int:
    """The first deal with two mistakes or blunders or more, so that M has somewhere to go
    and Shift+M somewhere to come back to."""
    return next(n for n, d in analysed.items() if len(_worth(d)) >= 2)


def _worth(decisions: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in decisions.get("items", []) if d["class"] in ("mistake", "blunder")]


def _label(key: str) -> str:
    if key in WORDS:
        return WORDS[key]
    card = display(parse_card(key.removesuffix("+announce")))
    return card + ' + "Pam, be civil"' if key.endswith("+announce") else card


def _judgement(item: dict[str, Any]) -> str:
    return item["class"] or ("best" if item["chosen"] == item["best"] else "good")


def test_the_terminal_prints_each_decision_under_its_step_as_analyse_judged_it(
    analysed: dict[int, dict[str, Any]], studied: int
) -> None:
    done = run("replay", CLUB, "--deal", str(studied), "--decisions", *SAMPLING)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    items = analysed[studied]["items"]
    assert any(
        line.startswith(f"Decisions: {len(items)} decision(s) judged on 40") for line in lines
    )
    for item in items:
        at = next(
            i
            for i, line in enumerate(lines)
            if line.startswith(f"  {'#' + str(item['index']):<4} ")
        )
        options = " · ".join(
            f"{_label(key)} {v['value']:+.2f} ±{v['se']:.2f}"
            + {(True, True): " (chosen, best)", (True, False): " (chosen)"}.get(
                (key == item["chosen"], key == item["best"]),
                " (best)" if key == item["best"] else "",
            )
            for key, v in item["options"].items()
        )
        assert lines[at + 1] == f"       options: {options}"
        verdict = f"loss {item['loss']:.2f} ±{item['loss_se']:.2f} chips: {_judgement(item)}"
        assert lines[at + 2] == f"       {verdict} · {item['message']}"
    # Without --decisions, none of it.
    plain = run("replay", CLUB, "--deal", str(studied))
    assert "options:" not in plain.stdout and "Decisions:" not in plain.stdout


def _page(tmp_path: Path, log: Path, deal: int, *extra: str) -> Path:
    out = tmp_path / f"deal-{deal}.html"
    done = run("replay", log, "--deal", str(deal), "--html", out, *extra)
    assert done.returncode == 0, done.stderr
    return out


def _panel(page: Any) -> dict[str, Any]:
    """The decision panel as shown: each option row's cells, and the loss line."""
    rows = page.eval_on_selector_all(
        "#decision tr:not(:first-child)",
        "rs => rs.map((r) => Array.from(r.cells).map((c) => c.textContent))",
    )
    return {"rows": rows, "loss": page.text_content("#decision .loss")}


def _walk_mistakes(page: Any, decisions: dict[str, Any]) -> None:
    """M from the first step visits each mistake and blunder of ``decisions`` (the JSON of
    ``analyse --decisions``) in turn, its panel showing that item's figures; Shift+M comes
    back; the log marks every judged decision with its judgement."""
    data = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    step_of = {
        s["event"]: i for i, s in enumerate(data["steps"]) if s["kind"] in ("declare", "play")
    }
    visited = []
    for item in _worth(decisions):
        page.keyboard.press("m")
        visited.append(page.evaluate(STEP))
        assert visited[-1] == step_of[item["index"]]
        assert page.text_content("#step-text .ev") == f"#{item['index']}"
        expected = [
            [
                _label(key),
                ("+" if v["value"] > 0 else "") + f"{v['value']:.2f}".replace("-", "−"),
                f"{v['se']:.2f}",
                ", ".join(
                    m
                    for m, on in (("chosen", key == item["chosen"]), ("best", key == item["best"]))
                    if on
                ),
            ]
            for key, v in item["options"].items()
        ]
        shown = _panel(page)
        assert shown["rows"] == expected
        loss = f"loss {item['loss']:.2f} ± {item['loss_se']:.2f} chips: {item['class']}"
        assert shown["loss"] == loss
        assert page.get_attribute("#decision", "data-judgement") == item["class"]
    page.keyboard.press("m")  # no mistake further on: M stays
    assert page.evaluate(STEP) == visited[-1]
    assert page.is_disabled("#next-mistake")
    page.keyboard.press("Shift+M")
    assert page.evaluate(STEP) == visited[-2]
    marked = page.eval_on_selector_all(
        "#log li[data-judgement]", "ls => ls.map((l) => l.dataset.judgement)"
    )
    assert marked == [_judgement(i) for i in decisions["items"]]


def test_m_jumps_to_each_mistake_with_the_figures_analyse_gave(
    browser: Any, tmp_path: Path, analysed: dict[int, dict[str, Any]], studied: int
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(_page(tmp_path, CLUB, studied, "--decisions", *SAMPLING).as_uri())
    _walk_mistakes(page, analysed[studied])
    assert errors == []
    page.close()


def _discard(rp: DealReplay) -> tuple[int, int, int] | None:
    """The first card played to a trick whose lead was of another suit: (step, seat, led
    suit). Three-card Loo has no Pam, so a card's suit is its printed suit."""
    for i, s in enumerate(rp.steps):
        if s.kind != "play" or not s.judged or s.trick is None or s.card is None:
            continue
        lead = s.trick.plays[0]
        if lead[0] != s.seat and lead[1] // 13 != s.card // 13:
            return i, s.seat if s.seat is not None else -1, lead[1] // 13
    return None


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[DealReplay]]:
    log = tmp_path_factory.mktemp("seat-view") / "games.json"
    made = run("simulate", "--deals", "12", "--seed", "7", "--out", log)
    assert made.returncode == 0, made.stderr
    report = next(iter(audited([log])))
    assert isinstance(report, SessionReport)
    return log, [build_replay(report, d, analyse=False) for d in report.deals if d.result]


def test_v_shows_a_seat_view_with_the_other_hands_face_down_and_the_void_a_discard_revealed(
    browser: Any, tmp_path: Path, simulated: tuple[Path, list[DealReplay]]
) -> None:
    log, replays = simulated
    rp, (step, seat, suit) = next((r, d) for r in replays if (d := _discard(r)) is not None)
    assert not rp.audit.violations and not rp.options.deal_pam
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    page.goto(_page(tmp_path, log, rp.number).as_uri())
    data = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    assert data["views"][0] == {"label": "every hand", "seat": None}  # the open hands first
    viewer = next(v for v in data["views"][1:] if v["seat"] != seat)
    for _ in range(step):
        page.keyboard.press("ArrowRight")
    assert page.evaluate(STEP) == step
    assert page.is_hidden("#knew")
    marked = data["steps"][step]["mark"] is not None  # the analysis of the discard: open cards
    assert page.locator("#guarantee").count() == marked
    while page.text_content("#view") != f"view: {viewer['label']}":
        page.keyboard.press("v")
    # Another's card: neither what they held nor the analysis that reads every hand.
    assert page.locator("#step-text .detail").count() == 0
    faces = page.eval_on_selector_all(
        ".seat",
        "ss => ss.map((s) => [s.querySelectorAll('.card:not(.back)').length,"
        " s.querySelectorAll('.card.back').length])",
    )
    hands = data["steps"][step]["hands"]
    for k, (up, down) in enumerate(faces):
        held = len(hands[k])
        assert (up, down) == ((held, 0) if k == viewer["seat"] else (0, held)), k
    assert page.text_content("#knew h3") == f"What {viewer['label']} knew"
    who = data["seats"][seat]["name"] or data["seats"][seat]["id"]
    said = page.text_content(f"#revealed li[data-seat='{data['seats'][seat]['id']}']")
    assert said is not None and said.startswith(f"{who}: no {SUIT_SYMBOLS[suit]} (trick ")
    played = page.text_content("#played-so-far")
    assert played is not None and data["steps"][step]["card"] in played
    page.keyboard.press("Home")  # before any card, nothing is revealed
    assert page.text_content("#knew") is not None
    assert "revealed by play: nothing yet" in (page.text_content("#knew") or "")
    page.close()


def test_what_the_plays_reveal_is_never_a_card_the_player_held(
    simulated: tuple[Path, list[DealReplay]],
) -> None:
    """Sound: a card said to be out of a player's hand never is in it, at any step of any
    simulated deal; and a void is said once a discard shows it, from that step on."""
    _, replays = simulated
    voids = 0
    for rp in replays:
        seen = with_views(rp).revealed
        assert seen is not None and len(seen) == len(rp.steps)
        for shown, facts in zip(rp.steps, seen, strict=True):
            for fact in facts:
                assert fact.cards & sum(1 << c for c in shown.hands[fact.seat]) == 0
                assert fact.left & fact.cards == 0
        found = _discard(rp)
        if found is not None:
            step, seat, suit = found
            for facts in seen[step:]:
                assert any(f.seat == seat and f.suit == suit and f.left == 0 for f in facts)
            voids += 1
    assert voids >= 3


@pytest.mark.parametrize("width", (390, 800, 1400))
def test_the_panels_fit_beside_the_trick_at_every_width(
    browser: Any, tmp_path: Path, studied: int, width: int
) -> None:
    """At a mistake, in the open view and in a seat view, and at the end in the seat view
    (every card played listed): no text over text, nothing wider than the window, and Next
    within a window's height of the trick."""
    path = _page(tmp_path, CLUB, studied, "--decisions", *SAMPLING)
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(path.as_uri())

    def fits() -> None:
        assert page.evaluate(TEXT_OVERLAPS_JS) == []
        assert page.evaluate(SIDEWAYS_JS) == {"page": width, "inner": []}
        assert page.evaluate(span_js("#trick", "#next")) <= 800

    page.keyboard.press("m")
    assert page.is_visible("#decision") and page.is_hidden("#knew")
    fits()
    page.keyboard.press("v")
    assert page.is_visible("#decision") and page.is_visible("#knew")
    fits()
    page.keyboard.press("End")
    assert page.is_visible("#knew")
    fits()
    page.close()


def test_the_reports_and_the_explorers_replays_show_the_decisions_the_load_judged(
    browser: Any, tmp_path: Path, analysed: dict[int, dict[str, Any]], studied: int
) -> None:
    """``audit --decisions`` with the same seed and samples: the report's replay page and
    the one ``serve`` renders from the database show what ``analyse`` judged, and both have
    the seat views."""
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    done = run("audit", CLUB, "--decisions", *SAMPLING, "--no-analysis", "--db", db, "--out", out)
    assert done.returncode == 0, done.stderr
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with serving(db) as server:
        served = server.wait_for_url() + deal_link(CLUB_ID, studied)
        for address in ((out / folder(CLUB_ID) / f"deal-{studied}.html").as_uri(), served):
            page.goto(address)
            _walk_mistakes(page, analysed[studied])
            page.keyboard.press("v")
            assert page.is_visible("#knew")
    assert errors == []
    page.close()
    # A report's pages are written again once the session is judged with another seed.
    other = ("--samples", "40", "--seed", "6", "--no-analysis")
    reloaded = run("ingest", CLUB, "--db", db, "--replace", "--decisions", *other)
    assert reloaded.returncode == 0, reloaded.stderr
    rewritten = run("report", "--db", db, "--out", out)
    assert "24 replay page(s), 24 new" in rewritten.stdout, rewritten.stdout

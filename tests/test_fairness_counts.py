"""The SQL counts of the fairness audit against a count made by hand from the log itself.

A simulated session is loaded by ``ingest`` into a real DuckDB file; the
counts the tests of docs/fairness.md, "The six tests" use are recounted here deal by deal from
the JSON, so the SQL (positions from the eldest, the Miss after the dealer,
docs/rules.md §3's top trump, neighbours across deals) is checked by a second,
independent route.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

import duckdb
import pytest

from loo_replay.db.errors import MEMORY_ENV
from loo_replay.db.ingest import ingest
from loo_replay.db.opening import open_for_reading
from loo_replay.engine.cards import parse_card
from loo_replay.engine.tables import TRUMP_ORDER
from loo_replay.fairness.counts import (
    MEMORY,
    QUERIES,
    SCOPES,
    Counts,
    count,
    count_batches,
    prepared,
    roomy,
)
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.simulate import Simulator, top_trump, write_simulation


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Counts]:
    """Forty deals of Hoyle's Pam (a Miss, a turn-up but in musts, Pam), riffled twice."""
    tmp = tmp_path_factory.mktemp("fairness")
    sim = Simulator(builtin("hoyle-pam").options, "hoyle-pam", 5, 11, riffles=2)
    doc = sim.session("counts", 40)
    log = tmp / "s.jsonl"
    write_simulation(log, [doc], 1, sim.truth)
    ingest([log], tmp / "s.duckdb", RuleChoice(None, {}))
    con = open_for_reading(tmp / "s.duckdb")
    try:
        with prepared(con):
            return doc, count(con, "all")
    finally:
        con.close()


def _places(deal: dict[str, Any]) -> dict[int, int]:
    """Card -> place: seats clockwise from the eldest (0) to the dealer, then the Miss."""
    players = list(deal["hands"])
    dealer = players.index(deal["dealer"])
    n = len(players)
    place = {
        parse_card(c): (players.index(p) - dealer - 1) % n
        for p, hand in deal["hands"].items()
        for c in hand
    }
    place.update({parse_card(c): n for c in deal.get("miss", [])})
    return place


def _class(card: int, top: int | None) -> str:
    if card == top:
        return "top"
    return {12: "ace", 11: "court", 10: "court", 9: "court"}.get(card % 13, "other")


def test_cards_to_seats_counts_every_dealt_card_by_class_and_place_fairness_1_1(
    session: tuple[dict[str, Any], Counts],
) -> None:
    doc, counts = session
    expected: Counter[tuple[Any, ...]] = Counter()
    for deal in doc["deals"]:
        turned = parse_card(deal["turn_up"]) if "turn_up" in deal else None
        top = top_trump(True, turned) if turned is not None else None
        n, miss = len(deal["hands"]), "miss" in deal
        for card, place in _places(deal).items():
            expected[(n, 3, miss, turned is not None, _class(card, top), place)] += 1
    got = Counter({tuple(row[1:7]): row[7] for row in counts.seats})
    assert got == expected


def test_dealer_hand_counts_the_top_trump_held_per_dealer_and_player_fairness_1_2(
    session: tuple[dict[str, Any], Counts],
) -> None:
    doc, counts = session
    expected: Counter[tuple[str, str]] = Counter()
    dealt: Counter[tuple[str, str]] = Counter()
    left = set()
    for deal in (d for d in doc["deals"] if "turn_up" in d):
        top = top_trump(True, parse_card(deal["turn_up"]))
        left.add(len(TRUMP_ORDER[True][parse_card(deal["turn_up"]) // 13]) - 1)
        for player, hand in deal["hands"].items():
            dealt[(deal["dealer"], player)] += 1
            expected[(deal["dealer"], player)] += top in {parse_card(c) for c in hand}
    got: Counter[tuple[str, str]] = Counter()
    seen: Counter[tuple[str, str]] = Counter()
    for _grp, dealer, player, _h, trumps, deals, top1, _top3, _two in counts.hands:
        assert trumps in left  # Pam's trumps beside the turn-up, in its suit
        got[(dealer, player)] += top1
        seen[(dealer, player)] += deals
    assert seen == dealt
    assert +got == +expected


def test_shuffle_pairs_cards_played_one_after_the_other_by_seat_distance_next_deal_1_5(
    session: tuple[dict[str, Any], Counts],
) -> None:
    doc, counts = session
    expected: Counter[tuple[Any, ...]] = Counter()
    for before, after in itertools.pairwise(doc["deals"]):
        played = [parse_card(e["card"]) for e in before["events"] if e["type"] == "play"]
        place = _places(after)
        places = len(after["hands"]) + ("miss" in after)
        for a, b in itertools.pairwise(played):
            if a in place and b in place:
                distance = (place[b] - place[a]) % places
                expected[(after["dealer"], places, 3, distance)] += 1
    got = Counter({tuple(row[1:5]): row[5] for row in counts.shuffle})
    assert got == expected
    assert sum(expected.values()) > 100


def test_turn_up_counts_suits_and_high_cards_per_dealer_fairness_1_3(
    session: tuple[dict[str, Any], Counts],
) -> None:
    doc, counts = session
    expected = Counter(
        (d["dealer"], d["turn_up"][1], d["turn_up"][0] in "AK")
        for d in doc["deals"]
        if "turn_up" in d
    )
    assert Counter({tuple(row[1:4]): row[4] for row in counts.turn_up}) == expected


def test_no_hand_or_deal_of_a_riffled_session_repeats_by_itself_fairness_1_6(
    session: tuple[dict[str, Any], Counts],
) -> None:
    doc, counts = session
    hands = Counter(frozenset(h) for d in doc["deals"] for h in d["hands"].values())
    pairs = sum(c * (c - 1) // 2 for c in hands.values())
    assert sum(row[3] for row in counts.repeated_hands) == pairs
    assert sum(row[2] for row in counts.repeated_hands) == 5 * len(doc["deals"])
    assert {row[5] for row in counts.repeated_deals} == {0}


def test_the_sessions_counts_fetched_by_batch_are_every_sessions_rows_in_order(
    tmp_path: Path,
) -> None:
    """docs/fairness.md, "Speed": each session's counts come a batch of sessions at a time, in
    the sessions' order, and together they are the rows of one query over every session."""
    sim = Simulator(builtin("three-card").options, "three-card", 4, 3)
    docs = [sim.session(f"batch-{i}", 6) for i in range(5)]
    log = tmp_path / "s.jsonl"
    write_simulation(log, docs, 1, sim.truth)
    ingest([log], tmp_path / "s.duckdb", RuleChoice(None, {}))
    con = open_for_reading(tmp_path / "s.duckdb")
    try:
        with prepared(con):
            whole = count(con, "session")
            batches = list(count_batches(con, "session", groups=2))
    finally:
        con.close()
    assert [sorted({row[0] for row in b.dealt}) for b in batches] == [
        ["batch-0", "batch-1"], ["batch-2", "batch-3"], ["batch-4"],
    ]  # fmt: skip
    for name in [f.name for f in fields(Counts) if f.name != "scope"]:
        together = [row for b in batches for row in getattr(b, name)]
        assert sorted(together) == sorted(getattr(whole, name)), name


def test_the_counts_read_as_columns_are_the_rows_fetchall_gives_value_and_type(
    tmp_path: Path,
) -> None:
    """docs/fairness.md, "Speed": the counts are read as NumPy columns, not by ``fetchall``;
    every row of every query and scope is what ``fetchall`` gives, each value of the same
    Python type (a sum DuckDB makes a HUGEINT would come back a float), None included (Hoyle's
    Pam: deals with no turn-up, so no top trump)."""
    sim = Simulator(builtin("hoyle-pam").options, "hoyle-pam", 5, 11)
    log = tmp_path / "s.jsonl"
    write_simulation(log, [sim.session(f"typed-{i}", 12) for i in range(3)], 1, sim.truth)
    ingest([log], tmp_path / "s.duckdb", RuleChoice(None, {}))
    con = open_for_reading(tmp_path / "s.duckdb")
    try:
        with prepared(con):
            for scope, grp in SCOPES.items():
                counts = count(con, scope)
                names = [f.name for f in fields(Counts) if f.name != "scope"]
                for name, query in zip(names, QUERIES, strict=True):
                    given = con.execute(query.format(grp=grp)).fetchall()
                    assert given, (scope, name)
                    assert Counter(map(_typed, getattr(counts, name))) == Counter(
                        map(_typed, given)
                    ), (scope, name)
    finally:
        con.close()


def _typed(row: tuple[Any, ...]) -> tuple[tuple[str, Any], ...]:
    return tuple((type(v).__name__, v) for v in row)


def test_a_run_over_the_whole_database_takes_the_memory_the_variable_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An out-of-memory message tells the user to raise ``LOO_REPLAY_DB_MEMORY``: the
    fairness tests' and the collusion screen's runs take that bound where it is set, their
    own (``MEMORY``) where not, and put the connection's back afterwards."""
    con = duckdb.connect()
    con.execute("SET memory_limit = '64MB'")

    def limit() -> str:
        ((found,),) = con.execute("SELECT current_setting('memory_limit')").fetchall()
        return str(found)

    before = limit()
    expected = {}
    for size in (MEMORY, "1GB"):
        con.execute(f"SET memory_limit = '{size}'")
        expected[size] = limit()
    con.execute("SET memory_limit = '64MB'")
    for size in (MEMORY, "1GB"):
        monkeypatch.setenv(MEMORY_ENV, "" if size == MEMORY else size)
        with roomy(con, ()):
            assert limit() == expected[size]
        assert limit() == before

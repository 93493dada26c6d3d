"""The tables and views against a session worked out by hand (``db_helpers.hand_worked_doc``:
the arithmetic is in its docstring), loaded through the real ``loo-replay ingest``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from db_helpers import counts, hand_worked_doc, run, sql


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("views")
    log = tmp / "hand.json"
    log.write_bytes(orjson.dumps(hand_worked_doc()))
    db = tmp / "loo.duckdb"
    result = run("ingest", log, "--db", db)
    assert result.returncode == 0, result.stderr
    c = counts(result)
    assert (c["deals"], c["loaded"], c["rejected"]) == (5, 4, 1)
    return db


def test_player_stats_are_the_hand_worked_figures(db: Path) -> None:
    rows = sql(
        db,
        "SELECT player, deals_seated, played, passed, took_miss, looed, loo_rate, tricks, "
        "net_chips, violations, revokes, violations_by_code FROM player_stats ORDER BY player",
    )
    assert rows == [
        ("ann", 4, 3, 1, 1, 0, 0.0, 6, 3, 0, 0, {}),
        ("bob", 4, 3, 1, 1, 1, pytest.approx(1 / 3), 3, -16, 1, 1, {"follow-suit": 1}),
        ("cat", 4, 3, 1, 0, 1, pytest.approx(1 / 3), 3, -4, 0, 0, {}),
    ]


def test_pool_history_carries_the_pool_deal_to_deal(db: Path) -> None:
    rows = sql(
        db,
        "SELECT deal, dealer, pool, pool_start, outcome, looed_total, penalties_total, pool_next "
        "FROM pool_history WHERE session_id = ? ORDER BY deal",
        "hand-worked",
    )
    assert rows == [
        (1, "cat", "single", 3, "played", 0, 0, 0),
        (2, "ann", "single", 3, "played", 3, 0, 3),
        (3, "bob", "double", 6, "played", 0, 0, 2),
        (4, "cat", "double", 5, "played", 3, 12, 17),
    ]


def test_violations_by_rule_counts_code_by_ruleset(db: Path) -> None:
    assert sql(db, "SELECT * FROM violations_by_rule") == [
        ("follow-suit", "revoke", "three-card", 1, 1, 1)
    ]


def test_the_revoke_is_a_play_an_illegal_card_with_its_legal_set(db: Path) -> None:
    plays = sql(
        db,
        "SELECT trick, position, event, player, card, dead, legal, legal_cards, wins, finding "
        "FROM plays WHERE deal = 4 ORDER BY trick, position",
    )
    assert plays[:2] == [
        (1, 1, 3, "ann", "AS", False, True, ["KS", "AS", "QH"], True, None),  # deck order
        (1, 2, 4, "bob", "4H", False, False, ["3S"], False, "follow-suit"),
    ]
    assert len(plays) == 6 and all(p[9] is None for p in plays[2:])
    (finding,) = sql(
        db,
        "SELECT deal, trick, code, family, player, card, held, legal, penalized, penalty, event "
        "FROM findings",
    )
    assert finding == (
        4,
        1,
        "follow-suit",
        "revoke",
        "bob",
        "4H",
        ["3S", "4H", "5H"],
        ["3S"],
        True,
        12,
        4,
    )


def test_seats_hold_declarations_hands_and_chips(db: Path) -> None:
    rows = sql(
        db,
        "SELECT deal, player, dealer, declaration, active, hand, tricks, ante, payout, loo, "
        "looed, penalties, net FROM seats WHERE deal IN (1, 4) ORDER BY deal, seat",
    )
    assert rows == [
        (1, "ann", False, "take_miss", True, ["2S", "3H", "4C"], 2, 0, 2, 0, False, 0, 2),
        (1, "bob", False, "pass", False, ["5S", "6H", "7C"], 0, 0, 0, 0, False, 0, 0),
        (1, "cat", True, "play", True, ["KD", "8S", "8H"], 1, 3, 1, 0, False, 0, -2),
        (4, "ann", False, "play", True, ["AS", "KS", "QH"], 3, 0, 3, 0, False, 0, 3),
        (4, "bob", False, "play", True, ["3S", "4H", "5H"], 0, 0, 0, 3, True, 12, -15),
        (4, "cat", True, "pass", False, ["7D", "8D", "9D"], 0, 3, 0, 0, False, 0, -3),
    ]
    # a must deal: no declarations, everyone plays
    assert sql(db, "SELECT DISTINCT declaration, active FROM seats WHERE deal = 2") == [
        (None, True)
    ]


def test_deals_and_tricks(db: Path) -> None:
    assert sql(
        db,
        "SELECT deal_index, deal, status, must, trump, turn_up, miss, miss_taker, defender, "
        "violations FROM deals ORDER BY deal",
    ) == [
        (0, 1, "audited", False, "D", "9D", ["AD", "QD", "3S"], "ann", None, 0),
        (1, 2, "audited", True, "S", "4S", None, None, None, 0),
        (2, 3, "audited", False, "H", "2H", ["QS", "4D", "5D"], "bob", "bob", 0),
        (3, 4, "audited", False, "C", "2C", ["JD", "TD", "6D"], None, None, 1),
    ]
    assert sql(db, "SELECT trick, leader, led, winner, cards FROM tricks WHERE deal = 3") == [
        (1, "cat", "AS", "cat", 2),
        (2, "cat", "KS", "cat", 2),
        (3, "cat", "3D", "bob", 2),
    ]


def test_a_rejected_deal_is_kept_verbatim_in_rejects(db: Path) -> None:
    ((kind, deal_index, deal, file, line, path, message, raw),) = sql(
        db, "SELECT kind, deal_index, deal, file, line, path, message, raw FROM rejects"
    )
    assert (kind, deal_index, deal, line) == ("deal", 4, 5, None)
    assert file.endswith("hand.json")
    assert path == "/deals/4/events/3/card"
    assert "but does not hold it" in message
    assert raw == orjson.dumps(hand_worked_doc()["deals"][4])


def test_stats_command_sorts_by_loo_rate(db: Path) -> None:
    result = run("stats", "--db", db)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["player", "deals_seated", "played"]
    assert [line.split()[0] for line in lines[2:5]] == ["bob", "cat", "ann"]
    assert "33% of 3" in lines[2]  # bob looed once in the 3 deals he played

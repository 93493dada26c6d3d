"""The simulator's unfair dealing, the ground truth of the fairness tests (docs/fairness.md, "Simulating unfair dealing")."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from db_helpers import run
from hypothesis import given
from hypothesis import strategies as st

from loo_replay.engine.cards import PAM, parse_card
from loo_replay.rulesets import builtin
from loo_replay.simulate import Crooked, Simulator, parse_crooked, parse_shuffle, riffle, top_trump


def _hands(deal: dict[str, object]) -> dict[str, set[int]]:
    hands = deal["hands"]
    assert isinstance(hands, dict)
    return {p: {parse_card(c) for c in cards} for p, cards in hands.items()}


def test_crooked_dealer_at_rate_one_holds_the_best_trump_whenever_he_deals_fairness_2() -> None:
    """docs/fairness.md, "Simulating unfair dealing": the crooked dealer swaps the best trump of the deal (docs/rules.md §3's
    top trump: Pam with Pam on, the next one down when it is turned up) into his hand."""
    sim = Simulator(builtin("hoyle-pam").options, "hoyle-pam", 5, 7, crooked=Crooked("cat", 1.0))
    doc = sim.session("s", 40)
    dealt = [d for d in doc["deals"] if d["dealer"] == "cat"]
    assert len(dealt) == 8
    for deal in dealt:
        best = top_trump(True, parse_card(deal["turn_up"]))
        assert best in _hands(deal)["cat"]
    swaps = sim.truth.as_json()["dealing"]["swaps"]
    assert swaps and all(s["player"] == "cat" for s in swaps)
    assert {s["deal"] for s in swaps} <= {d["deal"] for d in dealt}
    for swap in swaps:
        assert parse_card(swap["card"]) in _hands(doc["deals"][swap["deal"] - 1])["cat"]


def test_top_trump_is_the_next_one_down_when_turned_up_rules_3() -> None:
    assert top_trump(False, parse_card("5H")) == parse_card("AH")
    assert top_trump(False, parse_card("AH")) == parse_card("KH")
    assert top_trump(True, parse_card("AH")) == PAM
    assert top_trump(True, PAM) == parse_card("AC")
    assert top_trump(True, None) == PAM and top_trump(False, None) is None


def test_fair_dealing_writes_no_dealing_into_the_truth() -> None:
    sim = Simulator(builtin("three-card").options, "three-card", 4, 3)
    sim.session("s", 5)
    assert "dealing" not in sim.truth.as_json()


def test_riffled_deals_are_legal_deals_of_the_gathered_pack_fairness_2(tmp_path: Path) -> None:
    """Riffled deals are still whole packs dealt by the ruleset: the audit finds nothing."""
    out = tmp_path / "r.jsonl"
    made = run("simulate", "--deals", "40", "--players", "6", "--shuffle", "riffle:1",
               "--ruleset", "hoyle-pam", "--out", out)  # fmt: skip
    assert made.returncode == 0, made.stderr
    truth = json.loads(out.with_name("r.truth.json").read_text())
    assert truth["dealing"]["shuffle"] == "riffle:1"
    assert truth["dealing"]["crooked_dealer"] is None
    checked = run("validate", out)
    assert checked.returncode == 0, checked.stdout


def test_one_riffle_keeps_played_neighbours_one_seat_apart_fairness_1_5() -> None:
    """docs/fairness.md, "The six tests", test 5: after one riffle about half of the cards played one after another
    land one seat apart (against about one in seven for a uniform deal)."""
    sim = Simulator(builtin("three-card").options, "three-card", 6, 2, riffles=1)
    doc = sim.session("s", 60)
    apart = together = 0
    for before, after in zip(doc["deals"], doc["deals"][1:], strict=False):
        played = [parse_card(e["card"]) for e in before["events"] if e["type"] == "play"]
        seat = {}
        players = list(after["hands"])
        dealer = players.index(after["dealer"])
        for p, hand in _hands(after).items():
            for card in hand:
                seat[card] = (players.index(p) - dealer - 1) % 6
        for card in after.get("miss", []):
            seat[parse_card(card)] = 6
        for a, b in itertools.pairwise(played):
            if a in seat and b in seat:
                together += 1
                apart += (seat[b] - seat[a]) % 7 == 1
    assert together > 200
    assert apart / together > 0.35


@given(st.integers(0, 2**32), st.integers(1, 4))
def test_k_riffles_make_at_most_two_to_the_k_rising_sequences(seed: int, k: int) -> None:
    """Bayer and Diaconis (1992): K GSR riffles leave at most 2**K rising sequences (a cut
    joins the top and bottom, one more)."""
    deck = riffle(list(range(52)), k, random.Random(seed))
    assert sorted(deck) == list(range(52))
    position = {card: i for i, card in enumerate(deck)}
    rising = 1 + sum(position[c + 1] < position[c] for c in range(51))
    assert rising <= 2**k + 1


def test_crooked_and_shuffle_options_are_checked() -> None:
    assert parse_crooked("dan") == Crooked("dan", 0.5)
    assert parse_crooked("dan:0.1") == Crooked("dan", 0.1)
    assert parse_shuffle("riffle:7") == 7 and parse_shuffle("uniform") is None
    for bad in ("dan:0", "dan:x", ":0.3", "dan:1.5"):
        with pytest.raises(ValueError):
            parse_crooked(bad)
    for bad in ("riffle", "riffle:0", "overhand:3"):
        with pytest.raises(ValueError):
            parse_shuffle(bad)
    with pytest.raises(ValueError, match="no player 'zed'"):
        Simulator(builtin("three-card").options, "three-card", 4, 1, crooked=Crooked("zed"))


def test_simulate_rejects_a_bad_crooked_dealer_in_one_sentence() -> None:
    result = run("simulate", "--crooked-dealer", "zed:0.3")
    assert result.returncode == 2
    assert "no player 'zed'" in result.stderr
    result = run("simulate", "--shuffle", "riffle:x")
    assert result.returncode == 2
    assert "riffle:K" in result.stderr

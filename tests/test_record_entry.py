"""What a scorer types, read loosely (docs/record.md: cards typed as ``10h``, ``QS``,
``q♠``): every spelling of every card, the completion candidates, players by prefix, and
typed lines to journal entries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loo_replay.engine.cards import FULL_DECK, RANKS, SUIT_SYMBOLS, SUITS, mask_of, parse_card
from loo_replay.engine.vocab import Action
from loo_replay.recorder.book import session_entry
from loo_replay.recorder.entry import (
    EntryError,
    find_player,
    matching_cards,
    parse_action,
    parse_cards,
    parse_loose_card,
    split_player,
)
from loo_replay.recorder.judge import Stage, judge
from loo_replay.recorder.reading import HELP, QUIT, UNDO, read_line

PLAYERS = ("ann", "anton", "bob", "cat")


def _spellings(card: int) -> list[str]:
    rank, suit = RANKS[card % 13], SUITS[card // 13]
    ranks = [rank, "10"] if rank == "T" else [rank]
    suits = [suit, SUIT_SYMBOLS[card // 13]]
    out = []
    for r in ranks:
        for s in suits:
            out += [r + s, (r + s).lower(), f"{r} {s}", s + r, f" {s.lower()}{r.lower()} "]
    return out


@given(st.integers(0, 51))
def test_record_every_loose_spelling_names_its_card(card: int) -> None:
    """Rank then suit or suit then rank, any case, a space between: one card."""
    for text in _spellings(card):
        assert parse_loose_card(text) == card, text


def test_record_loose_cards_agree_with_the_log_spelling() -> None:
    """docs/log-format.md Cards: whatever the log accepts, the recorder reads as the same card."""
    for text in ("AS", "10H", "th", "T♥", "10♥", "2c", "qD"):
        assert parse_loose_card(text) == parse_card(text)


@pytest.mark.parametrize("text", ["1h", "ax", "", "q", "qq", "11h", "hh", "10", "a s d"])
def test_record_a_loose_entry_that_names_no_card_says_so(text: str) -> None:
    with pytest.raises(EntryError, match="is not a card"):
        parse_loose_card(text)


def test_record_completion_offers_the_cards_left_that_the_typing_could_start() -> None:
    queens = {parse_card(c) for c in ("QS", "QH", "QD", "QC")}
    left = FULL_DECK & ~mask_of([parse_card("QH")])
    assert set(matching_cards("q", left)) == queens - {parse_card("QH")}
    assert set(matching_cards("♥", FULL_DECK)) == set(range(13, 26))
    assert set(matching_cards("1", FULL_DECK)) == {parse_card(f"T{s}") for s in SUITS}
    assert list(matching_cards("10h", FULL_DECK)) == [parse_card("TH")]


def test_record_several_cards_are_read_from_one_line() -> None:
    assert parse_cards("KH 7s, 2c") == tuple(parse_card(c) for c in ("KH", "7S", "2C"))
    assert parse_cards("t h") == (parse_card("TH"),)


def test_record_players_are_named_by_a_unique_prefix() -> None:
    assert find_player("b", PLAYERS) == "bob"
    assert find_player("ANN", PLAYERS) == "ann"  # exact beats a longer id it starts
    assert find_player("zed", PLAYERS) is None
    with pytest.raises(EntryError, match="could be ann or anton"):
        find_player("an", PLAYERS)
    assert split_player("cat 7h", PLAYERS) == ("cat", "7h")
    assert split_player("7h", PLAYERS) == (None, "7h")


def test_record_declarations_by_word_or_letter() -> None:
    """docs/rules.md §2.5: the four declarations, as docs/log-format.md spells them or by a letter."""
    assert [parse_action(w) for w in ("p", "x", "-", "m", "d")] == [
        Action.PLAY,
        Action.PASS,
        Action.PASS,
        Action.TAKE_MISS,
        Action.DEFEND,
    ]
    assert parse_action("take miss") == Action.TAKE_MISS
    with pytest.raises(EntryError, match="not a declaration"):
        parse_action("fold")


# ---------------------------------------------------------------- typed lines to entries

SESSION = {"id": "t", "ruleset": "three-card", "players": [{"id": p} for p in PLAYERS]}


def _begun() -> list[dict[str, object]]:
    return [
        session_entry(SESSION),
        {"kind": "deal", "deal": 1, "dealer": "ann"},
        {"kind": "turn_up", "card": "9D"},
    ]


def test_record_commands_are_words_at_any_prompt() -> None:
    standing = judge([session_entry(SESSION)])
    assert [read_line(w, standing) for w in ("u", "q", "?", "Undo")] == [UNDO, QUIT, HELP, UNDO]


def test_record_enter_accepts_the_proposed_dealer() -> None:
    standing = judge([session_entry(SESSION)])
    assert standing.ask.stage is Stage.DEALER
    assert read_line("", standing) == {"kind": "deal", "deal": 1, "dealer": "ann"}
    assert read_line("bo", standing) == {"kind": "deal", "deal": 1, "dealer": "bob"}


def test_record_a_declaration_goes_to_the_player_due_unless_another_is_named() -> None:
    """docs/rules.md §2.5: declarations go clockwise from the dealer's left (anton here)."""
    standing = judge(_begun())
    assert (standing.ask.stage, standing.ask.player) == (Stage.DECLARE, "anton")
    assert read_line("p", standing)["event"] == {  # type: ignore[index]
        "type": "declare",
        "player": "anton",
        "action": "play",
    }
    assert read_line("cat pass", standing)["event"]["player"] == "cat"  # type: ignore[index]


def test_record_a_card_goes_to_the_player_on_turn_and_a_named_one_out_of_turn() -> None:
    entries = _begun() + [
        {"kind": "event", "event": {"type": "declare", "player": p, "action": a}}
        for p, a in (("anton", "play"), ("bob", "play"), ("cat", "pass"), ("ann", "pass"))
    ]
    standing = judge(entries)
    assert (standing.ask.stage, standing.ask.player) == (Stage.PLAY, "anton")
    assert read_line("a ♦", standing)["event"] == {  # type: ignore[index]
        "type": "play",
        "player": "anton",
        "card": "AD",
    }
    assert read_line("bob 10s", standing)["event"]["player"] == "bob"  # type: ignore[index]
    assert read_line("ad civil", standing)["event"]["announce"] == "pam_be_civil"  # type: ignore[index]


def test_record_hands_shown_and_the_deal_words() -> None:
    standing = judge(_begun())
    assert read_line("show cat KH 7s 2c", standing) == {
        "kind": "hand",
        "player": "cat",
        "cards": ["KH", "7S", "2C"],
    }
    assert read_line("show miss as qd 7c", standing) == {
        "kind": "miss",
        "cards": ["AS", "QD", "7C"],
    }
    assert read_line("flush bob", standing)["event"] == {  # type: ignore[index]
        "type": "show_flush",
        "player": "bob",
    }
    assert read_line("misdeal", standing) == {"kind": "misdeal"}
    with pytest.raises(EntryError, match="not in play"):
        read_line("end", standing)

"""Rules at a later trick, tested from a position (``loo_helpers.position``) instead of a
scripted deal: hands now, trumps, the trick so far.  The ruleset is ``three-card`` (docs/rules.md
§8) unless a test says otherwise; ann is the eldest and cat deals."""

from __future__ import annotations

from loo_helpers import legal_now, position

from loo_replay.engine.cards import parse_card
from loo_replay.engine.legal import breach, legal_cards
from loo_replay.engine.model import DealRecord, Declare, Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealContext, Replay
from loo_replay.engine.vocab import Action
from loo_replay.rulesets import builtin


def test_trump_after_trick_binds_the_leader_of_trick_3_not_of_trick_1() -> None:
    """docs/rules.md §3 ``lead.trump_after_trick``: the winner of a trick must lead a trump."""
    hands = "ann: 9D 4S | bob: 7H 5C | cat: QH 2C"
    later = position(hands, trump="D", trick=3)
    first = position(hands, trump="D", trick=1, rules={"lead.top_trump": "off"})
    assert legal_now(later, "ann") == ["9D"]
    assert breach(later, 0, parse_card("4S")) == "trump-after-trick"
    assert legal_now(first, "ann") == ["9D", "4S"]


def test_head_trick_at_trick_3_binds_a_follower_who_can_beat_the_card_led() -> None:
    """docs/rules.md §4 ``follow.head``: following suit, head the trick if able."""
    state = position("ann: 9S | bob: KS 3S | cat: QH 2C", trump="D", trick=3, table="ann 9S")
    assert legal_now(state, "bob") == ["KS"]
    assert breach(state, 1, parse_card("3S")) == "head-trick"
    plain = position(
        "ann: 9S | bob: KS 3S | cat: QH 2C",
        trump="D",
        trick=3,
        table="ann 9S",
        rules={"follow.head": False},
    )
    assert legal_now(plain, "bob") == ["KS", "3S"]


def test_lead_top_trump_is_the_king_when_the_ace_is_turned_and_nothing_once_it_is_played() -> None:
    """docs/rules.md §3 ``lead.top_trump`` (every lead): the ace of trumps must be led, the king
    when the ace is turned up; once the top trump has been played, nothing binds."""
    rules = {"lead.top_trump": "every", "lead.trump_after_trick": False, "lead.trump_if": 0}
    hands = "ann: KD 4S | bob: 7H 5C | cat: QH 2C"
    turned = position(hands, trump="D", trick=2, turned="AD", rules=rules)
    gone = position(hands, trump="D", trick=2, gone="AD 3H 6C", turned="8D", rules=rules)
    assert legal_now(turned, "ann") == ["KD"]
    assert breach(turned, 0, parse_card("4S")) == "lead-top-trump"
    assert legal_now(gone, "ann") == ["KD", "4S"]


def _scripted(options: Options, cards: int) -> Replay:
    """The first ``cards`` plays for real, trumps diamonds (turn-up 3D): ann leads AS and
    wins, then leads the trump 9D (trump after trick) and wins again."""
    hands = ("AS 2S 9D", "5S 6S 7H", "8S 9S QH")
    record = DealRecord(
        1,
        ("ann", "bob", "cat"),
        2,
        tuple(tuple(parse_card(c) for c in h.split()) for h in hands),
        miss=tuple(parse_card(c) for c in ["JH", "TC", "4H"]),
        turn_up=parse_card("3D"),
    )
    replay = Replay(record, options, DealContext(single=False))
    events: list[Declare | Play] = [Declare(i, s, Action.PLAY) for i, s in enumerate((0, 1, 2))]
    order = [(0, "AS"), (1, "5S"), (2, "8S"), (0, "9D"), (1, "6S"), (2, "9S")][:cards]
    events += [
        Play(i, seat, parse_card(card), False) for i, (seat, card) in enumerate(order, start=3)
    ]
    for event in events:
        applied = replay.apply(event)
        assert applied.judged and applied.error is None and not applied.violations
    return replay


def test_a_position_gives_the_legal_cards_of_the_same_position_played_out() -> None:
    """The builder agrees with the engine: the leads of tricks 2 and 3 reached by playing
    the tricks before have the legal cards of the positions written out (docs/rules.md §3: ann,
    who won trick 1, must lead her trump to trick 2)."""
    options = builtin("three-card").options
    written = {
        2: position(
            "ann: 2S 9D | bob: 6S 7H | cat: 9S QH", trump="D", trick=2, gone="AS 5S 8S", turned="3D"
        ),
        3: position(
            "ann: 2S | bob: 7H | cat: QH", trump="D", trick=3, gone="AS 5S 8S 9D 6S 9S", turned="3D"
        ),
    }
    for trick, state in written.items():
        replay = _scripted(options, 3 * (trick - 1))
        assert replay.state.trick is None and replay.leader == 0
        for seat in range(3):
            assert legal_cards(state, seat) == legal_cards(replay.state, seat), (trick, seat)
    assert legal_now(written[2], "ann") == ["9D"]

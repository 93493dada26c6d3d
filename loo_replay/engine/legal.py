"""Which cards a player may play: RULES.md §3 (leading) and §4 (following).

``legal_cards`` is the single source of legality; the validator, the
simulator and the replayer all ask it.  The rules are a sequence of steps,
each narrowing the legal set; a card outside the final set breaks the first
step that excluded it, and that step's code names the revoke.
"""

from __future__ import annotations

from collections.abc import Iterator

from loo_replay.engine.cards import (
    PAM,
    SUIT_SYMBOLS,
    cards_of,
    display,
    display_cards,
)
from loo_replay.engine.model import Trick
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, NO_TRUMP, POWER, TRUMP_ORDER

Step = tuple[str, int]


def add_card(
    state: DealState, trick: Trick, seat: int, card: int, legal: int, event: int = -1
) -> None:
    """Play ``card`` to ``trick``: the one place where the suit led, the winning card and
    whether the trick is trumped are decided (RULES.md §1, winning card)."""
    trump = state.trump
    pam = state.pam
    cards = trick.cards
    if trick.live:
        led = trick.led
    else:
        led = trick.led = trump if pam and card == PAM and trump != NO_TRUMP else card // 13
        trick.lead = card
    power = POWER[pam][trump][led][card]
    if power > trick.win_power:
        trick.win, trick.win_power = len(cards), power
    if trump != NO_TRUMP and led != trump and state.trump_mask >> card & 1:
        trick.trumped = True
    cards.append((seat, card, legal, event))
    trick.live += 1
    trick.seats |= 1 << seat
    state.hands[seat] &= ~(1 << card)
    state.played |= 1 << card


def take_back(state: DealState, trick: Trick, saved: tuple[int, int, int, bool]) -> None:
    """Undo the last ``add_card`` of ``trick``; ``saved`` is its (led, win, win_power,
    trumped) from before that card.  A search steps through positions with the two."""
    seat, card, _, _ = trick.cards.pop()
    trick.live -= 1
    trick.led, trick.win, trick.win_power, trick.trumped = saved
    trick.seats &= ~(1 << seat)
    state.hands[seat] |= 1 << card
    state.played &= ~(1 << card)


def _higher(mask: int, powers: tuple[int, ...], than: int) -> int:
    out = 0
    for card in cards_of(mask):
        if powers[card] > than:
            out |= 1 << card
    return out


def _highest(mask: int, state: DealState) -> int:
    for card in TRUMP_ORDER[state.pam][state.trump]:
        if mask >> card & 1:
            return card
    raise ValueError("no trump in mask")


def _run_from_highest(mask: int, state: DealState) -> int:
    """Trumps held in an unbroken run down from the highest held; gaps filled by
    cards already played or turned up (``lead.highest_trump = "two_players"``)."""
    run, started = 0, False
    filled = state.played | state.turned
    for card in TRUMP_ORDER[state.pam][state.trump]:
        if mask >> card & 1:
            run |= 1 << card
            started = True
        elif started and not filled >> card & 1:
            break
    return run


def lead_steps(state: DealState, seat: int, trick_no: int) -> Iterator[Step]:
    """RULES.md §3: each option that binds the leader, in order of precedence."""
    if state.trump == NO_TRUMP:
        return
    o = state.options
    hand = state.hands[seat]
    trumps = hand & state.trump_mask
    if not trumps:
        return
    count = trumps.bit_count()
    if o.lead_top_trump == "every" or (o.lead_top_trump == "first" and trick_no == 1):
        top = state.top_trump()
        if top is not None and hand >> top & 1:
            yield "lead-top-trump", 1 << top
    rule = o.lead_highest_trump
    if count >= 2:
        if rule == "always" or (rule == "first" and trick_no == 1):
            yield "lead-highest-trump", 1 << _highest(trumps, state)
        elif rule == "two_players" and len(state.playing()) == 2:
            yield "lead-highest-trump", _run_from_highest(trumps, state)
    if o.lead_trump_if and count >= o.lead_trump_if:
        yield "lead-trump", trumps
    if o.lead_trump_after_trick and trick_no >= 2:
        yield "trump-after-trick", trumps


def follow_steps(state: DealState, seat: int, trick: Trick) -> Iterator[Step]:
    """RULES.md §4: the steps that bind a player following to ``trick``."""
    o = state.options
    hand = state.hands[seat]
    led = trick.led
    if pam_barred(state, seat, trick):
        hand &= ~(1 << PAM)
        yield "pam-be-civil", hand
    suited = hand & state.suit_masks[led]
    powers = POWER[state.pam][state.trump][led]
    win = trick.win_power
    if suited:
        yield "follow-suit", suited
        if o.follow_head and not trick.trumped:
            higher = _higher(suited, powers, win)
            if higher:
                yield "head-trick", higher
        return
    if state.trump == NO_TRUMP:
        return
    trumps = hand & state.trump_mask
    if not trumps:
        return
    higher = _higher(trumps, powers, win)
    if o.follow_void == "trump":
        yield "must-trump", trumps
        if higher:
            yield "must-overtrump", higher
    elif o.follow_void == "overtrump" and higher:
        yield ("must-overtrump" if trick.trumped else "must-trump"), higher


def pam_barred(state: DealState, seat: int, trick: Trick) -> bool:
    """Whether "Pam, be civil" forbids ``seat`` to play Pam to ``trick`` (RULES.md §4.1)."""
    o = state.options
    hand = state.hands[seat]
    if not (state.pam and state.trump != NO_TRUMP and hand >> PAM & 1):
        return False
    if trick.lead != ACES[state.trump]:
        return False
    if not (
        o.follow_pam_civil == "always" or (o.follow_pam_civil == "announced" and state.announce)
    ):
        return False
    if o.follow_pam_civil_strict:
        return hand != 1 << PAM
    return bool(hand & state.trump_mask & ~(1 << PAM))


def steps(state: DealState, seat: int) -> Iterator[Step]:
    """The binding steps for ``seat`` to play now: leading or following."""
    trick = state.trick
    if trick is None or not trick.live:
        number = trick.number if trick is not None else len(state.tricks) + 1
        return lead_steps(state, seat, number)
    return follow_steps(state, seat, trick)


def legal_cards(state: DealState, seat: int) -> int:
    """The mask of cards ``seat`` may play now; never empty while he holds a card."""
    legal = state.hands[seat]
    for _, mask in steps(state, seat):
        legal &= mask  # each binding step narrows what the ones before left
    return legal


def breach(state: DealState, seat: int, card: int) -> str | None:
    """The code of the first step that ``card`` breaks, or None when it is legal."""
    for code, mask in steps(state, seat):
        if not mask >> card & 1:
            return code
    return None


def explain(code: str, state: DealState, seat: int) -> str:
    """Why the step ``code`` bound ``seat``: the clause of RULES.md in plain words."""
    trick = state.trick
    trump = SUIT_SYMBOLS[state.trump] if state.trump != NO_TRUMP else "none"
    if code == "lead-top-trump":
        top = state.top_trump()
        if top == PAM:
            return "Pam, the top trump, must be led"
        if top == ACES[state.trump]:
            return "the ace of trumps must be led"
        return f"the top trump {display(top or 0)} must be led (the ace is turned up)"
    if code == "lead-highest-trump":
        if state.options.lead_highest_trump == "two_players":
            return (
                "with two players standing, holding two or more trumps, the highest "
                "(or one in unbroken sequence with it) must be led"
            )
        return "holding two or more trumps, the highest must be led"
    if code == "lead-trump":
        n = state.options.lead_trump_if
        return f"holding {'a trump' if n == 1 else f'{n} or more trumps'}, a trump must be led"
    if code == "trump-after-trick":
        return "the winner of a trick must lead a trump"
    assert trick is not None and trick.live
    led = SUIT_SYMBOLS[trick.led]
    winner = display(trick.cards[trick.win][1])
    if code == "pam-be-civil":
        if state.options.follow_pam_civil_strict:
            return 'the ace of trumps was led: "Pam, be civil" bars Pam unless it is the last card held'
        return 'the ace of trumps was led: "Pam, be civil" bars Pam while another trump is held'
    if code == "follow-suit":
        return f"the suit led ({led}) must be followed"
    if code == "head-trick":
        return f"the trick must be headed with a higher {led} (winning card {winner})"
    if code == "must-trump":
        return f"void in {led}, a trump must be played (trumps {trump})"
    if code == "must-overtrump":
        return f"void in {led}, a trump above the winning {winner} must be played"
    raise ValueError(f"no explanation for {code}")


def describe_play(state: DealState, seat: int, card: int) -> str:
    """The situation of a revoke, the card played after the verb: ``eve led 4♠ holding J♦ 4♠
    (trumps ♦)``, ``eve played J♣ to 4♥, holding 7♥ J♣ A♣ (trumps ♦)``."""
    trick = state.trick
    if trick is None or not trick.live:
        did = f"led {display(card)}"
    else:
        did = f"played {display(card)} to {display(trick.lead)},"
    trump = f"trumps {SUIT_SYMBOLS[state.trump]}" if state.trump != NO_TRUMP else "no trumps"
    return f"{state.seats[seat]} {did} holding {display_cards(state.held(seat))} ({trump})"

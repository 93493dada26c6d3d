"""Findings of the audit in plain words, for pages and text output alike.

The engine names a discrepancy by its field (``payouts.cat``, ``pool_next``);
a reader wants "cat's payout: recorded 6, the rules give 3".  The wording
lives here, once, as pure functions of the values: no I/O, no HTML (callers
escape what they show).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from loo_replay.output import numbers

# Per-player fields (``<field>.<player>``): what one of the player's amounts is called.
PLAYER_FIELDS = {
    "payouts": "payout",
    "looed": "loo",
    "penalties": "penalty",
    "tricks": "tricks won",
    "stacks": "stack after the deal",
}
# Fields of the deal as a whole.
DEAL_FIELDS = {
    "pool_start": "the pool at the deal",
    "pool_next": "the pool carried to the next deal",
}


def chips(value: int) -> str:
    """An amount of chips, with thousands marked: ``811,188`` (``numbers.count``)."""
    return numbers.count(value)


def stack(value: int) -> str:
    """A player's stack: below zero the player owes the difference (``owes 811,188``)."""
    return f"owes {chips(-value)}" if value < 0 else chips(value)


def _stack_value(value: int) -> str:
    return f"a debt of {chips(-value)}" if value < 0 else chips(value)


def who(player: str, names: Mapping[str, str | None] | None = None) -> str:
    """The player as the log names them, else by id."""
    name = (names or {}).get(player)
    return name or player


def discrepancy(
    field: str, recorded: int, expected: int, names: Mapping[str, str | None] | None = None
) -> str:
    """A discrepancy in words: ``payouts.cat`` recorded 6, expected 3 reads
    "cat's payout: recorded 6, the rules give 3" (``names`` maps ids to names)."""
    item, _, player = field.partition(".")
    shown = _stack_value if item == "stacks" else chips
    values = f"recorded {shown(recorded)}, the rules give {shown(expected)}"
    if item == "tricks":
        values = f"recorded {recorded}, the play gives {expected}"
    if player and item in PLAYER_FIELDS:
        return f"{who(player, names)}'s {PLAYER_FIELDS[item]}: {values}"
    if not player and item in DEAL_FIELDS:
        return f"{DEAL_FIELDS[item]}: {values}"
    # A field this module does not know yet: still readable, never dropped.
    subject = f"{who(player, names)}'s {item}" if player else item.replace("_", " ")
    return f"{subject}: {values}"


def display_names(
    players: Iterable[str], names: Mapping[str, str | None] | None = None
) -> dict[str, str]:
    """How each player is shown: the name the log gives, else the id; names that look
    alike (``told_apart``) get their ids added (``Ann (ann2)``), so that no two players
    read the same."""
    players = list(dict.fromkeys(players))
    shown = told_apart((p, who(p, names)) for p in players)
    return {p: shown[p, who(p, names)] for p in players}


def told_apart(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Each (id, text shown for it) as shown beside the others: a text whose confusable
    skeleton (UTS #39: ``Ann``, Cyrillic ``Аnn``, ``A\u200bnn``) another id's text shares
    gets the id added, and an id that itself looks like another of them is spelled with its
    characters beyond ASCII escaped (``\u0410nn``)."""
    from loo_replay.lookalike import skeleton, spelled  # the data is read where names are shown

    pairs = list(dict.fromkeys(pairs))
    worn: dict[str, set[str]] = {}
    for player, text in pairs:
        worn.setdefault(skeleton(text), set()).add(player)
    ids_worn: dict[str, int] = {}
    for player in {p for p, _ in pairs}:
        ids_worn[skeleton(player)] = ids_worn.get(skeleton(player), 0) + 1
    out = {}
    for player, text in pairs:
        if len(worn[skeleton(text)]) == 1:
            out[player, text] = text
            continue
        tag = player if ids_worn[skeleton(player)] == 1 else spelled(player)
        out[player, text] = text if tag == text else f"{text} ({tag})"
    return out


# A deal recorded at a table (docs/log-format.md, "Hands left out"): how its hands are shown, and what its
# unknown cards left unchecked, in the text audit and both replays alike.
DERIVED_HANDS = "as the plays show them (hands left out)"


def unchecked(checks: Iterable[str]) -> str:
    """The checks a partial deal could not make: ``not checked (cards unknown): …``."""
    return f"not checked (cards unknown): {', '.join(checks)}"

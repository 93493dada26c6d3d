"""What a scorer types at the table, read loosely: cards as ``10h``, ``QS``, ``q♠``, ``t h`` or
``♥q``, players by a unique prefix of their id, declarations by their first letter.

The log itself keeps the strict spellings of docs/log-format.md (``parse_card``); this module only
turns quick typing into those cards, and says plainly what it could not read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from loo_replay.engine.cards import RANKS, SUITS, cards_of
from loo_replay.engine.model import ACTION_OF
from loo_replay.engine.vocab import Action
from loo_replay.errors import InputError
from loo_replay.lookalike import HIDDEN

_SUIT_OF = {"s": 0, "h": 1, "d": 2, "c": 3}
_SUIT_SIGNS = str.maketrans("♠♤♥♡♦♢♣♧", "sshhddcc")
_RANK_OF = {r.lower(): i for i, r in enumerate(RANKS)}
CARD_HINT = "type rank then suit: 10h, QS, q♠, t h"


class EntryError(InputError, ValueError):
    """Something typed that names no card, player or declaration; the message says why."""


# A terminal's escape sequences, as a paste may carry them.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI: colours, cursor moves, bracketed paste (ESC [200~)
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (titles, links), DCS: to their end
    r"|\x1bO[ -~]?"  # SS3: a function key
    r"|\x1b[ -/]*[0-~]?"  # ESC and its final byte, or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # the one-byte CSI
)


def typed(text: str) -> str:
    """What was typed, without the escape sequences a paste may carry (colours,
    bracketed-paste markers), the hidden characters every output escapes
    (``lookalike.HIDDEN``: controls, bidi overrides, invisible characters) and private or
    unassigned code points: none of them is part of a card, a name or a word, and none is
    ever stored or echoed."""
    text = _ESCAPE.sub("", text)
    return "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or not (HIDDEN.match(ch) or unicodedata.category(ch) in ("Co", "Cn"))
    )


def _folded(text: str) -> str:
    """Lower case, no spaces, suit signs as letters, ``10`` as ``t``: one spelling per card."""
    return "".join(text.split()).lower().translate(_SUIT_SIGNS).replace("10", "t")


def parse_loose_card(text: str) -> int:
    """The card ``text`` names, rank and suit in either order, in any case, with or without a
    space: ``10h``, ``T H``, ``QS``, ``q♠``, ``♥q``."""
    t = _folded(text)
    if len(t) == 2:
        for rank, suit in ((t[0], t[1]), (t[1], t[0])):
            if rank in _RANK_OF and suit in _SUIT_OF:
                return _SUIT_OF[suit] * 13 + _RANK_OF[rank]
    raise EntryError(f"{text.strip()!r} is not a card ({CARD_HINT})")


def card_prefixes(card: int) -> tuple[str, str]:
    """The two folded spellings of ``card`` a scorer may start typing: rank first, suit first."""
    rank, suit = RANKS[card % 13].lower(), SUITS[card // 13].lower()
    return rank + suit, suit + rank


def matching_cards(text: str, candidates: int) -> Iterator[int]:
    """The cards of the mask ``candidates`` that ``text`` could be the start of (``q`` gives
    every queen left, ``h`` every heart left, ``1`` every ten)."""
    t = _folded(text)
    if t == "1":
        t = "t"
    for card in cards_of(candidates):
        if any(p.startswith(t) for p in card_prefixes(card)):
            yield card


def parse_cards(text: str) -> tuple[int, ...]:
    """Cards separated by spaces or commas (``KH 7s 2c``); a space inside a card (``t h``) is
    allowed only when the card is typed alone."""
    words = text.replace(",", " ").split()
    if len(words) == 2 and len(_folded(text)) == 2:
        return (parse_loose_card(text),)
    return tuple(parse_loose_card(w) for w in words)


def find_player(word: str, players: Sequence[str]) -> str | None:
    """The player ``word`` names: his id, or a prefix of exactly one id (case-insensitive);
    None when it names nobody; an error when it could be several."""
    w = word.lower()
    exact = [p for p in players if p.lower() == w]
    if exact:
        return exact[0]
    starts = [p for p in players if p.lower().startswith(w)]
    if len(starts) > 1:
        raise EntryError(f"{word!r} could be {' or '.join(starts)}: type more of the name")
    return starts[0] if starts else None


def split_player(text: str, players: Sequence[str]) -> tuple[str | None, str]:
    """A leading player word and the rest (``cat 7h`` gives ``cat``, ``7h``); no player when
    the first word names none, or when it is all there is."""
    words = text.split(maxsplit=1)
    if len(words) < 2:
        return None, text.strip()
    player = find_player(words[0], players)
    return (player, words[1].strip()) if player is not None else (None, text.strip())


_DECLARE_WORDS: dict[str, Action] = {
    **ACTION_OF,
    "p": Action.PLAY,
    "x": Action.PASS,
    "-": Action.PASS,
    "m": Action.TAKE_MISS,
    "miss": Action.TAKE_MISS,
    "d": Action.DEFEND,
}


def parse_action(text: str) -> Action:
    """A declaration: ``play``/``p``, ``pass``/``x``/``-``, ``miss``/``m``, ``defend``/``d``."""
    action = _DECLARE_WORDS.get(text.strip().lower().replace(" ", "_"))
    if action is None:
        raise EntryError(
            f"{text.strip()!r} is not a declaration (play/p, pass/x, miss/m, defend/d)"
        )
    return action

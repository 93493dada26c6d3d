"""One line typed at a prompt to the journal entry it stands for (or a command: undo, quit,
help).  Whether the entry is possible is the engine's question, asked after this (``judge``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from loo_replay.engine.cards import canonical
from loo_replay.recorder.entry import (
    EntryError,
    find_player,
    parse_action,
    parse_cards,
    parse_loose_card,
    split_player,
    typed,
)
from loo_replay.recorder.journal import Entry
from loo_replay.recorder.judge import Stage, Standing

UNDO, QUIT, HELP = "undo", "quit", "help"
COMMANDS = {"u": UNDO, "undo": UNDO, "q": QUIT, "quit": QUIT, "?": HELP, "help": HELP}
ANNOUNCE = "civil"  # "Pam, be civil" announced with a lead: ``ad civil``
DEAL_WORDS = ("show", "flush", "misdeal", "end")
# The longest line an entry may be: the longest real one (``show``, a player's id of 128
# characters and five cards) is well under 200.  A longer line is refused
# whole, and the keys past it cost nothing: a paste of any length is read in linear time
# and bounded memory (docs/record.md).
LINE_CHARS = 1_000
TOO_LONG = f"a line of more than {LINE_CHARS:,} characters is no entry: not read"


def bounded_lines(stream: BinaryIO) -> Iterator[str | None]:
    """The lines of ``stream`` (a pipe, a regular file) as text, each read as it comes; None
    for a line longer than ``LINE_CHARS``, whose rest is skipped a block at a time and never
    held.  Bytes that are not UTF-8 are replaced (and then refused as no card or player)."""
    most = 4 * LINE_CHARS  # bytes: UTF-8 takes at most 4 a character
    while first := stream.readline(most):
        rest = first
        while len(rest) == most and not rest.endswith(b"\n"):
            rest = stream.readline(most)  # the rest of a long line, read and dropped
        if rest is not first:
            yield None
            continue
        text = first.decode("utf-8", "replace").rstrip("\r\n")
        yield text if len(text) <= LINE_CHARS else None


def read_line(text: str, standing: Standing) -> Entry | str:
    """The entry ``text`` types at ``standing``'s question, or a command word."""
    text = typed(text).strip()
    command = COMMANDS.get(text.lower())
    if command is not None:
        return command
    ask = standing.ask
    players = standing.header.players
    first, _, rest = text.partition(" ")
    if first.lower() in DEAL_WORDS and (ask.stage is not Stage.DEALER or first.lower() == "show"):
        if ask.deal == 1 and ask.stage is Stage.DEALER:
            raise EntryError("no deal yet: name the dealer first")
        return _deal_word(first.lower(), rest.strip(), players, ask.stage)
    if ask.stage is Stage.DEALER:
        dealer = find_player(text, players) if text else ask.player
        if dealer is None:
            raise EntryError(f"{text!r} is not a player ({', '.join(players)})")
        return {"kind": "deal", "deal": ask.deal, "dealer": dealer}
    if not text:
        raise EntryError("nothing typed (u undoes, ? lists what can be typed)")
    if ask.stage is Stage.TURN_UP:
        return {"kind": "turn_up", "card": canonical(parse_loose_card(text))}
    if ask.stage is Stage.TRUMP_TURN:
        return _event({"type": "turn_up", "card": canonical(parse_loose_card(text))})
    if ask.stage is Stage.DECLARE:
        return _declaration(text, players, ask.player or "")
    if ask.stage is Stage.EXCHANGE:
        return _exchange(text, ask.player or "")
    try:
        return _play(text, players, ask.player or "")
    except EntryError:
        try:  # a declaration where none is asked (a must deal, before the first card)
            return _declaration(text, players, ask.player or "")
        except EntryError:
            pass
        raise


def _declaration(text: str, players: tuple[str, ...], due: str) -> Entry:
    player, word = split_player(text, players)
    action = parse_action(word)
    return _event({"type": "declare", "player": player or due, "action": action.value})


def _event(event: dict[str, object]) -> Entry:
    return {"kind": "event", "event": event}


def _play(text: str, players: tuple[str, ...], due: str) -> Entry:
    """``7h`` for the player on turn, ``cat 7h`` for another (out of turn), ``ad civil`` to
    announce "Pam, be civil" with the lead."""
    words = text.split()
    announce = len(words) > 1 and words[-1].lower() == ANNOUNCE
    if announce:
        text = " ".join(words[:-1])
    try:
        player, card = due, parse_loose_card(text)
    except EntryError:
        named, rest = split_player(text, players)
        if named is None:
            raise
        player, card = named, parse_loose_card(rest)
    event: dict[str, object] = {"type": "play", "player": player, "card": canonical(card)}
    if announce:
        event["announce"] = "pam_be_civil"
    return _event(event)


def _exchange(text: str, player: str) -> Entry:
    """``0`` (or ``-``): no exchange; ``2``: two cards, unseen; ``KH 2C / 7D 8D``: the cards
    discarded, then drawn, when they were shown."""
    event: dict[str, object] = {"type": "exchange", "player": player, "discard": [], "draw": []}
    if text in ("-", "0", "none"):
        return _event(event)
    if text.isdigit():
        event["meta"] = {"count": int(text)}  # the cards were not seen: the count alone
        return _event(event)
    discard, sep, draw = text.partition("/")
    if not sep:
        raise EntryError("an exchange is a count (2), 0 for none, or the cards: discarded / drawn")
    event["discard"] = [canonical(c) for c in parse_cards(discard)]
    event["draw"] = [canonical(c) for c in parse_cards(draw)]
    return _event(event)


def _deal_word(word: str, rest: str, players: tuple[str, ...], stage: Stage) -> Entry:
    """``show PLAYER CARDS`` (a hand shown), ``show miss CARDS``, ``flush PLAYER``,
    ``misdeal``, ``end`` (the deal stops here, abandoned)."""
    if word in ("misdeal", "end"):
        if rest:
            raise EntryError(f"{word} takes nothing after it")
        if word == "end" and stage is not Stage.PLAY:
            raise EntryError("end closes a deal in play; the deal is not in play")
        return {"kind": word}
    who, _, cards = rest.partition(" ")
    if word == "show" and who.lower() == "miss":
        return {"kind": "miss", "cards": [canonical(c) for c in parse_cards(cards)]}
    player = find_player(who, players) if who else None
    if player is None:
        raise EntryError(f"{word} PLAYER{' CARDS' if word == 'show' else ''}: name a player")
    if word == "flush":
        return _event({"type": "show_flush", "player": player})
    shown = parse_cards(cards)
    if not shown:
        raise EntryError("show PLAYER CARDS: the cards he shows")
    return {"kind": "hand", "player": player, "cards": [canonical(c) for c in shown]}

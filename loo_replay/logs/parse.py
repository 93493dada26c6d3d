"""A JSON session document to engine input, checking docs/log-format.md as it goes.

The checks here are the ones ``schemas/hand-log.schema.json`` states, plus
what a schema cannot say (unique players, seated players, draw as long as
discard).  A bad session header rejects every deal of the document; a bad
deal rejects only itself.  Every error carries the JSON pointer of the value
at fault and says what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, NoReturn, get_args

from loo_replay.engine.cards import CARD_SPELLINGS, CardError, parse_card
from loo_replay.engine.model import (
    ACTION_OF,
    ACTIONS,
    DealRecord,
    Declare,
    Event,
    Exchange,
    LogError,
    Play,
    ShowFlush,
    TurnUp,
)
from loo_replay.engine.options import OPTION_SPECS, HandSize, OptionError, check_option
from loo_replay.engine.records import field, record
from loo_replay.engine.session import DealInput, Recorded
from loo_replay.engine.vocab import Action
from loo_replay.logs.limits import LIMITS, Limits, over
from loo_replay.lookalike import SURROGATE, safe
from loo_replay.rulesets import builtin_names

MAX_INT = 2**53 - 1
HAND_SIZES: tuple[int, ...] = get_args(HandSize)
# No ruleset seats more: one pack of 52 deals a hand of three to 17 players at most (how
# many one ruleset seats, the miss counted, is the audit's to judge: ``audit.most_seated``).
MOST_SEATED = 52 // min(HAND_SIZES)
PLAYER_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
DOC_FIELDS = ("format", "version", "session", "deals", "meta")
SESSION_FIELDS = (
    "id",
    "ruleset",
    "rules",
    "started_at",
    "venue",
    "players",
    "chips",
    "meta",
    "seal",
)
DEAL_FIELDS = (
    "deal",
    "dealer",
    "players",
    "hands",
    "miss",
    "turn_up",
    "misdeal",
    "events",
    "recorded",
    "meta",
    "seal",
)
EVENT_FIELDS = {
    "declare": ("player", "action"),
    "exchange": ("player", "discard", "draw"),
    "show_flush": ("player",),
    "turn_up": ("card",),
    "play": ("player", "card", "announce"),
}
EVENT_REQUIRED = {
    "declare": ("player", "action"),
    "exchange": ("player", "discard", "draw"),
    "show_flush": ("player",),
    "turn_up": ("card",),
    "play": ("player", "card"),
}
RECORDED_INTS = ("pool_start", "pool_next")
RECORDED_MAPS = ("tricks", "payouts", "looed", "penalties", "stacks")
# The seals' algorithm and form (docs/evidence.md): checked here, their values by ``verify``.
SEAL_ALG = "loo-seal-v1"
SEAL_HEX = re.compile(r"[0-9a-f]{64}")


class Bad(Exception):
    """One structural error: the pointer of the value at fault and what was expected."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def pointer_token(key: str) -> str:
    """RFC 6901 escaping of one reference token."""
    return key.replace("~", "~0").replace("/", "~1")


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else '"' + value + '"'
    return text if len(text) <= 60 else text[:57] + "..."


def _fail(path: str, message: str) -> NoReturn:
    raise Bad(path, message)


def _object(value: Any, path: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(path, f"expected {what} (a JSON object), got {_shown(value)}")
    return value


def _list(value: Any, path: str, what: str, most: int = MAX_INT) -> list[Any]:
    if not isinstance(value, list):
        _fail(path, f"expected {what} (a JSON array), got {_shown(value)}")
    if len(value) > most:
        _fail(path, f"expected {what} of at most {most} items, got {len(value)}")
    return value


def _int(value: Any, path: str, minimum: int = 0) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(path, f"expected an integer, got {_shown(value)}")
    if not minimum <= value <= MAX_INT:
        _fail(path, f"expected an integer from {minimum} to {MAX_INT}, got {value}")
    return value


def _string(value: Any, path: str, what: str = "a string") -> str:
    if not isinstance(value, str):
        _fail(path, f"expected {what}, got {_shown(value)}")
    if not value.isascii() and SURROGATE.search(value) is not None:
        # the reader refuses these (``reader.decode``); a value made otherwise comes here
        _fail(path, f"expected text, got a lone surrogate in {_shown(safe(value, 57))}")
    return value


def _player_id(value: Any, path: str) -> str:
    if not isinstance(value, str) or not PLAYER_ID.fullmatch(value):
        _fail(path, f"expected a player id (1-64 of A-Z a-z 0-9 _ . -), got {_shown(value)}")
    return value


def _card(value: Any, path: str) -> int:
    try:
        return parse_card(value)
    except CardError:
        _fail(path, f'expected a card such as "AS", "10H", "th" or "T♥", got {_shown(value)}')


def _plain_cards(value: Any) -> tuple[int, ...] | None:
    """A list of card spellings as card numbers, without building any path; None sends the
    value through the full check in ``_cards``."""
    if type(value) is not list or len(value) > 52:
        return None
    spellings: dict[str, int] = CARD_SPELLINGS
    plain = [spellings.get(c, -1) if type(c) is str else -1 for c in value]
    return None if -1 in plain else tuple(plain)


def _cards(value: Any, path: str, least: int = 0) -> tuple[int, ...]:
    plain = _plain_cards(value)
    if plain is not None and len(plain) >= least:
        return plain
    items = _list(value, path, "a list of cards", 52)
    if len(items) < least:
        _fail(path, f"expected at least {least} card(s)")
    return tuple(_card(c, f"{path}/{i}") for i, c in enumerate(items))


def _fields(obj: Mapping[str, Any], path: str, allowed: tuple[str, ...], what: str) -> None:
    for key in obj:
        if key not in allowed:
            _fail(path, f"unknown field {key!r} in {what} (allowed: {', '.join(allowed)})")


def _required(obj: Mapping[str, Any], path: str, names: tuple[str, ...], what: str) -> None:
    for name in names:
        if name not in obj:
            _fail(path, f"{what} lacks required field {name!r}")


def _meta(obj: Mapping[str, Any], path: str) -> None:
    if "meta" in obj:
        _object(obj["meta"], f"{path}/meta", "meta")


def _seal_hex(value: Any, path: str) -> None:
    if not isinstance(value, str) or not SEAL_HEX.fullmatch(value):
        _fail(path, f"expected a seal (64 lower-case hex digits), got {_shown(value)}")


def _seal(obj: Mapping[str, Any], path: str) -> None:
    """The session's ``seal``, in its form: whether it holds is ``verify``'s to say."""
    if "seal" not in obj:
        return
    where = f"{path}/seal"
    seal = _object(obj["seal"], where, "the session's seal")
    _fields(seal, where, ("alg", "header"), "the session's seal")
    _required(seal, where, ("alg", "header"), "the session's seal")
    if seal["alg"] != SEAL_ALG:
        _fail(f"{where}/alg", f'expected "{SEAL_ALG}", got {_shown(seal["alg"])}')
    _seal_hex(seal["header"], f"{where}/header")


@record
class SessionHeader:
    """The ``session`` object of a document, checked."""

    id: str
    players: tuple[str, ...]
    names: Mapping[str, str] = field(default_factory=dict)
    ruleset: str | None = None
    rules: Mapping[str, object] = field(default_factory=dict)
    chips: Mapping[str, int] | None = None
    started_at: str | None = None
    venue: str | None = None
    meta: Mapping[str, Any] | None = None

    @cached_property
    def player_set(self) -> frozenset[str]:
        return frozenset(self.players)


@record(frozen=False)
class ParsedDocument:
    """A document split into its header and its deals (raw JSON kept for rejects)."""

    header: SessionHeader | None
    header_error: LogError | None
    raw_deals: Sequence[Any]  # a list, or the plain reader's RawDeals
    session_id: str | None = None
    # the document but its deals, as read: what the header's seal is taken over
    envelope: dict[str, Any] | None = None


def parse_document(doc: Any) -> ParsedDocument:
    """Check the envelope and the session header; deals are parsed one by one later."""
    if not isinstance(doc, dict):
        raise Bad("", f"expected a session document (a JSON object), got {_shown(doc)}")
    raw_deals = doc.get("deals")
    if not isinstance(raw_deals, list):
        if "deals" not in doc:
            raise Bad("", "the document lacks required field 'deals'")
        raise Bad("/deals", f"expected the deals (a JSON array), got {_shown(raw_deals)}")
    raw_session = doc.get("session")
    sid = raw_session.get("id") if isinstance(raw_session, dict) else None
    session_id = sid if isinstance(sid, str) and 0 < len(sid) <= 128 else None
    try:
        _fields(doc, "", DOC_FIELDS, "the document")
        _required(doc, "", ("format", "version", "session"), "the document")
        if doc["format"] != "loo-hand-log":
            _fail("/format", f'expected "loo-hand-log", got {_shown(doc["format"])}')
        version = doc["version"]
        if version != 1 or isinstance(version, bool):
            if isinstance(version, int | float) and not isinstance(version, bool):
                _fail(
                    "/version",
                    f"unsupported hand-log version {version}; this loo-replay reads version 1",
                )
            _fail("/version", f"expected the format version 1, got {_shown(version)}")
        _meta(doc, "")
        header = parse_session(doc["session"])
    except Bad as bad:
        error = LogError(bad.path, bad.message)
        return ParsedDocument(None, error, raw_deals, session_id, _envelope(doc))
    return ParsedDocument(header, None, raw_deals, header.id, _envelope(doc))


def _envelope(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in doc.items() if key != "deals"}


def parse_session(value: Any) -> SessionHeader:
    path = "/session"
    s = _object(value, path, "the session")
    _fields(s, path, SESSION_FIELDS, "the session")
    _required(s, path, ("id", "players"), "the session")
    sid = _string(s["id"], f"{path}/id", "a session id (a string)")
    if not 1 <= len(sid) <= 128:
        _fail(f"{path}/id", f"expected a session id of 1 to 128 characters, got {len(sid)}")
    ruleset = None
    if "ruleset" in s:
        ruleset = _string(s["ruleset"], f"{path}/ruleset")
        if ruleset not in builtin_names():
            _fail(
                f"{path}/ruleset",
                f"unknown ruleset {_shown(ruleset)}; built-in rulesets: {', '.join(builtin_names())}",
            )
    rules: dict[str, object] = {}
    if "rules" in s:
        for name, val in _object(s["rules"], f"{path}/rules", "rule overrides").items():
            where = f"{path}/rules/{pointer_token(name)}"
            if name not in OPTION_SPECS:
                _fail(
                    f"{path}/rules",
                    f"unknown option {name!r}; options are: {', '.join(OPTION_SPECS)}",
                )
            if isinstance(val, float) and val.is_integer():
                val = int(val)
            try:
                rules[name] = check_option(name, val)
            except OptionError as exc:
                _fail(where, str(exc))
    players_raw = _list(s["players"], f"{path}/players", "the players")
    if len(players_raw) < 3:
        _fail(f"{path}/players", f"expected 3 or more players, got {len(players_raw)}")
    players: dict[str, int] = {}  # in order, and found at once: a session may list many
    names: dict[str, str] = {}
    for i, p in enumerate(players_raw):
        where = f"{path}/players/{i}"
        obj = _object(p, where, "a player")
        _fields(obj, where, ("id", "name"), "a player")
        _required(obj, where, ("id",), "a player")
        pid = _player_id(obj["id"], f"{where}/id")
        if pid in players:
            _fail(f"{where}/id", f"player id {pid!r} appears twice")
        players[pid] = i
        if "name" in obj:
            names[pid] = _string(obj["name"], f"{where}/name")
    chips = None
    if "chips" in s:
        chips = {}
        for pid, val in _object(s["chips"], f"{path}/chips", "starting chips").items():
            _player_id(pid, f"{path}/chips")
            chips[pid] = _int(val, f"{path}/chips/{pointer_token(pid)}")
            if pid not in players:
                _fail(
                    f"{path}/chips/{pointer_token(pid)}", f"chips for {pid!r}, who is not a player"
                )
    texts = {}
    for key in ("started_at", "venue"):
        if key in s:
            texts[key] = _string(s[key], f"{path}/{key}")
    _meta(s, path)
    _seal(s, path)
    return SessionHeader(
        id=sid,
        players=tuple(players),
        names=names,
        ruleset=ruleset,
        rules=rules,
        chips=chips,
        started_at=texts.get("started_at"),
        venue=texts.get("venue"),
        meta=s.get("meta"),
    )


def _seat(value: Any, path: str, seats: dict[str, int]) -> int:
    seat = seats.get(value) if type(value) is str else None
    if seat is not None:
        return seat  # a seated player's id, checked with the session's players
    pid = _player_id(value, path)
    seat = seats.get(pid)
    if seat is None:
        _fail(path, f"{pid!r} is not seated in this deal (seated: {', '.join(seats)})")
    return seat


def _events(value: Any, path: str, seats: dict[str, int], most: int) -> tuple[Event, ...]:
    events: list[Event] = []
    items = _list(value, path, "the events")
    if len(items) > most:  # a real deal has well under 200: replaying a million takes minutes
        _fail(path, over("deal_events", most, f"{len(items):,} events in one deal"))
    for i, raw in enumerate(items):
        event = _plain_event(i, raw, seats)
        events.append(event if event is not None else _event(i, raw, path, seats))
    return tuple(events)


def _plain_event(i: int, raw: Any, seats: dict[str, int]) -> Event | None:
    """The common shapes (a bare play or declaration, nothing odd) without building any
    path; None sends the event through the full check in ``_event``."""
    if type(raw) is not dict or len(raw) != 3:
        return None
    ev: dict[str, Any] = raw
    kind, player = ev.get("type"), ev.get("player")
    seat = seats.get(player) if type(player) is str else None
    if seat is None:
        return None
    if kind == "play":
        card = ev.get("card")
        spellings: dict[str, int] = CARD_SPELLINGS
        number = spellings.get(card) if type(card) is str else None
        return None if number is None else Play(i, seat, number, False)
    if kind == "declare":
        word = ev.get("action")
        actions: dict[str, Action] = ACTION_OF
        action = actions.get(word) if type(word) is str else None
        return None if action is None else Declare(i, seat, action)
    return None


def _event(i: int, raw: Any, path: str, seats: dict[str, int]) -> Event:
    """One event, every field checked, every error with its pointer."""
    where = f"{path}/{i}"
    ev = _object(raw, where, "an event")
    kind = ev.get("type")
    if "type" not in ev:
        _fail(where, "an event lacks required field 'type'")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        _fail(
            f"{where}/type",
            f"expected an event type ({', '.join(EVENT_FIELDS)}), got {_shown(kind)}",
        )
    allowed = ("type", "meta", *EVENT_FIELDS[kind])
    _fields(ev, where, allowed, f"a {kind} event")
    _required(ev, where, EVENT_REQUIRED[kind], f"a {kind} event")
    _meta(ev, where)
    if kind == "play":
        announce = ev.get("announce")
        if "announce" in ev and announce != "pam_be_civil":
            _fail(f"{where}/announce", f'expected "pam_be_civil", got {_shown(announce)}')
        return Play(
            i,
            _seat(ev["player"], f"{where}/player", seats),
            _card(ev["card"], f"{where}/card"),
            announce is not None,
        )
    elif kind == "declare":
        action = ACTION_OF.get(ev["action"]) if isinstance(ev["action"], str) else None
        if action is None:
            _fail(f"{where}/action", f"expected {' | '.join(ACTIONS)}, got {_shown(ev['action'])}")
        return Declare(i, _seat(ev["player"], f"{where}/player", seats), action)
    elif kind == "exchange":
        seat = _seat(ev["player"], f"{where}/player", seats)
        discard = _cards(ev["discard"], f"{where}/discard")
        draw = _cards(ev["draw"], f"{where}/draw")
        return Exchange(i, seat, discard, draw)
    elif kind == "show_flush":
        return ShowFlush(i, _seat(ev["player"], f"{where}/player", seats))
    else:
        return TurnUp(i, _card(ev["card"], f"{where}/card"))


def _recorded(value: Any, path: str, players: frozenset[str]) -> Recorded:
    r = _object(value, path, "the recorded outcome")
    _fields(r, path, RECORDED_INTS + RECORDED_MAPS, "recorded")
    ints = {k: _int(r[k], f"{path}/{k}") for k in RECORDED_INTS if k in r}
    maps: dict[str, dict[str, int]] = {}
    for key in RECORDED_MAPS:
        if key in r:
            least = -MAX_INT if key == "stacks" else 0
            raw = r[key]
            if _plain_counts(raw, least, players):
                maps[key] = raw  # player ids of the session and plain counts: nothing to check
                continue
            where = f"{path}/{key}"
            out: dict[str, int] = {}
            for pid, val in _object(raw, where, f"recorded {key}").items():
                _player_id(pid, where)
                out[pid] = _int(val, f"{where}/{pointer_token(pid)}", least)
            maps[key] = out
    return Recorded(**ints, **maps)  # type: ignore[arg-type]


def _plain_counts(raw: Any, least: int, players: frozenset[str]) -> bool:
    """Whether ``raw`` maps players of the session to integers from ``least`` up."""
    if type(raw) is not dict:
        return False
    counts: dict[str, Any] = raw
    for player, value in counts.items():
        if type(value) is not int or not least <= value <= MAX_INT or player not in players:
            return False
    return True


def too_many_seated(count: int, hand: int, most: int, miss: bool) -> str:
    """Why a deal seating ``count`` players cannot have been dealt: hands of ``hand`` cards
    (and the miss) reach ``most`` players at most."""
    also = " and the miss" if miss else ""
    return f"{count} players seated: one pack of 52 cards deals hands of {hand}{also} to {most} at most"


def parse_deal(value: Any, path: str, header: SessionHeader, limits: Limits = LIMITS) -> DealInput:
    """One deal to a ``DealInput``; a structural error, or more events than ``limits``
    allow, rejects it with its pointer."""
    number: int | None = None
    dealer: str | None = None
    if isinstance(value, dict):
        n, d = value.get("deal"), value.get("dealer")
        ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_INT
        number = n if ok else None
        dealer = d if isinstance(d, str) and d in header.player_set else None
    try:
        return _parse_deal(value, path, header, limits.deal_events)
    except Bad as bad:
        return DealInput(number, None, None, (LogError(bad.path, bad.message),), dealer, path)


def _parse_deal(value: Any, path: str, header: SessionHeader, most_events: int) -> DealInput:
    d = _object(value, path, "a deal")
    _fields(d, path, DEAL_FIELDS, "a deal")
    _required(d, path, ("deal", "dealer"), "a deal")
    number = _int(d["deal"], f"{path}/deal", 1)
    raw = _list(d["players"], f"{path}/players", "the seated players") if "players" in d else None
    if raw is not None and len(raw) < 3:
        _fail(f"{path}/players", f"expected 3 or more seated players, got {len(raw)}")
    count = len(header.players if raw is None else raw)
    if count > MOST_SEATED:  # before a thing is built a seat: a session may list a million
        where = "/session/players" if raw is None else f"{path}/players"
        _fail(where, too_many_seated(count, min(HAND_SIZES), MOST_SEATED, False))
    seats_list = list(header.players)
    if raw is not None:
        seated: dict[str, int] = {}  # found at once, however many are listed
        for i, p in enumerate(raw):
            pid = _player_id(p, f"{path}/players/{i}")
            if pid in seated:
                _fail(f"{path}/players", f"{pid!r} is seated twice")
            if pid not in header.player_set:
                _fail(f"{path}/players/{i}", f"{pid!r} is not a player of the session")
            seated[pid] = i
        seats_list = list(seated)
    seats = {p: i for i, p in enumerate(seats_list)}
    dealer = _seat(d["dealer"], f"{path}/dealer", seats)
    hands: list[tuple[int, ...] | None] = [None] * len(seats_list)
    if "hands" in d:
        for pid, cards in _object(d["hands"], f"{path}/hands", "the hands").items():
            seat = seats.get(pid)
            if seat is None:
                _player_id(pid, f"{path}/hands")
                _fail(
                    f"{path}/hands/{pointer_token(pid)}",
                    f"a hand for {pid!r}, who is not seated in this deal",
                )
            plain = _plain_cards(cards)
            hands[seat] = (
                plain if plain is not None else _cards(cards, f"{path}/hands/{pointer_token(pid)}")
            )
    miss = _cards(d["miss"], f"{path}/miss") if "miss" in d else None
    turn_up = _card(d["turn_up"], f"{path}/turn_up") if "turn_up" in d else None
    misdeal = False
    if "misdeal" in d:
        if not isinstance(d["misdeal"], bool):
            _fail(f"{path}/misdeal", f"expected true or false, got {_shown(d['misdeal'])}")
        misdeal = d["misdeal"]
    events = _events(d["events"], f"{path}/events", seats, most_events) if "events" in d else ()
    recorded = (
        _recorded(d["recorded"], f"{path}/recorded", header.player_set) if "recorded" in d else None
    )
    _meta(d, path)
    if "seal" in d:
        _seal_hex(d["seal"], f"{path}/seal")
    record = DealRecord(
        number=number,
        seats=tuple(seats_list),
        dealer=dealer,
        hands=tuple(hands),
        miss=miss,
        turn_up=turn_up,
        misdeal=misdeal,
        events=events,
    )
    return DealInput(number, record, recorded, (), seats_list[dealer], path)

"""The fast reader: a plainly written session document's bytes straight to the engine's input.

The full reader (``reader.decode``, then ``parse.parse_document`` and ``parse.parse_deal``)
reads any document: orjson makes an object of every value, then the checks walk them.
Most documents are written plainly, as loggers and ``simulate`` write them, and for those
this module reads the bytes once, in C when compiled, making only what the engine keeps:
card numbers, seats, events, the recorded counts.

Whatever it does not read plainly it hands back, so that its output is always the full
reader's, errors and JSON pointers included:

- a deal holding anything unusual (an escape, a non-ASCII byte, a fraction, a ``players``
  list after the seats it names, a value the checks reject) is read again from its own
  bytes by orjson and ``parse_deal``: a rejected deal gets the full reader's verdict;
- a document it cannot vouch for (duplicate keys, JSON that is not valid, a header the
  checks reject, ``deals`` not its last field) is not read here at all: ``read_plain``
  answers None and the caller uses the full reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import cython
import orjson

from loo_replay.engine.cards import CARD_SPELLINGS, CardError, parse_card
from loo_replay.engine.model import (
    ACTIONS,
    DealRecord,
    Declare,
    Event,
    Exchange,
    Play,
    ShowFlush,
    TurnUp,
)
from loo_replay.engine.session import DealInput, Recorded
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.parse import (
    DEAL_FIELDS,
    DOC_FIELDS,
    EVENT_FIELDS,
    EVENT_REQUIRED,
    MAX_INT,
    MOST_SEATED,
    RECORDED_INTS,
    RECORDED_MAPS,
    Bad,
    ParsedDocument,
    SessionHeader,
    parse_deal,
    parse_document,
)
from loo_replay.logs.reader import NOT_PLAIN, plain_value

# Compiled, the plain reader is the faster; in pure Python, a loop over bytes in the
# interpreter, the full reader reads everything (docs/performance.md, "Reading a document:
# the plain reader").
FASTER: bool = cython.compiled
MOST: int = cython.declare(cython.longlong, MAX_INT)
# a recorded map's players are bits of one 64-bit word; a larger table goes the full way
MOST_PLAYERS: int = cython.declare(cython.Py_ssize_t, 64)


def _card_table() -> bytes:
    """Card number + 1 for each ASCII spelling: two letters at ``128 * first + second``,
    ``10`` and a suit letter at ``16384 + suit letter``; 0 for no card."""
    table = bytearray(16384 + 128)
    for text, card in CARD_SPELLINGS.items():
        spelling = text.encode()
        if not spelling.isascii():
            continue  # a suit symbol: read through parse_card
        if len(spelling) == 2:
            table[128 * spelling[0] + spelling[1]] = card + 1
        else:
            assert spelling[:2] == b"10", spelling
            table[16384 + spelling[2]] = card + 1
    return bytes(table)


CARDS: bytes = cython.declare(bytes, _card_table())


@cython.final
@cython.cclass
class Words:
    """A few words (keys, players' ids) to tell apart: a hash of a string's length and
    three of its bytes names the word to compare it with, so a string is compared once."""

    words: tuple[bytes, ...]
    slots: bytes  # by hash, the index of the first word with that hash + 1; 0 for none

    def __init__(self, names: Sequence[str]) -> None:
        self.words = tuple(name.encode() for name in names)
        slots = bytearray(256)
        for k in reversed(range(len(self.words))):
            slots[_hash(self.words[k], 0, len(self.words[k]))] = k + 1
        self.slots = bytes(slots)

    def __len__(self) -> int:
        return len(self.words)

    @cython.cfunc
    @cython.exceptval(check=False)
    def find(
        self, text: cython.p_const_uchar, a: cython.Py_ssize_t, size: cython.Py_ssize_t
    ) -> cython.Py_ssize_t:
        """The index of the word ``text[a:a + size]``, or -1."""
        slots: cython.p_const_uchar = self.slots
        k: cython.Py_ssize_t = slots[_hash(text, a, size)] - 1
        if k >= 0 and _equal(self.words[k], text, a, size):
            return k
        for k in range(len(self.words)):  # another word of the same hash, or none
            if _equal(self.words[k], text, a, size):
                return k
        return -1


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _hash(text: cython.p_const_uchar, a: cython.Py_ssize_t, size: cython.Py_ssize_t) -> cython.int:
    if size == 0:
        return 0
    return (size * 41 + text[a] * 7 + text[a + (size >> 1)] * 3 + text[a + size - 1]) & 255


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _equal(
    word: bytes, text: cython.p_const_uchar, a: cython.Py_ssize_t, size: cython.Py_ssize_t
) -> cython.bint:
    p: cython.p_const_uchar = word
    j: cython.Py_ssize_t
    if len(word) != size:
        return False
    for j in range(size):  # noqa: SIM110  (a loop compiles to C, a generator does not)
        if p[j] != text[a + j]:
            return False
    return True


def _mask(names: Sequence[str], keys: Sequence[str]) -> int:
    return sum(1 << keys.index(name) for name in set(names))


def _words(names: Sequence[str]) -> Words:
    """``names`` as Words, each found at the first try (no two of one hash)."""
    words = Words(names)
    assert len({_hash(w, 0, len(w)) for w in words.words}) == len(names), names
    return words


DOC_KEYS: Words = cython.declare(Words, _words(DOC_FIELDS))
DEAL_KEYS: Words = cython.declare(Words, _words(DEAL_FIELDS))
# the readers below tell the fields and the kinds of event apart by their index
DEAL: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("deal"))
DEALER: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("dealer"))
PLAYERS: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("players"))
HANDS: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("hands"))
MISS: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("miss"))
TURN_UP: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("turn_up"))
MISDEAL: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("misdeal"))
EVENTS: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("events"))
RECORDED: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("recorded"))
SEAL: int = cython.declare(cython.Py_ssize_t, DEAL_FIELDS.index("seal"))
KINDS = tuple(EVENT_FIELDS)
DECLARE: int = cython.declare(cython.Py_ssize_t, KINDS.index("declare"))
EXCHANGE: int = cython.declare(cython.Py_ssize_t, KINDS.index("exchange"))
SHOW_FLUSH: int = cython.declare(cython.Py_ssize_t, KINDS.index("show_flush"))
PLAY: int = cython.declare(cython.Py_ssize_t, KINDS.index("play"))
# the deal's fields that name seats, and must come after a ``players`` list that seats them
SEATED: int = cython.declare(cython.uint, _mask(("dealer", "hands", "events"), DEAL_FIELDS))
REQUIRED_DEAL: int = cython.declare(cython.uint, _mask(("deal", "dealer"), DEAL_FIELDS))
EVENT_NAMES = ("type", "player", "card", "action", "announce", "discard", "draw", "meta")
assert set(EVENT_NAMES) == {"type", "meta", *(f for fs in EVENT_FIELDS.values() for f in fs)}
EVENT_KEYS: Words = cython.declare(Words, _words(EVENT_NAMES))
TYPES: Words = cython.declare(Words, _words(KINDS))
# by event type, the fields it may have and the fields it must have, as bits of EVENT_NAMES
ALLOWED: bytes = cython.declare(
    bytes, bytes(_mask(("type", "meta", *fields), EVENT_NAMES) for fields in EVENT_FIELDS.values())
)
REQUIRED: bytes = cython.declare(
    bytes, bytes(_mask(("type", *EVENT_REQUIRED[kind]), EVENT_NAMES) for kind in EVENT_FIELDS)
)
ACTION_WORDS: Words = cython.declare(Words, _words(ACTIONS))
ANNOUNCE: Words = cython.declare(Words, _words(("pam_be_civil",)))
RECORDED_NAMES = RECORDED_INTS + RECORDED_MAPS
RECORDED_KEYS: Words = cython.declare(Words, _words(RECORDED_NAMES))
SEAL_LENGTH = 64  # a seal's hex digits (docs/evidence.md)
# What the scanner reads itself, unchecked by the limits: objects and arrays six deep (an
# exchange's cards), the words above, integers of up to 18 digits and a sign.  Under lower
# limits the full reader reads every document (``read_plain``).
PLAIN_DEPTH = 6
PLAIN_STRING = max(
    SEAL_LENGTH,
    *(
        len(word)
        for words in (DOC_KEYS, DEAL_KEYS, EVENT_KEYS, TYPES, ACTION_WORDS, ANNOUNCE, RECORDED_KEYS)
        for word in words.words
    ),
)
PLAIN_NUMBER = 19


class NotPlain(Exception):
    """What follows is not read here: the full reader will read it."""


def _classes() -> bytes:
    """By byte: 0 for one that may stand in a plain string, 1 for its closing quote, 2 for
    any other (a control byte, the end's 0, a backslash, DEL or a non-ASCII byte)."""
    table = bytearray(b"\x02" * 256)
    for c in range(32, 127):
        table[c] = 0
    table[ord('"')] = 1
    table[ord("\\")] = 2
    return bytes(table)


CLASSES: bytes = cython.declare(bytes, _classes())


@cython.final
@cython.cclass
class Scanner:
    """A position in a document's bytes, the span of the last string read, and the limits
    the document is read within."""

    raw: bytes
    limits: Limits
    most_events: cython.Py_ssize_t  # events of one deal read plainly (Limits.deal_events)
    ended: bytes  # ``raw`` with a 0 after its last byte (compiled, every bytes object has it)
    text: cython.p_const_uchar  # compiled, the bytes of ``ended`` in place; else ``ended``
    n: cython.Py_ssize_t
    i: cython.Py_ssize_t
    a: cython.Py_ssize_t  # the last string's first byte
    b: cython.Py_ssize_t  # and the byte after its last

    def __init__(self, raw: bytes, limits: Limits) -> None:
        self.raw = raw
        self.limits = limits
        self.most_events = limits.deal_events
        self.ended = raw if cython.compiled else raw + b"\x00"
        self.text = self.ended
        self.n = len(raw)
        self.i = 0
        self.a = 0
        self.b = 0

    @cython.cfunc
    @cython.exceptval(check=False)
    def ws(self) -> cython.uchar:
        """Passes white space; the byte it stops at, 0 at the end."""
        text: cython.p_const_uchar = self.text
        i: cython.Py_ssize_t = self.i
        while text[i] == 32 or text[i] == 10 or text[i] == 13 or text[i] == 9:
            i += 1
        self.i = i
        return text[i] if i < self.n else 0

    @cython.cfunc
    @cython.exceptval(-1)
    def expect(self, c: cython.uchar) -> cython.int:
        if self.ws() != c:
            raise NotPlain
        self.i += 1
        return 0

    @cython.cfunc
    @cython.exceptval(-1)
    def opens(self, c: cython.uchar, close: cython.uchar) -> cython.int:
        """Reads ``c`` (``{`` or ``[``); whether the container holds anything (1 or 0)."""
        self.expect(c)
        if self.ws() == close:
            self.i += 1
            return 0
        return 1

    @cython.cfunc
    @cython.exceptval(-1)
    def more(self, close: cython.uchar) -> cython.int:
        """Reads the comma after a member (1) or the container's ``close`` (0)."""
        c: cython.uchar = self.ws()
        self.i += 1
        if c == 44:
            return 1
        if c != close:
            raise NotPlain
        return 0

    @cython.cfunc
    @cython.exceptval(-1)
    def string(self) -> cython.int:
        """Reads a string of printable ASCII without escapes, its bytes at ``a:b``."""
        text: cython.p_const_uchar = self.text
        classes: cython.p_const_uchar = CLASSES
        if self.ws() != 34:
            raise NotPlain
        a: cython.Py_ssize_t = self.i + 1
        b: cython.Py_ssize_t = a
        while classes[text[b]] == 0:
            b += 1
        if classes[text[b]] != 1 or b >= self.n:
            raise NotPlain
        self.a = a
        self.b = b
        self.i = b + 1
        return 0

    @cython.cfunc
    @cython.exceptval(check=False)
    def word(self, words: Words) -> cython.Py_ssize_t:
        """The index in ``words`` of the string just read, or -1."""
        return words.find(self.text, self.a, self.b - self.a)

    @cython.cfunc
    @cython.exceptval(-1)
    def one_of(self, words: Words) -> cython.Py_ssize_t:
        """Reads a string that must be one of ``words`` (a player's id, a kind of event):
        its index."""
        self.string()
        found: cython.Py_ssize_t = self.word(words)
        if found < 0:
            raise NotPlain
        return found

    @cython.cfunc
    @cython.exceptval(-1)
    def member(self, keys: Words, seen: cython.ulonglong) -> cython.Py_ssize_t:
        """Reads an object's key and its colon: the key's index in ``keys``, which must not
        be one of those ``seen`` (bits by index)."""
        self.string()
        key: cython.Py_ssize_t = self.word(keys)
        if key < 0 or seen >> key & 1:
            raise NotPlain
        self.expect(58)
        return key

    @cython.cfunc
    def integer(self, least: cython.longlong) -> cython.longlong:
        """Reads an integer from ``least`` to 2**53 - 1 (written as JSON integers are, in at
        most 18 digits: orjson and Python's parser read those alike)."""
        text: cython.p_const_uchar = self.text
        c: cython.uchar = self.ws()
        i: cython.Py_ssize_t = self.i
        negative: cython.bint = c == 45
        if negative:
            i += 1
        start: cython.Py_ssize_t = i
        value: cython.longlong = 0
        while i < self.n and 48 <= text[i] <= 57:
            value = value * 10 + (text[i] - 48)
            i += 1
        if i == start or i - start > 18 or (i - start > 1 and text[start] == 48):
            raise NotPlain
        if i < self.n and (text[i] == 46 or text[i] | 32 == 101):
            raise NotPlain  # . e E
        if negative:
            value = -value
        if value < least or value > MOST:
            raise NotPlain
        self.i = i
        return value

    @cython.cfunc
    def boolean(self) -> cython.bint:
        c: cython.uchar = self.ws()
        if c == 116 and self.raw.startswith(b"true", self.i):
            self.i += 4
            return True
        if c == 102 and self.raw.startswith(b"false", self.i):
            self.i += 5
            return False
        raise NotPlain

    @cython.cfunc
    @cython.exceptval(-1)
    def seal(self) -> cython.int:
        """Reads a seal: 64 lower-case hex digits (docs/evidence.md)."""
        self.string()
        text: cython.p_const_uchar = self.text
        k: cython.Py_ssize_t
        c: cython.uchar
        if self.b - self.a != SEAL_LENGTH:
            raise NotPlain
        for k in range(self.a, self.b):
            c = text[k]
            if not (48 <= c <= 57 or 97 <= c <= 102):
                raise NotPlain
        return 0

    @cython.cfunc
    def card(self) -> cython.int:
        """Reads a card's spelling: its number."""
        self.string()
        text: cython.p_const_uchar = self.text
        table: cython.p_const_uchar = CARDS
        a: cython.Py_ssize_t = self.a
        size: cython.Py_ssize_t = self.b - a
        found: cython.int = 0
        if size == 2:
            found = table[128 * text[a] + text[a + 1]]
        elif size == 3 and text[a] == 49 and text[a + 1] == 48:
            found = table[16384 + text[a + 2]]
        if found:
            return found - 1
        try:  # another case of letters
            return parse_card(self.raw[a : self.b].decode("ascii"))
        except CardError:
            raise NotPlain from None

    @cython.cfunc
    def cards(self) -> tuple[int, ...]:
        """Reads a list of at most 52 cards."""
        out: list[int] = []
        if self.opens(91, 93):
            while True:
                out.append(self.card())
                if not self.more(93):
                    break
        if len(out) > 52:
            raise NotPlain
        return tuple(out)

    @cython.cfunc
    def skip(self) -> cython.Py_ssize_t:
        """Passes one value of any kind, unchecked (orjson checks it next); where it began."""
        text: cython.p_const_uchar = self.text
        c: cython.uchar = self.ws()
        start: cython.Py_ssize_t = self.i
        i: cython.Py_ssize_t = start
        depth: cython.Py_ssize_t = 0
        while i < self.n:
            c = text[i]
            if c == 34:
                i += 1
                while i < self.n and text[i] != 34:
                    i += 2 if text[i] == 92 else 1
            elif c == 123 or c == 91:
                depth += 1
            elif c == 125 or c == 93 or c == 44:
                if depth == 0:
                    break  # a scalar ends at the comma or close after it
                if c != 44:
                    depth -= 1
            elif depth == 0 and (c == 32 or c == 10 or c == 13 or c == 9):
                break
            i += 1
            if depth == 0 and (c == 34 or c == 125 or c == 93):
                break  # a string or container, closed
        if i > self.n:
            raise NotPlain
        self.i = i
        return start

    @cython.cfunc
    def value(self, outer: cython.Py_ssize_t) -> Any:
        """Reads any value, through orjson; ``outer`` objects and arrays hold it, so that
        the document's depth is the limit's."""
        start: cython.Py_ssize_t = self.skip()
        value = plain_value(self.raw[start : self.i], self.limits, outer)
        if value is NOT_PLAIN:
            raise NotPlain
        return value

    @cython.cfunc
    def meta(self, outer: cython.Py_ssize_t) -> None:
        if type(self.value(outer)) is not dict:
            raise NotPlain


class PlainDocument:
    """A document read plainly: its envelope and header, each deal's input."""

    def __init__(self, parsed: ParsedDocument, deals: list[DealInput]) -> None:
        self.parsed = parsed
        self.deals = deals


def read_plain(raw: bytes, limits: Limits = LIMITS) -> PlainDocument | None:
    """``raw`` read plainly within ``limits``, or None for the full reader (module
    docstring)."""
    if (
        limits.depth < PLAIN_DEPTH
        or limits.string_length < PLAIN_STRING
        or limits.number_length < PLAIN_NUMBER
    ):
        return None
    try:
        return _document(Scanner(raw, limits))
    except NotPlain:
        return None


@cython.cfunc
def _document(s: Scanner) -> PlainDocument:
    envelope: dict[str, Any] = {}
    seen: cython.uint = 0
    key: cython.Py_ssize_t
    if not s.opens(123, 125):
        raise NotPlain
    while True:
        key = s.member(DOC_KEYS, seen)
        seen |= 1 << key
        if DOC_FIELDS[key] == "deals":
            break
        envelope[DOC_FIELDS[key]] = s.value(1)
        if not s.more(125):
            raise NotPlain  # no deals
    envelope["deals"] = []
    try:
        parsed = parse_document(envelope)
    except Bad:
        raise NotPlain from None
    header = parsed.header
    if header is None or len(header.players) > MOST_PLAYERS:
        raise NotPlain
    words = Words(header.players)
    deals: list[DealInput] = []
    spans: list[int] = []
    values: dict[int, Any] = {}
    start: cython.Py_ssize_t
    if s.opens(91, 93):
        while True:
            s.ws()
            start = s.i
            try:
                deals.append(_deal(s, header, words, len(deals)))
            except NotPlain:  # read again, the full way
                s.i = start
                value = s.value(2)
                values[len(deals)] = value
                deals.append(parse_deal(value, f"/deals/{len(deals)}", header, s.limits))
            spans.append(start)
            spans.append(s.i)
            if not s.more(93):
                break
    if s.more(125) or s.ws() != 0 or s.i != s.n:
        raise NotPlain  # "deals" was not the last field, or something follows the document
    parsed.raw_deals = RawDeals(s.raw, spans, values)
    return PlainDocument(parsed, deals)


@cython.cfunc
def _deal(s: Scanner, header: SessionHeader, words: Words, index: cython.Py_ssize_t) -> DealInput:
    """One deal, as ``parse_deal`` reads it when it finds nothing wrong."""
    seen: cython.uint = 0
    key: cython.Py_ssize_t
    number: cython.longlong = 0
    dealer: cython.Py_ssize_t = 0
    seats: tuple[str, ...] = header.players
    seat_words = words
    hands: tuple[tuple[int, ...] | None, ...] | None = None
    miss: tuple[int, ...] | None = None
    turn_up: int | None = None
    misdeal: cython.bint = False
    events: tuple[Event, ...] = ()
    recorded: Recorded | None = None
    if not s.opens(123, 125):
        raise NotPlain
    while True:
        key = s.member(DEAL_KEYS, seen)
        seen |= 1 << key
        if key == DEAL:
            number = s.integer(1)
        elif key == DEALER:
            dealer = s.one_of(seat_words)
        elif key == PLAYERS:
            if seen & SEATED:
                raise NotPlain  # seats named before the list that seats them
            seats, seat_words = _seated(s, header.players, words)
        elif key == HANDS:
            hands = _hands(s, seat_words)
        elif key == MISS:
            miss = s.cards()
        elif key == TURN_UP:
            turn_up = s.card()
        elif key == MISDEAL:
            misdeal = s.boolean()
        elif key == EVENTS:
            events = _events(s, seat_words)
        elif key == RECORDED:
            recorded = _recorded(s, header.players, words)
        elif key == SEAL:
            s.seal()
        else:
            s.meta(3)
        if not s.more(125):
            break
    if seen & REQUIRED_DEAL != REQUIRED_DEAL or len(seats) > MOST_SEATED:
        raise NotPlain
    if hands is None:
        hands = (None,) * len(seats)
    record = DealRecord(number, seats, dealer, hands, miss, turn_up, misdeal, events)
    return DealInput(number, record, recorded, (), seats[dealer], f"/deals/{index}")


@cython.cfunc
def _seated(s: Scanner, players: tuple[str, ...], words: Words) -> tuple[tuple[str, ...], Words]:
    """A deal's ``players``: three or more of the session, none twice."""
    seats: list[str] = []
    seen: cython.ulonglong = 0
    k: cython.Py_ssize_t
    if s.opens(91, 93):
        while True:
            k = s.one_of(words)
            if seen >> k & 1:
                raise NotPlain
            seen |= cython.cast(cython.ulonglong, 1) << k
            seats.append(players[k])
            if not s.more(93):
                break
    if len(seats) < 3:
        raise NotPlain
    return tuple(seats), Words(seats)


@cython.cfunc
def _hands(s: Scanner, seat_words: Words) -> tuple[tuple[int, ...] | None, ...]:
    hands: list[tuple[int, ...] | None] = [None] * len(seat_words)
    seen: cython.ulonglong = 0
    k: cython.Py_ssize_t
    if s.opens(123, 125):
        while True:
            k = s.member(seat_words, seen)
            seen |= cython.cast(cython.ulonglong, 1) << k
            hands[k] = s.cards()
            if not s.more(125):
                break
    return tuple(hands)


@cython.cfunc
def _events(s: Scanner, seat_words: Words) -> tuple[Event, ...]:
    events: list[Event] = []
    if s.opens(91, 93):
        while True:
            if len(events) == s.most_events:
                raise NotPlain  # past the limit: the full reader says so
            events.append(_event(s, len(events), seat_words))
            if not s.more(93):
                break
    return tuple(events)


@cython.cfunc
def _event(s: Scanner, index: cython.int, seat_words: Words) -> Event:
    seen: cython.uint = 0
    key: cython.Py_ssize_t
    kind: cython.Py_ssize_t = -1
    seat: cython.int = 0
    card: cython.int = 0
    action: cython.Py_ssize_t = 0
    discard: tuple[int, ...] = ()
    draw: tuple[int, ...] = ()
    allowed: cython.p_const_uchar = ALLOWED
    required: cython.p_const_uchar = REQUIRED
    if not s.opens(123, 125):
        raise NotPlain
    while True:
        key = s.member(EVENT_KEYS, seen)
        seen |= 1 << key
        if key == 0:  # type
            kind = s.one_of(TYPES)
        elif key == 1:  # player
            seat = s.one_of(seat_words)
        elif key == 2:  # card
            card = s.card()
        elif key == 3:  # action
            action = s.one_of(ACTION_WORDS)
        elif key == 4:  # announce
            s.one_of(ANNOUNCE)
        elif key == 5:  # discard
            discard = s.cards()
        elif key == 6:  # draw
            draw = s.cards()
        else:
            s.meta(5)
        if not s.more(125):
            break
    if kind < 0 or seen & ~allowed[kind] or required[kind] & ~seen:
        raise NotPlain
    if kind == PLAY:
        return Play(index, seat, card, seen >> 4 & 1 == 1)
    if kind == DECLARE:
        return Declare(index, seat, ACTIONS[action])
    if kind == EXCHANGE:
        return Exchange(index, seat, discard, draw)
    if kind == SHOW_FLUSH:
        return ShowFlush(index, seat)
    return TurnUp(index, card)


@cython.cfunc
def _recorded(s: Scanner, players: tuple[str, ...], words: Words) -> Recorded:
    fields: dict[str, Any] = {}
    seen: cython.uint = 0
    key: cython.Py_ssize_t
    if s.opens(123, 125):
        while True:
            key = s.member(RECORDED_KEYS, seen)
            seen |= 1 << key
            if RECORDED_NAMES[key] in RECORDED_INTS:
                fields[RECORDED_NAMES[key]] = s.integer(0)
            else:  # stacks may be negative
                least: cython.longlong = -MOST if RECORDED_NAMES[key] == "stacks" else 0
                fields[RECORDED_NAMES[key]] = _counts(s, players, words, least)
            if not s.more(125):
                break
    return Recorded(**fields)


@cython.cfunc
def _counts(
    s: Scanner, players: tuple[str, ...], words: Words, least: cython.longlong
) -> dict[str, int]:
    """A recorded map: players of the session to integers from ``least``."""
    out: dict[str, int] = {}
    seen: cython.ulonglong = 0
    k: cython.Py_ssize_t
    if s.opens(123, 125):
        while True:
            k = s.member(words, seen)
            seen |= cython.cast(cython.ulonglong, 1) << k
            out[players[k]] = s.integer(least)
            if not s.more(125):
                break
    return out


class RawDeals(Sequence[Any]):
    """The JSON of each deal of a document read plainly, parsed from its bytes when asked:
    the verbatim copy of a rejected deal."""

    def __init__(self, raw: bytes, spans: list[int], values: dict[int, Any]) -> None:
        self.raw = raw
        self.spans = spans  # each deal's first byte and the byte after its last
        self.values = values  # the deals read the full way, already parsed

    def __len__(self) -> int:
        return len(self.spans) // 2

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        if index in self.values:
            return self.values[index]
        return orjson.loads(self.raw[self.spans[2 * index] : self.spans[2 * index + 1]])

"""Text that reads the same: what is escaped wherever a log's text is shown, how session ids
are compared, and which players' names look alike (docs/limits.md, "Names that read the same").

A log is a stranger's text.  Characters that show nothing (U+200B zero width space, U+2060
word joiner, U+00AD soft hyphen ...) or that turn the text around them (U+202E, U+061C ...)
let two different names read as one, or a name read as something it is not.  ``HIDDEN`` is
the one set of them, ``safe`` the one function that escapes them: the pages, the explorer,
the terminal and the recorder all show text through it.  Two ids that differ only by such
characters or by Unicode normalisation are one id to a reader (``id_key``); two names may
still look alike letter by letter (Latin ``A`` and Cyrillic ``А``), which Unicode's
confusable skeleton (UTS #39) tells (``skeleton``, from the data in ``data/confusables.txt``,
read on first use only).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from loo_replay import package_file

# Invisible: the format characters (general category Cf, Unicode 14: soft hyphen, Arabic
# letter mark, zero width space to right-to-left mark, the embeddings and overrides, word
# joiner to the isolates, byte order mark, interlinear annotation, tags) and the rest of
# Unicode's Default_Ignorable_Code_Point (combining grapheme joiner, Hangul fillers, Khmer
# inherent vowels, Mongolian variation selectors, variation selectors, the unassigned
# ignorables).  tests/test_lookalike.py checks the class against ``unicodedata``.
INVISIBLE_CLASS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
# Shown escaped: the invisible characters, the control characters (C0, DEL, C1), the line
# and paragraph separators, and lone surrogates (which no terminal or page can show).
HIDDEN_CLASS = INVISIBLE_CLASS + "\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]")
HIDDEN = re.compile(f"[{HIDDEN_CLASS}]")
SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(ch: str) -> str:
    """One character as JSON escapes it: ``\\u202e``; beyond the first 65,536 code points
    as its two UTF-16 halves (``\\udb40\\udc41`` for U+E0041), so that escaped JSON still
    means the same value (``query --format json`` on a terminal)."""
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe(text: str, limit: int = 200) -> str:
    """``text`` with every ``HIDDEN`` character escaped (``escaped``), cut to ``limit``
    characters: safe to print, and no two texts that differ read the same for a hidden
    character."""
    text = HIDDEN.sub(lambda m: escaped(m.group()), text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def id_key(text: str) -> str:
    """How an id reads: NFC-normalised, its invisible characters left out.  Two session ids
    with the same key are one id to a reader (``café`` composed and decomposed,
    ``club-night`` and ``club\\u200b-night``)."""
    if text.isascii() and text.isprintable():
        return text
    return unicodedata.normalize("NFC", INVISIBLE.sub("", text))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (UTS #39's confusables.txt), read once, where a
    name is first compared: importing this module reads nothing."""
    data = package_file("data", "confusables.txt").read_text("utf-8")
    table: dict[str, str] = {}
    for line in data.splitlines():
        if line and not line.startswith("#"):
            source, _, target = line.partition(";")
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return table


@functools.lru_cache(maxsize=1 << 12)
def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: decomposed (NFD), its invisible characters left out,
    each character replaced by its prototype, decomposed again.  Two texts with the same
    skeleton look alike (``Ann``, Cyrillic ``Аnn``, ``A\\u200bnn``)."""
    table = _prototypes()
    text = INVISIBLE.sub("", unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))


def spelled(text: str) -> str:
    """``text`` with every character beyond ASCII as its escape: how two ids that look
    alike are told apart (``\\u0410nn`` for Cyrillic ``Аnn``)."""
    return "".join(ch if ch.isascii() and ch.isprintable() else escaped(ch) for ch in text)

"""The one set of hidden characters and the one escape of them, UTS #39 skeletons, ids
compared as they read, recorded file names kept whole, and both readers refusing a lone
surrogate alike (docs/limits.md, "Names that read the same")."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from pathlib import Path

import pytest

from loo_replay.db.paths import log_name, log_path, path_text, recorded_name
from loo_replay.logs.fast_reader import read_plain
from loo_replay.logs.reader import Document, decode
from loo_replay.lookalike import HIDDEN, INVISIBLE, id_key, safe, skeleton, spelled
from loo_replay.output import text, wording

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
# Unicode's Default_Ignorable_Code_Point beyond the format characters (DerivedCoreProperties)
IGNORABLE_NOT_CF = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F}
IGNORABLE_NOT_CF |= {0x3164, 0xFFA0, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)}


def test_the_invisible_set_is_every_format_character_and_every_default_ignorable() -> None:
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        category = unicodedata.category(ch)
        if category == "Cf" or code in IGNORABLE_NOT_CF:
            assert INVISIBLE.match(ch), hex(code)
        elif category != "Cn":  # unassigned ignorables (U+2065, U+FFF0..) are in it too
            assert not INVISIBLE.match(ch), hex(code)
        if category in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            assert HIDDEN.match(ch), hex(code)


def test_every_place_that_shows_text_escapes_with_the_one_function() -> None:
    assert text.safe is safe
    shown = safe("A\u200bnn Ann\u2060 Ann\u061c \u202eevil \x1b[2J tag\U000e0041 \ud800")
    assert shown == (
        "A\\u200bnn Ann\\u2060 Ann\\u061c \\u202eevil \\u001b[2J tag\\udb40\\udc41 \\ud800"
    )
    assert safe("caf\u00e9 \u0410nn \U0001f600") == "caf\u00e9 \u0410nn \U0001f600"


def test_skeletons_tell_what_looks_alike() -> None:
    anns = ["Ann", "\u0410nn", "A\u200bnn", "Ann\u2060", "Ann\u061c", "\uff21nn"]
    assert {skeleton(a) for a in anns} == {skeleton("Ann")}
    assert skeleton("Ann") != skeleton("Anne") != skeleton("ann")
    assert skeleton("Pam") == skeleton("Parn")  # m and rn: UTS #39's own example


def test_names_that_look_alike_are_shown_with_their_ids() -> None:
    names = {"a1": "Ann", "a2": "\u0410nn", "a3": "A\u200bnn", "bob": "Bob", "x": None}
    assert wording.display_names(["a1", "a2", "a3", "bob", "x"], names) == {
        "a1": "Ann (a1)",
        "a2": "\u0410nn (a2)",
        "a3": "A\u200bnn (a3)",
        "bob": "Bob",
        "x": "x",
    }
    # ids that look alike, shown by id: the one beyond ASCII spelled out
    assert wording.display_names(["ann", "\u0430nn"]) == {
        "ann": "ann",
        "\u0430nn": "\u0430nn (\\u0430nn)",
    }
    assert spelled("caf\u00e9") == "caf\\u00e9"


def test_session_ids_are_compared_as_they_read() -> None:
    assert id_key("caf\u00e9") == id_key("cafe\u0301") == "caf\u00e9"
    assert id_key("club\u200b-night") == id_key("club-night\ufeff") == "club-night"
    assert id_key("Club-night") != id_key("club-night")
    assert id_key("\u0410nn") != id_key("Ann")  # look alike, but are other letters


@pytest.mark.parametrize(
    "raw",
    [b"bad\xff.jsonl", b"bad\xfe.jsonl", b"file:x.jsonl", b"ok.jsonl", b"caf\xc3\xa9 100%.json"],
)
def test_file_names_are_recorded_whole(tmp_path: Path, raw: bytes) -> None:
    name = os.fsdecode(raw)
    recorded = recorded_name(name)
    recorded.encode("utf-8")  # DuckDB takes it
    assert path_text(recorded) == name
    try:
        plain = not raw.startswith(b"file:") and bool(raw.decode("utf-8"))
    except UnicodeDecodeError:
        plain = False
    assert (recorded == name) is plain, recorded
    db = tmp_path / "loo.duckdb"
    assert log_path(log_name(tmp_path / name, db), db) == tmp_path / name


def test_both_readers_refuse_a_lone_surrogate_alike() -> None:
    doc = json.loads((SAMPLES / "wrong-payouts.json").read_bytes())
    for where in ("id", "venue"):
        bad = json.loads(json.dumps(doc))
        bad["session"][where] = "sur\ud800rogate"
        raw = json.dumps(bad).encode()
        assert read_plain(raw) is None  # the fast reader hands it to the full reader
        read = decode(Document("x.json", None, raw))
        assert read.value is None and read.error is not None
        assert read.error.startswith('a lone surrogate (\\ud800) in the string "sur\\ud800rogate"')
    paired = json.dumps(doc).replace("Sedley", "Sedley \\ud83d\\ude00").encode()
    assert decode(Document("x.json", None, paired)).error is None  # a pair is a character


def test_the_recorder_keeps_none_of_the_hidden_set_from_what_is_typed() -> None:
    from loo_replay.recorder.entry import typed

    assert typed("A\u200bnn\u2060 \u202e10\u3164h\ufe0f\x07\tq\u2028s") == "Ann 10h q s"

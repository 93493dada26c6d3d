"""The JSON Schema of the hand-log format (docs/log-format.md) and its fixtures.

`schemas/hand-log.schema.json` must describe exactly docs/log-format.md, and every
file in `sample_logs/` must validate against it. The fixtures under
`tests/fixtures/schema/` pin the schema down: every `valid/` document
validates, and every `invalid/` document breaks exactly one structural rule,
reported at the JSON pointer (RFC 6901) that `invalid/EXPECTED.json` gives.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError

PROJECT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = PROJECT / "schemas" / "hand-log.schema.json"
SCHEMA_ID = "https://loo-replay.invalid/schemas/hand-log.schema.json"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "schema"
VALID_DIR = FIXTURES / "valid"
INVALID_DIR = FIXTURES / "invalid"
EXPECTED_PATH = INVALID_DIR / "EXPECTED.json"
SAMPLE_LOGS = PROJECT / "sample_logs"

# docs/log-format.md, Files.
LOG_SUFFIXES = (".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz", ".ndjson.gz")
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")

MAX_INT = 2**53 - 1

# docs/rules.md §8: the built-in rulesets `session.ruleset` may name.
BUILT_IN_RULESETS = (
    "three-card",
    "five-card",
    "hoyle",
    "hoyle-unlimited",
    "hoyle-flushes",
    "hoyle-pam",
    "hoyle-irish",
    "hoyle-five-card",
    "modern",
    "modern-pam",
    "modern-irish",
)

_BOOL: tuple[list[Any], list[Any]] = ([True, False], ["true", 1, None])
_AMOUNT: tuple[list[Any], list[Any]] = ([0, 3, MAX_INT], [-1, 2.5, "3", MAX_INT + 1, True])

# docs/rules.md §7: every option, the values it takes and some it must refuse.
RULE_OPTIONS: dict[str, tuple[list[Any], list[Any]]] = {
    "deal.hand_size": ([3, 5], [4, "3", 0, True]),
    "deal.miss": _BOOL,
    "deal.trump": (["turn_up", "on_void", "first_lead"], ["same", "TURN_UP", ""]),
    "deal.trump_in_must": (["turn_up", "on_void", "first_lead", "same"], ["never", None]),
    "deal.exchange": _BOOL,
    "deal.pam": _BOOL,
    "stakes.ante": ([1, 5, MAX_INT], [0, -1, 1.5, MAX_INT + 1, True]),
    "stakes.ante_by": (["dealer", "all"], ["everyone", ""]),
    "stakes.loo": (["limited", "unlimited"], ["capped", True]),
    "stakes.loo_amount": _AMOUNT,
    "stakes.loo_cap": _AMOUNT,
    "stakes.loo_scope": (["active", "everyone"], ["all", "seated"]),
    "declare.must": (["never", "single", "single_except_first"], ["always", False]),
    "declare.club_law": _BOOL,
    "declare.last_must_play_single": _BOOL,
    "declare.dealer_defends": _BOOL,
    "lead.top_trump": (["off", "first", "every"], ["always", "never", False]),
    "lead.highest_trump": (["never", "first", "always", "two_players"], ["off", "every"]),
    "lead.trump_if": ([0, 1, 2], [3, -1, "2", False]),
    "lead.trump_after_trick": _BOOL,
    "follow.head": _BOOL,
    "follow.void": (["trump", "overtrump", "any"], ["off", "must-trump"]),
    "follow.pam_civil": (["off", "announced", "always"], ["pam_be_civil", True]),
    "follow.pam_civil_strict": _BOOL,
    "flush.kind": (["none", "trumps", "any_suit"], ["off", "any", None]),
    "flush.pools": (["all", "double"], ["single", "any"]),
    "flush.when": (["declared", "dealt"], ["never", "shown"]),
    "flush.pam_wild": _BOOL,
    "flush.rank": (["elder", "pam_then_elder", "trumps_then_cards"], ["cards", "eldest"]),
    "flush.looes": (["active", "everyone"], ["all", "none"]),
    "flush.pay": (["loo", "ante"], ["pool", "single"]),
    "flush.exempt_pam": _BOOL,
    "penalties.revoke": (["forfeit", "divide"], ["split", 12]),
    "penalties.revoke_amount": _AMOUNT,
    "penalties.out_of_turn": _AMOUNT,
    "penalties.declare_out_of_turn": _AMOUNT,
    "penalties.misdeal": _AMOUNT,
    "penalties.misdeal_redeal": (["same_dealer", "next_dealer"], ["same", "next"]),
}

# docs/log-format.md, Events: each type with its required fields and a valid example.
EVENT_EXAMPLES: dict[str, dict[str, Any]] = {
    "declare": {"type": "declare", "player": "a", "action": "play"},
    "exchange": {"type": "exchange", "player": "a", "discard": ["2C"], "draw": ["3C"]},
    "show_flush": {"type": "show_flush", "player": "a"},
    "turn_up": {"type": "turn_up", "card": "9D"},
    "play": {"type": "play", "player": "a", "card": "AS", "announce": "pam_be_civil"},
}
EVENT_OPTIONAL_FIELDS = {"announce", "meta"}


# --- helpers -----------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _object_without_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def parse_json(text: str) -> Any:
    """Parse strict JSON: no NaN/Infinity and no duplicate keys in an object."""
    return json.loads(
        text, parse_constant=_reject_constant, object_pairs_hook=_object_without_duplicate_keys
    )


def load_json_file(path: Path) -> Any:
    return parse_json(path.read_text(encoding="utf-8"))


def log_files(root: Path) -> list[Path]:
    """Every hand-log file under `root`, recursively, in sorted order (docs/log-format.md, Files)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(LOG_SUFFIXES))


def read_documents(path: Path) -> Iterator[tuple[int | None, Any]]:
    """Yield (line number or None, document) for each document in a hand-log file.

    JSON Lines files hold one document per line, blank lines ignored; `.gz`
    files are gzip-compressed (docs/log-format.md, Files). Lines are split on
    "\\n" only, as JSON Lines requires (a JSON string may hold U+2028).
    """
    raw = path.read_bytes()
    name = path.name
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
        name = name.removesuffix(".gz")
    text = raw.decode("utf-8")
    if name.endswith(JSON_LINES_SUFFIXES):
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                yield number, parse_json(line)
    else:
        yield None, parse_json(text)


def json_pointer(path: Iterable[str | int]) -> str:
    """RFC 6901 pointer of an instance location ("" is the whole document)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


@cache
def schema() -> dict[str, Any]:
    loaded = load_json_file(SCHEMA_PATH)
    assert isinstance(loaded, dict)
    return loaded


@cache
def validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema())


def errors_of(document: Any) -> list[ValidationError]:
    return sorted(validator().iter_errors(document), key=lambda e: list(map(str, e.path)))


def describe(errors: Iterable[ValidationError]) -> list[str]:
    return [f"{json_pointer(e.absolute_path) or '/'}: {e.message}" for e in errors]


def minimal_document() -> dict[str, Any]:
    return {
        "format": "loo-hand-log",
        "version": 1,
        "session": {"id": "s", "players": [{"id": "a"}, {"id": "b"}, {"id": "c"}]},
        "deals": [],
    }


def document_with_deal(deal: dict[str, Any]) -> dict[str, Any]:
    document = minimal_document()
    document["deals"].append({"deal": 1, "dealer": "a", **deal})
    return document


def assert_single_error_at(document: Any, pointer: str) -> None:
    errors = errors_of(document)
    assert [json_pointer(e.absolute_path) for e in errors] == [pointer], describe(errors)


def _walk_properties(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{where}/properties/{name}", sub
        for key, sub in node.items():
            if key != "if":  # an `if` only tests the discriminator; it defines nothing
                yield from _walk_properties(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for index, sub in enumerate(node):
            yield from _walk_properties(sub, f"{where}/{index}")


VALID_FIXTURES = sorted(VALID_DIR.glob("*.json"))
INVALID_FIXTURES = sorted(p for p in INVALID_DIR.glob("*.json") if p != EXPECTED_PATH)


# --- the schema itself -------------------------------------------------------------


def test_log_format_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema()["$id"] == SCHEMA_ID
    assert schema()["title"]
    assert schema()["required"] == ["format", "version", "session", "deals"]


DOC_CITATION = re.compile(r"docs/(?P<page>[a-z-]+\.md)(?P<then>, [A-Z0-9])?")


def test_log_format_schema_describes_every_property_citing_the_docs() -> None:
    """Every property says what it is and cites the page of docs/ that explains it; a cited
    heading (``docs/rules.md, Flushes``) is a heading of that page, so a reader can follow
    every citation inside the repository."""
    undescribed = []
    uncited = []
    headings = {}
    for page in PROJECT.joinpath("docs").glob("*.md"):
        text = page.read_text("utf-8")
        headings[page.name] = set(re.findall(r"^#+ (.+)$", text, flags=re.M))
    for where, sub in _walk_properties(schema(), "#"):
        text = sub.get("description", "")
        if not text:
            undescribed.append(where)
            continue
        cited = list(DOC_CITATION.finditer(text))
        if not cited:
            uncited.append(where)
        for m in cited:
            assert m["page"] in headings, (where, m[0])
            if m["then"]:  # a heading follows: one of that page's
                rest = text[m.end() - 1 :]
                assert any(rest.startswith(h) for h in headings[m["page"]]), (where, rest[:40])
    assert undescribed == []
    assert uncited == []


def test_log_format_schema_names_what_the_reader_checks_instead() -> None:
    text = schema()["description"]
    for phrase in ("card in two places", "duplicate player ids", "not seated", "`draw`"):
        assert phrase in text


# --- Session document: valid and invalid fixtures ------------------------------------


def test_log_format_session_document_fixtures_are_present() -> None:
    assert len(VALID_FIXTURES) >= 6
    assert len(INVALID_FIXTURES) >= 25
    expected = load_json_file(EXPECTED_PATH)
    assert sorted(expected) == sorted(p.name for p in INVALID_FIXTURES)
    assert all(isinstance(pointer, str) for pointer in expected.values())
    assert all(p == "" or p.startswith("/") for p in expected.values())


@pytest.mark.parametrize("path", VALID_FIXTURES, ids=lambda p: p.name)
def test_log_format_session_document_valid_fixture_validates(path: Path) -> None:
    document = load_json_file(path)
    assert describe(errors_of(document)) == []


@pytest.mark.parametrize("path", INVALID_FIXTURES, ids=lambda p: p.name)
def test_log_format_log_error_names_the_json_pointer(path: Path) -> None:
    """docs/log-format.md, Three kinds of finding: a schema error names its JSON pointer.

    Each invalid fixture breaks exactly one rule, so exactly one error is
    expected, at the location EXPECTED.json gives.
    """
    pointer = load_json_file(EXPECTED_PATH)[path.name]
    assert_single_error_at(load_json_file(path), pointer)


def test_log_format_session_document_example_validates_with_its_deal() -> None:
    example = load_json_file(VALID_DIR / "log-format-example.json")
    assert example["session"]["id"] == "club-night-2026-11-20"
    assert [d["deal"] for d in example["deals"]] == [7]
    assert errors_of(example) == []


def test_log_format_session_document_version_is_exactly_1() -> None:
    for version in (0, 2, "1", True, None):
        assert_single_error_at({**minimal_document(), "version": version}, "/version")
    assert errors_of({**minimal_document(), "version": 1}) == []


def test_log_format_session_document_meta_is_free_form() -> None:
    document = minimal_document()
    document["meta"] = {"anything": [1, {"nested": None}]}
    document["session"]["meta"] = {}
    assert errors_of(document) == []


@pytest.mark.parametrize("ruleset", BUILT_IN_RULESETS)
def test_log_format_session_ruleset_accepts_each_built_in(ruleset: str) -> None:
    document = minimal_document()
    document["session"]["ruleset"] = ruleset
    assert errors_of(document) == []


def test_log_format_session_ruleset_refuses_other_names() -> None:
    for name in ("Three-Card", "three_card", "", "four-card"):
        document = minimal_document()
        document["session"]["ruleset"] = name
        assert_single_error_at(document, "/session/ruleset")


def test_log_format_session_rules_names_are_those_of_rules_md_section_7() -> None:
    rules = schema()["$defs"]["rules"]
    assert rules["additionalProperties"] is False
    assert sorted(rules["properties"]) == sorted(RULE_OPTIONS)


@pytest.mark.parametrize("option", sorted(RULE_OPTIONS))
def test_log_format_session_rules_values_follow_rules_md_section_7(option: str) -> None:
    good, bad = RULE_OPTIONS[option]
    for value in good:
        document = minimal_document()
        document["session"]["rules"] = {option: value}
        assert errors_of(document) == [], (option, value)
    for value in bad:
        document = minimal_document()
        document["session"]["rules"] = {option: value}
        assert_single_error_at(document, f"/session/rules/{option}")


def test_log_format_session_players_ids_follow_the_pattern() -> None:
    for good in ("a", "A.b_c-9", "x" * 64, "0"):
        document = minimal_document()
        document["session"]["players"][0]["id"] = good
        assert errors_of(document) == [], good
    for bad in ("", "x" * 65, "a b", "é", "a/b", "a:b", "a\tb"):
        document = minimal_document()
        document["session"]["players"][0]["id"] = bad
        assert_single_error_at(document, "/session/players/0/id")


def test_log_format_session_chips_and_stacks_stop_at_2_53_minus_1() -> None:
    document = minimal_document()
    document["session"]["chips"] = {"a": MAX_INT, "b": 0}
    assert errors_of(document) == []
    for bad in (MAX_INT + 1, -1, 1.5, True, "10"):
        document["session"]["chips"] = {"a": bad}
        assert_single_error_at(document, "/session/chips/a")

    deal = document_with_deal({"recorded": {"stacks": {"a": -MAX_INT, "b": MAX_INT}}})
    assert errors_of(deal) == []
    for bad in (-MAX_INT - 1, MAX_INT + 1, 0.5, False):
        deal["deals"][0]["recorded"]["stacks"] = {"b": bad}
        assert_single_error_at(deal, "/deals/0/recorded/stacks/b")


# --- Cards -------------------------------------------------------------------------

RANKS = ["A", "K", "Q", "J", "T", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
SUITS = ["S", "H", "D", "C", "♠", "♥", "♦", "♣"]


def test_log_format_cards_accepts_every_rank_and_suit_in_any_case() -> None:
    spellings = [
        f"{rank}{suit}"
        for rank in RANKS + [r.lower() for r in RANKS if r.isalpha()]
        for suit in SUITS + [s.lower() for s in SUITS if s.isalpha()]
    ]
    assert len(spellings) == 19 * 12
    document = document_with_deal({"miss": spellings[:52]})
    for start in range(0, len(spellings), 52):
        document["deals"][0]["miss"] = spellings[start : start + 52]
        assert describe(errors_of(document)) == []


@pytest.mark.parametrize("spelling", ["10H", "th", "T♥", "10♥", "tH", "10h"])
def test_log_format_cards_ten_of_hearts_spellings(spelling: str) -> None:
    assert errors_of(document_with_deal({"turn_up": spelling})) == []


@pytest.mark.parametrize(
    "card",
    [
        *[
            "1H",
            "AX",
            "",
            "A",
            "H",
            "10",
            "11H",
            "0H",
            "1OH",
            "HA",
            "ASS",
            " AS",
            "A S",
            "A♤",
            "A♡",
        ],
        *[10, None, True, ["AS"], {"rank": "A", "suit": "S"}],
    ],
    ids=repr,
)
def test_log_format_cards_refuses_anything_else(card: Any) -> None:
    assert_single_error_at(document_with_deal({"turn_up": card}), "/deals/0/turn_up")


# --- Deal ----------------------------------------------------------------------


def test_log_format_deal_requires_a_positive_number_and_a_dealer() -> None:
    assert errors_of(document_with_deal({})) == []
    assert errors_of(document_with_deal({"deal": MAX_INT})) == []
    for bad in (0, -1, 1.5, "1", MAX_INT + 1, True):
        assert_single_error_at(document_with_deal({"deal": bad}), "/deals/0/deal")
    missing_dealer = document_with_deal({})
    del missing_dealer["deals"][0]["dealer"]
    assert_single_error_at(missing_dealer, "/deals/0")


def test_log_format_deal_misdeal_may_omit_hands() -> None:
    assert errors_of(document_with_deal({"misdeal": True})) == []
    assert_single_error_at(document_with_deal({"misdeal": "true"}), "/deals/0/misdeal")


def test_log_format_deal_players_need_three_distinct_ids() -> None:
    assert errors_of(document_with_deal({"players": ["a", "b", "c"]})) == []
    assert_single_error_at(document_with_deal({"players": ["a", "b"]}), "/deals/0/players")
    assert_single_error_at(document_with_deal({"players": ["a", "b", "a"]}), "/deals/0/players")


def test_log_format_deal_card_lists_hold_at_most_a_deck() -> None:
    deck = [f"{rank}{suit}" for rank in "AKQJT98765432" for suit in "SHDC"]
    assert errors_of(document_with_deal({"hands": {"a": deck}, "miss": deck})) == []
    assert_single_error_at(document_with_deal({"miss": [*deck, "AS"]}), "/deals/0/miss")
    assert_single_error_at(document_with_deal({"hands": {"a": [*deck, "AS"]}}), "/deals/0/hands/a")


def test_log_format_deal_recorded_fields_are_those_listed() -> None:
    recorded = {
        "pool_start": 9,
        "pool_next": 0,
        "tricks": {"a": 2},
        "payouts": {"a": 6},
        "looed": {"b": 9},
        "penalties": {"c": 12},
        "stacks": {"a": -3},
    }
    assert errors_of(document_with_deal({"recorded": recorded})) == []
    for extra in ("meta", "trump", "outcome"):
        document = document_with_deal({"recorded": {**recorded, extra: {}}})
        assert_single_error_at(document, "/deals/0/recorded")


# --- Events ----------------------------------------------------------------------


def test_log_format_events_each_type_validates() -> None:
    events = [copy.deepcopy(e) for e in EVENT_EXAMPLES.values()]
    events += [{**e, "meta": {"by": "secretary"}} for e in copy.deepcopy(events)]
    assert errors_of(document_with_deal({"events": events})) == []


@pytest.mark.parametrize(
    ("event_type", "field"),
    [(t, f) for t, e in EVENT_EXAMPLES.items() for f in e if f not in EVENT_OPTIONAL_FIELDS],
)
def test_log_format_events_require_their_fields(event_type: str, field: str) -> None:
    event = copy.deepcopy(EVENT_EXAMPLES[event_type])
    del event[field]
    assert_single_error_at(document_with_deal({"events": [event]}), "/deals/0/events/0")


@pytest.mark.parametrize("event_type", sorted(EVENT_EXAMPLES))
def test_log_format_events_refuse_fields_of_other_types(event_type: str) -> None:
    event = EVENT_EXAMPLES[event_type]
    foreign = {
        field
        for other in EVENT_EXAMPLES.values()
        for field in other
        if field not in event and field != "type"
    }
    assert foreign
    for field in sorted(foreign):
        donor = next(e for e in EVENT_EXAMPLES.values() if field in e)
        bad = {**event, field: donor[field]}
        assert_single_error_at(document_with_deal({"events": [bad]}), "/deals/0/events/0")


def test_log_format_events_announce_is_only_pam_be_civil() -> None:
    play = {"type": "play", "player": "a", "card": "AH", "announce": "pam"}
    document = document_with_deal({"events": [play]})
    assert_single_error_at(document, "/deals/0/events/0/announce")


def test_log_format_events_exchange_holds_zero_to_52_cards() -> None:
    """docs/rules.md §2.7: an exchange of no cards is allowed (it changes nothing)."""
    deck = [f"{rank}{suit}" for rank in "AKQJT98765432" for suit in "SHDC"]
    exchange = {"type": "exchange", "player": "a", "discard": deck, "draw": deck}
    assert errors_of(document_with_deal({"events": [exchange]})) == []
    empty = {**exchange, "discard": [], "draw": []}
    assert errors_of(document_with_deal({"events": [empty]})) == []
    for field, value in (("discard", [*deck, "AS"]), ("draw", [*deck, "AS"])):
        bad = {**exchange, field: value}
        document = document_with_deal({"events": [bad]})
        assert_single_error_at(document, f"/deals/0/events/0/{field}")


# --- Files: sample_logs/ -------------------------------------------------------------


def test_log_format_files_reader_finds_every_form(tmp_path: Path) -> None:
    document = minimal_document()
    line = json.dumps(document, ensure_ascii=False)
    (tmp_path / "nested" / "deeper").mkdir(parents=True)
    (tmp_path / "a.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(f"{line}\n\n  \n{line}\n", encoding="utf-8")
    (tmp_path / "nested" / "c.ndjson.gz").write_bytes(gzip.compress(f"{line}\n".encode()))
    (tmp_path / "nested" / "deeper" / "d.json.gz").write_bytes(gzip.compress(line.encode()))
    (tmp_path / "nested" / "e.jsonl.gz").write_bytes(gzip.compress(f"\n{line}".encode()))
    (tmp_path / "notes.txt").write_text(line, encoding="utf-8")
    (tmp_path / "f.json.bak").write_text(line, encoding="utf-8")

    found = log_files(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a.json",
        "b.jsonl",
        "nested/c.ndjson.gz",
        "nested/deeper/d.json.gz",
        "nested/e.jsonl.gz",
    ]
    documents = [(p.name, number) for p in found for number, _ in read_documents(p)]
    assert documents == [
        ("a.json", None),
        ("b.jsonl", 1),
        ("b.jsonl", 4),
        ("c.ndjson.gz", 1),
        ("d.json.gz", None),
        ("e.jsonl.gz", 2),
    ]
    assert all(errors_of(doc) == [] for p in found for _, doc in read_documents(p))


def test_log_format_files_reader_refuses_non_json(tmp_path: Path) -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": NaN}', "[Infinity]"):
        path = tmp_path / "bad.json"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError):
            list(read_documents(path))


SAMPLE_LOG_CASES = [
    pytest.param(p, id=p.relative_to(SAMPLE_LOGS).as_posix()) for p in log_files(SAMPLE_LOGS)
] or [pytest.param(None, id="sample_logs-holds-no-logs-yet")]


@pytest.mark.parametrize("path", SAMPLE_LOG_CASES)
def test_log_format_files_every_sample_log_validates(path: Path | None) -> None:
    if path is None:
        # Nothing recorded yet: the folder the contract names must still exist.
        assert SAMPLE_LOGS.is_dir()
        return
    failures: list[str] = []
    count = 0
    try:
        for number, document in read_documents(path):
            count += 1
            where = path.name if number is None else f"{path.name}:{number}"
            failures += [f"{where} {message}" for message in describe(errors_of(document))]
    except (ValueError, OSError, EOFError) as error:  # bad JSON, bad UTF-8, bad gzip
        failures.append(f"{path.name}: unreadable: {error}")
    assert failures == []
    assert count >= 1, f"{path.name} holds no document"

"""Seals, codes and ``verify`` (docs/evidence.md): the canonical form against the RFC 8785
library, the chain, the readers on sealed logs, and every tampering of a sealed log caught
and named through the command line, with the file's seals and, after they were computed
again, with the table's codes."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import rfc8785
from db_helpers import counts, run
from evidence_helpers import reference_seals
from hypothesis import given, settings
from hypothesis import strategies as st

from loo_replay.evidence.canonical import CanonicalError, canonical, reference
from loo_replay.evidence.codes import CodeError, code, read_code
from loo_replay.evidence.seals import BROKEN, SEALED, UNSEALED, check, sealed
from loo_replay.evidence.verify_logs import read_code_option, read_codes_file
from loo_replay.logs.fast_reader import read_plain
from loo_replay.logs.parse import parse_deal, parse_document
from loo_replay.logs.reader import Document
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import audit_document

# ------------------------------------------------------------------ the canonical form

_KEYS = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6
) | st.sampled_from(["deal", "\ue000", "\U0001f600", "a", "é", "seal"])
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.integers(-(2**70), 2**70).filter(lambda n: abs(n) < 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
)
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=30,
)


# 200 examples (600 before, 7 CPU s): the hard cases (UTF-16 key order, ECMAScript numbers,
# the largest exact integers, escapes, empty containers) are fixed examples just below.
@settings(max_examples=200, deadline=None)
@given(JSON)
def test_the_fast_canonical_form_is_the_rfc8785_librarys(value: Any) -> None:
    assert canonical(value) == rfc8785.dumps(value)


@pytest.mark.parametrize(
    "value",
    [
        {"\U0001f600": 1, "\ue000": 2, "a": 3},  # UTF-16 order, not code point order
        {"n": 1.0, "m": 1e21, "k": -0.0, "j": 0.1},  # ECMAScript numbers
        {"big": 2**53 - 1, "neg": -(2**53 - 1)},
        {"s": '\x00\x1f\x7f\u2028"\\ \n\t\b\f\r', "t": "room 7e and 1.5"},
        [[], {}, "", 0, False, None],
    ],
)
def test_the_canonical_form_of_the_hard_cases_is_the_librarys(value: Any) -> None:
    assert canonical(value) == rfc8785.dumps(value) == reference(value)


@pytest.mark.parametrize("value", [{"n": 2**53}, [-(2**64)], {"s": "\ud800"}])
def test_what_rfc8785_cannot_write_is_refused(value: Any) -> None:
    with pytest.raises(CanonicalError):
        canonical(value)


# ------------------------------------------------------------------ codes


def test_a_code_is_the_first_40_bits_in_crockford_base32() -> None:
    seal = bytes.fromhex("ffffffffff") + bytes(27)
    assert code(seal) == "ZZZZ-ZZZZ"
    assert code(bytes(32)) == "0000-0000"
    # 0x0842108421: every five bits are 00001 then 00010... as chosen below
    bits = int("0000100010000110010011111111101000001010", 2)
    assert code(bits.to_bytes(5, "big") + bytes(27)) == "1234-ZYGA"


@pytest.mark.parametrize(
    "typed", ["1234-zyga", "1234ZYGA", "i234-zyga", "L234 ZYGA".replace(" ", "-")]
)
def test_codes_are_read_case_blind_with_or_without_the_hyphen_and_the_aliases(typed: str) -> None:
    assert read_code(typed) == "1234-ZYGA"


@pytest.mark.parametrize("typed", ["1234-ZYG", "1234-ZYGU", "", "1234-ZYGA-0"])
def test_what_is_not_a_code_is_refused(typed: str) -> None:
    with pytest.raises(CodeError):
        read_code(typed)


def test_a_codes_file_is_split_from_the_right_with_comments() -> None:
    text = "# the score sheet\n\nclub night 3  3 0000-0001  # deal three\nnight 12 o0oo0001\n"
    codes = read_codes_file(text, "codes.txt")
    assert [(c.session, c.deal, c.code) for c in codes] == [
        ("club night 3", 3, "0000-0001"),
        ("night", 12, "0000-0001"),
    ]
    option = read_code_option("a:b:7=0000-0002")
    assert (option.session, option.deal, option.code) == ("a:b", 7, "0000-0002")
    for bad in ("night 0001", "night x 0000-0001", "night -2 0000-0001"):
        with pytest.raises(CodeError, match=r"codes\.txt line 1"):
            read_codes_file(bad, "codes.txt")


# ------------------------------------------------------------------ the chain


def _doc() -> dict[str, Any]:
    result = run("simulate", "--players", "4", "--deals", "8", "--seed", "5")
    assert result.returncode == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


@pytest.fixture(scope="module")
def night() -> dict[str, Any]:
    return _doc()


def _sealed(doc: dict[str, Any]) -> dict[str, Any]:
    return sealed(doc, check(doc).seals)


def test_the_chain_is_sha256_over_the_canonical_header_then_each_deal(
    night: dict[str, Any],
) -> None:
    seals = reference_seals(night)
    found = check(night)
    assert found.status == UNSEALED
    assert list(found.seals) == seals
    doc = _sealed(night)
    assert doc["session"]["seal"] == {"alg": "loo-seal-v1", "header": seals[0].hex()}
    assert [d["seal"] for d in doc["deals"]] == [s.hex() for s in seals[1:]]
    assert check(doc).status == SEALED and check(doc).seals == found.seals
    # sealing changes no value: the seals removed, the document is what it was
    assert {**doc, "session": night["session"], "deals": night["deals"]} == night
    assert [{k: v for k, v in d.items() if k != "seal"} for d in doc["deals"]] == night["deals"]


def test_a_sealed_header_without_its_seal_is_broken_at_the_header(night: dict[str, Any]) -> None:
    doc = _sealed(night)
    del doc["session"]["seal"]
    assert (check(doc).status, check(doc).at) == (BROKEN, "the header")


# ------------------------------------------------------------------ the readers


def test_both_readers_read_a_sealed_log_as_the_unsealed_one(night: dict[str, Any]) -> None:
    raw = orjson.dumps(_sealed(night))
    plain = read_plain(raw)
    assert plain is not None  # the plain reader reads the seals itself
    parsed = parse_document(json.loads(raw))
    assert parsed.header_error is None
    full = [parse_deal(d, f"/deals/{i}", parsed.header) for i, d in enumerate(parsed.raw_deals)]
    unsealed = read_plain(orjson.dumps(night))
    assert unsealed is not None
    assert plain.deals == full == unsealed.deals
    for fast in (True, False):
        report = audit_document(Document("n.json", None, raw), RuleChoice(), plain=fast)
        assert not isinstance(report, type(None))
        assert report.seals.status == SEALED  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("where", "value", "pointer"),
    [
        ("deal", "ABC", "/deals/0/seal"),
        ("deal", "A" * 64, "/deals/0/seal"),
        ("session", {"alg": "loo-seal-v2", "header": "0" * 64}, "/session/seal/alg"),
        ("session", {"alg": "loo-seal-v1"}, "/session/seal"),
        ("session", "0" * 64, "/session/seal"),
    ],
)
def test_a_seal_of_the_wrong_form_is_a_log_error_for_both_readers(
    night: dict[str, Any], where: str, value: Any, pointer: str
) -> None:
    doc = copy.deepcopy(night)
    if where == "deal":
        doc["deals"][0]["seal"] = value
    else:
        doc["session"]["seal"] = value
    raw = orjson.dumps(doc)
    for fast in (True, False):
        report = audit_document(Document("n.json", None, raw), RuleChoice(), plain=fast)
        errors = [e.path for e in report.errors] + [  # type: ignore[union-attr]
            e.path
            for d in report.deals  # type: ignore[union-attr]
            for e in d.errors
        ]
        assert pointer in errors, (fast, errors)


# ------------------------------------------------------------------ the command line


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    return path


def _codes(doc: dict[str, Any], path: Path) -> Path:
    found = check(doc)
    sid = doc["session"]["id"]
    lines = [
        f"{sid} {d['deal']} {code(s)}" for d, s in zip(doc["deals"], found.seals[1:], strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _card_changed(doc: dict[str, Any]) -> str:
    deal = doc["deals"][3]
    play = next(e for e in deal["events"] if e["type"] == "play")
    play["card"] = "2C" if play["card"] != "2C" else "3C"
    return "deal 4"


def _payout_changed(doc: dict[str, Any]) -> str:
    recorded = doc["deals"][5]["recorded"]
    recorded["payouts"] = {k: v + 1 for k, v in recorded["payouts"].items()} or {"ann": 1}
    return "deal 6"


def _deal_removed(doc: dict[str, Any]) -> str:
    del doc["deals"][2]
    return "deal 4"  # the first deal whose stored seal no longer follows


def _deals_swapped(doc: dict[str, Any]) -> str:
    doc["deals"][4], doc["deals"][5] = doc["deals"][5], doc["deals"][4]
    return "deal 6"  # deal 6 now stands where deal 5 did


def _deal_appended(doc: dict[str, Any]) -> str:
    extra = copy.deepcopy(doc["deals"][-1])
    extra["deal"] = 9
    del extra["seal"]
    doc["deals"].append(extra)
    return "deal 9"


def _players_changed(doc: dict[str, Any]) -> str:
    doc["session"]["players"][0]["name"] = "Ann Someone-Else"
    return "the header"


TAMPERINGS = {
    "a card changed": (_card_changed, "code mismatch at deal 4"),
    "a payout changed": (_payout_changed, "code mismatch at deal 6"),
    "a deal removed": (_deal_removed, "missing deal 3"),
    "two deals swapped": (_deals_swapped, "code mismatch at deal 5"),
    "a deal appended after sealing": (_deal_appended, "not confirmed by any code: deal 9"),
    "the players changed in the header": (_players_changed, "code mismatch at deal 1"),
}


@pytest.fixture(scope="module")
def sealed_night(
    night: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], str]:
    """The night sealed by ``loo-replay seal``, and its table of codes, which ``verify``
    confirms: the same for every tampering below, so sealed once (two processes, not
    twelve)."""
    tmp = tmp_path_factory.mktemp("sealed")
    log = _write(tmp / "night.json", night)
    assert run("seal", log).returncode == 0
    sealed_doc: dict[str, Any] = json.loads(log.read_text())
    codes = _codes(sealed_doc, tmp / "codes.txt")
    assert run("verify", log, "--codes", codes).returncode == 0
    return sealed_doc, codes.read_text()


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_each_tampering_of_a_sealed_log_is_caught_and_named(
    sealed_night: tuple[dict[str, Any], str], tmp_path: Path, name: str
) -> None:
    tamper, by_codes = TAMPERINGS[name]
    sealed_doc, table = sealed_night
    log = tmp_path / "night.json"
    codes = tmp_path / "codes.txt"
    codes.write_text(table)
    doc = copy.deepcopy(sealed_doc)
    where = tamper(doc)
    _write(log, doc)
    # the file's own seals catch it
    result = run("verify", log)
    assert result.returncode == 1, result.stdout
    assert f"broken at {where}" in result.stdout
    assert run("seal", log).returncode == 2  # no sealing over it
    # computed again, the file's seals hold: the table's codes still catch it
    assert run("seal", log, "--renew").returncode == 0
    result = run("verify", log)  # the seals in the file prove nothing against that
    assert result.returncode == 0 and ": sealed" in result.stdout
    result = run("verify", log, "--codes", codes)
    assert result.returncode == 1, result.stdout
    assert by_codes in result.stdout, result.stdout


def test_verify_says_unsealed_and_exits_1_and_2_for_what_cannot_be_read(
    night: dict[str, Any], tmp_path: Path
) -> None:
    log = _write(tmp_path / "night.json", night)
    result = run("verify", log)
    assert result.returncode == 1 and "unsealed: nothing is proven" in result.stdout
    (tmp_path / "bad.json").write_text("{not json")
    result = run("verify", log, tmp_path / "bad.json")
    assert result.returncode == 2 and "bad.json" in result.stderr
    assert run("verify", tmp_path / "none.json").returncode == 2
    result = run("verify", log, "--code", "x:1=ABCD-EFGU")
    assert result.returncode == 2 and "not a seal code" in result.stderr
    assert run("verify", log, "--codes", tmp_path / "missing.txt").returncode == 2


def test_codes_confirm_up_to_the_last_one_and_name_the_rest(
    night: dict[str, Any], tmp_path: Path
) -> None:
    doc = _sealed(night)
    log = _write(tmp_path / "night.json", doc)
    sid = doc["session"]["id"]
    seals = check(doc).seals
    third = f"{sid}:3={code(seals[3]).lower().replace('-', '')}"
    result = run("verify", log, "--code", third)
    assert result.returncode == 1
    assert "deal 3 " in result.stdout and ": match" in result.stdout
    assert "not confirmed by any code: deal 4, deal 5, deal 6, deal 7, deal 8" in result.stdout
    last = f"{sid}:8={code(seals[8])}"
    result = run("verify", log, "--code", third, "--code", last)
    assert result.returncode == 0, result.stdout
    result = run("verify", log, "--code", f"{sid}:12={code(seals[8])}", "--code", last)
    assert result.returncode == 1 and "missing deal 12" in result.stdout
    result = run("verify", log, "--code", f"elsewhere:1={code(seals[1])}", "--code", last)
    assert result.returncode == 1 and "session elsewhere: no log holds it" in result.stdout


def test_seal_writes_jsonl_and_gzip_in_place_or_to_out_and_changes_no_value(
    night: dict[str, Any], tmp_path: Path
) -> None:
    other = copy.deepcopy(night)
    other["session"]["id"] = "second night"
    lines = tmp_path / "nights.jsonl.gz"
    lines.write_bytes(gzip.compress(orjson.dumps(night) + b"\n" + orjson.dumps(other) + b"\n"))
    out = tmp_path / "sealed.jsonl.gz"
    result = run("seal", lines, "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("last code") == 2
    docs = [json.loads(line) for line in gzip.decompress(out.read_bytes()).splitlines()]
    assert [check(d).status for d in docs] == [SEALED, SEALED]
    assert docs[0] == _sealed(night) and docs[1] == _sealed(other)
    assert gzip.decompress(lines.read_bytes()).count(b'"seal"') == 0  # the input untouched
    result = run("verify", out)
    assert result.returncode == 0 and "second night" in result.stdout
    # sealing again over seals that hold changes nothing
    before = out.read_bytes()
    assert run("seal", out).returncode == 0 and out.read_bytes() == before
    assert run("seal", lines, lines, "--out", out).returncode == 2


def test_validate_says_whether_the_seals_hold_and_its_exit_status_ignores_them(
    night: dict[str, Any], tmp_path: Path
) -> None:
    log = _write(tmp_path / "night.json", night)
    plain = run("validate", log)
    assert "seal" not in plain.stdout  # an unsealed log says nothing of seals
    audit = json.loads(run("validate", log, "--format", "json").stdout)
    assert audit["sessions"][0]["seals"] == {
        "status": "unsealed",
        "broken_at": None,
        "last_code": None,
    }
    run("seal", log)
    last = code(check(night).seals[-1])
    result = run("validate", log)
    assert result.returncode == plain.returncode
    assert f"  seals hold (last code {last})" in result.stdout.splitlines()
    doc = json.loads(log.read_text())
    _payout_changed(doc)
    _write(log, doc)
    result = run("validate", log, "--format", "json")
    seals = json.loads(result.stdout)["sessions"][0]["seals"]
    assert seals == {"status": "broken", "broken_at": "deal 6", "last_code": None}
    assert "  seals broken at deal 6: changed after it was sealed" in run("validate", log).stdout


def test_ingest_takes_a_log_sealed_since_for_the_same_session_and_a_change_for_a_conflict(
    night: dict[str, Any], tmp_path: Path
) -> None:
    log = _write(tmp_path / "night.json", night)
    db = tmp_path / "loo.duckdb"
    first = run("ingest", log, "--db", db)
    assert first.returncode == 0, first.stderr
    assert counts(first)["loaded"] == 8
    assert run("seal", log).returncode == 0  # written again, indented, seals added
    again = run("ingest", log, "--db", db)
    assert again.returncode == 0, again.stderr
    assert counts(again)["skipped"] == 8 and counts(again)["conflicts"] == 0
    doc = json.loads(log.read_text())
    _payout_changed(doc)
    _write(log, doc)
    assert run("seal", log, "--renew").returncode == 0
    changed = run("ingest", log, "--db", db)
    assert changed.returncode == 1 and counts(changed)["conflicts"] == 8


def test_the_explorers_session_page_says_whether_its_seals_hold(
    night: dict[str, Any], tmp_path: Path
) -> None:
    import urllib.request
    from urllib.parse import urlencode

    from explorer_helpers import serving

    logs = {}
    for name in ("unsealed", "sealed", "broken"):
        doc = copy.deepcopy(night)
        doc["session"]["id"] = name
        logs[name] = doc if name == "unsealed" else _sealed(doc)
    _payout_changed(logs["broken"])
    for name, doc in logs.items():
        _write(tmp_path / f"{name}.json", doc)
    db = tmp_path / "loo.duckdb"
    loaded = run("ingest", *(tmp_path / f"{n}.json" for n in logs), "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    last = code(check(logs["sealed"]).seals[-1])
    expected = {
        "unsealed": "no seals",
        "sealed": f"seals hold (last code {last})",
        "broken": "seals broken at deal 6: changed after it was sealed",
    }
    with serving(db) as server:
        server.wait_for_url()
        for name, line in expected.items():
            url = server.url + "session?" + urlencode({"id": name})
            with urllib.request.urlopen(url, timeout=60) as answer:
                page = answer.read().decode()
            assert "Seals" in page and line in page, name

"""The package against the project's specification in ``../shared`` (``make conformance``, run
by CI after ``make test``): RULES.md §6 to §8 and LOG-FORMAT.md's events, and the quotations of
the ruleset files against the seed texts. Without ``../shared`` these checks fail: they have
nothing to compare with. ``LOO_SHARED`` may point elsewhere."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from md_helpers import backticked, section, tables
from test_rulesets_data import BUILTIN_RULESETS, load, options, quotations

from loo_replay.engine.model import FINDING_CODES, REVOKE_CODES
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.logs.parse import EVENT_FIELDS
from loo_replay.rulesets import builtin

SHARED = Path(os.environ.get("LOO_SHARED", Path(__file__).resolve().parents[2] / "shared"))
RULES_MD = SHARED / "spec" / "RULES.md"
LOG_FORMAT_MD = SHARED / "spec" / "LOG-FORMAT.md"
SEEDS = SHARED / "seeds"

Scalar = bool | int | str


def _text(path: Path) -> str:
    assert path.is_file(), f"{path} not found: the conformance checks need ../shared"
    return path.read_text("utf-8")


@cache
def _rules() -> str:
    return _text(RULES_MD)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _cell_value(cell: str) -> Scalar:
    if cell in ("true", "false"):
        return cell == "true"
    return int(cell) if cell.isdigit() else cell


@cache
def _section_7_domains() -> dict[str, str]:
    """{option: values column} of the RULES.md §7 table."""
    _header, *rows = tables(section(_rules(), "7."))[0]
    return {option.strip("`"): values for option, values, *_ in rows}


@cache
def _section_8() -> tuple[list[str], list[list[str]]]:
    header, *rows = tables(section(_rules(), "8."))[0]
    return header[1:], rows


def _section_8_values() -> dict[str, dict[str, Scalar]]:
    """{ruleset: {option: value}} from the §8 table, blanks filled from three-card."""
    names, rows = _section_8()
    assert names[0] == "three-card"
    values: dict[str, dict[str, Scalar]] = {name: {} for name in names}
    for option, *cells in rows:
        option = option.strip("`")
        if option == "source":
            continue
        assert len(cells) == len(names), f"§8 row {option} has {len(cells)} cells"
        assert cells[0], f"§8 gives no three-card value for {option}"
        for name, cell in zip(names, cells, strict=True):
            values[name][option] = _cell_value(cell or cells[0])
    return values


def _in_domain(value: Any, domain: str) -> bool:
    if domain == "bool":
        return isinstance(value, bool)
    bound = re.fullmatch(r"int ≥ (\d+)", domain)
    if bound:
        return type(value) is int and value >= int(bound.group(1))
    if re.fullmatch(r"\d+(, \d+)*", domain):
        return type(value) is int and value in {int(v) for v in domain.split(", ")}
    allowed = set(backticked(domain))
    if domain.startswith("the same"):  # deal.trump_in_must: deal.trump's values, or `same`
        allowed |= set(backticked(_section_7_domains()["deal.trump"]))
    assert allowed, f"cannot read the §7 domain {domain!r}"
    return isinstance(value, str) and value in allowed


def test_options_are_those_of_rules_md_section_7_in_its_order() -> None:
    assert list(_section_7_domains()) == list(OPTION_SPECS)


@pytest.mark.parametrize("name", list(OPTION_SPECS))
def test_option_accepts_exactly_the_values_of_rules_md_section_7(name: str) -> None:
    spec, domain = OPTION_SPECS[name], _section_7_domains()[name]
    if spec.kind == "bool":
        assert domain == "bool"
    elif spec.kind == "int":
        assert domain == f"int ≥ {spec.minimum}"
    else:
        assert all(_in_domain(choice, domain) for choice in spec.choices), (name, domain)
        assert not _in_domain("no such value", domain)


def test_finding_codes_are_those_of_rules_md_section_6() -> None:
    _header, *rows = tables(section(_rules(), "6."))[0]
    codes = {code: row[1] for row in rows for code in backticked(row[0])}
    assert sorted(codes) == sorted(FINDING_CODES)
    assert {c for c, kind in codes.items() if kind == "revoke"} == set(REVOKE_CODES)


def test_event_types_and_fields_are_those_of_log_format_md() -> None:
    events = section(_text(LOG_FORMAT_MD), "Events")
    _header, *rows = tables(events)[0]
    documented = {backticked(row[0])[0]: backticked(row[1]) for row in rows}
    assert sorted(documented) == sorted(EVENT_FIELDS)
    for kind, fields in EVENT_FIELDS.items():
        assert set(fields) <= set(documented[kind]), kind


def test_section_8_covers_exactly_the_builtin_rulesets_and_options() -> None:
    values = _section_8_values()
    assert list(values) == BUILTIN_RULESETS
    for name in BUILTIN_RULESETS:
        assert sorted(values[name]) == sorted(OPTION_SPECS), name


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_rulesets_match_rules_md_section_8(name: str) -> None:
    """The ruleset in force, its file's options over the defaults, is the table's column."""
    expected = _section_8_values()[name]
    actual = builtin(name).options.dotted()
    mismatches = {
        option: (actual.get(option), value)
        for option, value in expected.items()
        if actual.get(option) != value or type(actual.get(option)) is not type(value)
    }
    assert not mismatches, f"{name}: option -> (file, §8 table): {mismatches}"


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_values_lie_in_section_7_domains(name: str) -> None:
    domains = _section_7_domains()
    for option, value in options(load(name)).items():
        assert _in_domain(value, domains[option]), f"{name}: {option} = {value!r}"


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_source_names_the_section_8_source(name: str) -> None:
    # §8's source row begins with the seed id (003, 001, 000) or HGM; the file's `source` too.
    names, rows = _section_8()
    (source_row,) = [cells for option, *cells in rows if option == "source"]
    origin = dict(zip(names, source_row, strict=True))[name].split()[0]
    assert load(name)["source"].startswith(f"{origin}: "), name


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_quotations_occur_in_their_sources(name: str) -> None:
    assert SEEDS.is_dir(), f"{SEEDS} not found: the conformance checks need ../shared"
    seeds = {path.name[:3]: _norm(path.read_text("utf-8")) for path in SEEDS.glob("*.txt")}
    texts = {**seeds, "HGM notes": _norm(section(_rules(), "9."))}
    checked = 0
    for option, entry in load(name)["sources"].items():
        for origin, quotation in quotations(entry):
            assert origin in texts, f"{name}: {option} cites unknown source {origin}"
            assert _norm(quotation) in texts[origin], f"{name}: {option}: not in {origin}"
            checked += 1
    assert checked > 0, f"{name}: no quotation checked"

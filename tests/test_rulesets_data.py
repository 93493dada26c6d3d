"""The built-in ruleset files (loo_replay/rulesets/*.toml) against RULES.md §7, §8 and the seeds.

Convention for the ``[sources]`` table of a ruleset file: each entry is one or more parts
separated by `` | ``. A part that contains ``NNN: "`` (NNN a three-digit seed id) or
``RULES.md §9: "`` is a quotation: from that marker to the end of the part it must read
``NNN: "<quotation>"`` (the closing double quote ends the part; the quotation itself may contain
double quotes, as the seeds do). A ``NNN: "…"`` quotation must occur verbatim in
``shared/seeds/NNN_*.txt`` and a ``RULES.md §9: "…"`` quotation in §9 of RULES.md, both compared
with runs of whitespace collapsed to one space. A part that starts with ``NNN: `` must be a
quotation (nothing may be attributed to a seed unquoted). Every other part is commentary, e.g.
"000 is silent on penalties; borrowed from 001 (hoyle)".
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

RULESETS_DIR = Path(__file__).resolve().parents[1] / "loo_replay" / "rulesets"
SHARED_DIR = Path(__file__).resolve().parents[2] / "shared"
RULES_MD = SHARED_DIR / "spec" / "RULES.md"
SEEDS_DIR = SHARED_DIR / "seeds"

BUILTIN_RULESETS = [
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
]

# RULES.md §7, in its order (checked against the spec below when the spec is present).
SECTION_7_OPTIONS = [
    "deal.hand_size",
    "deal.miss",
    "deal.trump",
    "deal.trump_in_must",
    "deal.exchange",
    "deal.pam",
    "stakes.ante",
    "stakes.ante_by",
    "stakes.loo",
    "stakes.loo_amount",
    "stakes.loo_cap",
    "stakes.loo_scope",
    "declare.must",
    "declare.club_law",
    "declare.last_must_play_single",
    "declare.dealer_defends",
    "lead.top_trump",
    "lead.highest_trump",
    "lead.trump_if",
    "lead.trump_after_trick",
    "follow.head",
    "follow.void",
    "follow.pam_civil",
    "follow.pam_civil_strict",
    "flush.kind",
    "flush.pools",
    "flush.when",
    "flush.pam_wild",
    "flush.rank",
    "flush.looes",
    "flush.pay",
    "flush.exempt_pam",
    "penalties.revoke",
    "penalties.revoke_amount",
    "penalties.out_of_turn",
    "penalties.declare_out_of_turn",
    "penalties.misdeal",
    "penalties.misdeal_redeal",
]

TOP_LEVEL_KEYS = {"name", "description", "source", "sources"}

QUOTE_MARKER = re.compile(r'(?P<origin>\d{3}|RULES\.md §9): "')
PART_SEPARATOR = " | "

Scalar = bool | int | str


# ---------------------------------------------------------------------------- helpers


def _norm(text: str) -> str:
    return " ".join(text.split())


def _rules_text() -> str:
    if not RULES_MD.is_file():
        pytest.skip(f"spec not found at {RULES_MD}; cannot check the rulesets against RULES.md")
    return RULES_MD.read_text(encoding="utf-8")


def _section(text: str, number: int) -> str:
    match = re.search(rf"^## {number}\..*?(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"RULES.md has no section {number}"
    return match.group(0)


def _first_table(section: str) -> list[list[str]]:
    """Rows (header first, separator dropped) of the first markdown table in ``section``."""
    rows: list[list[str]] = []
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                rows.append(cells)
        elif rows:
            break
    assert rows, "no table found"
    return rows


def _cell_value(cell: str) -> Scalar:
    if cell == "true":
        return True
    if cell == "false":
        return False
    if cell.isdigit():
        return int(cell)
    return cell


def _section_8_values() -> dict[str, dict[str, Scalar]]:
    """{ruleset: {option: value}} from the §8 table, blanks filled from three-card."""
    header, *rows = _first_table(_section(_rules_text(), 8))
    names = header[1:]
    assert names[0] == "three-card"
    values: dict[str, dict[str, Scalar]] = {name: {} for name in names}
    for option, *cells in rows:
        option = option.strip("`")
        if option == "source":
            continue
        assert len(cells) == len(names), f"§8 row {option} has {len(cells)} cells"
        default = cells[0]
        assert default, f"§8 gives no three-card value for {option}"
        for name, cell in zip(names, cells, strict=True):
            values[name][option] = _cell_value(cell or default)
    return values


def _section_8_source_row() -> dict[str, str]:
    header, *rows = _first_table(_section(_rules_text(), 8))
    for option, *cells in rows:
        if option == "source":
            return dict(zip(header[1:], cells, strict=True))
    raise AssertionError("§8 table has no source row")


def _section_7_domains() -> dict[str, str]:
    """{option: values column} from the §7 table."""
    _header, *rows = _first_table(_section(_rules_text(), 7))
    return {option.strip("`"): values for option, values, *_ in rows}


def _in_domain(value: Any, domain: str, domains: dict[str, str]) -> bool:
    if domain == "bool":
        return isinstance(value, bool)
    bound = re.fullmatch(r"int ≥ (\d+)", domain)
    if bound:
        return type(value) is int and value >= int(bound.group(1))
    if re.fullmatch(r"\d+(, \d+)*", domain):
        return type(value) is int and value in {int(v) for v in domain.split(", ")}
    allowed = set(re.findall(r"`([^`]+)`", domain))
    if domain.startswith("the same"):  # deal.trump_in_must: deal.trump's values, or `same`
        allowed |= set(re.findall(r"`([^`]+)`", domains["deal.trump"]))
    assert allowed, f"cannot read the §7 domain {domain!r}"
    return isinstance(value, str) and value in allowed


def _load(name: str) -> dict[str, Any]:
    path = RULESETS_DIR / f"{name}.toml"
    assert path.is_file(), f"missing built-in ruleset file {path}"
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _options(data: dict[str, Any]) -> dict[str, Any]:
    """Dotted option name -> value, from every table except [sources]."""
    out: dict[str, Any] = {}
    for section, table in data.items():
        if section in TOP_LEVEL_KEYS:
            continue
        assert isinstance(table, dict), f"unexpected top-level key {section!r}"
        for key, value in table.items():
            out[f"{section}.{key}"] = value
    return out


def _quotations(entry: str) -> list[tuple[str, str]]:
    """(origin, quotation) pairs of a [sources] entry, by the convention in the docstring."""
    found: list[tuple[str, str]] = []
    for part in entry.split(PART_SEPARATOR):
        marker = QUOTE_MARKER.search(part)
        if marker is None:
            assert not re.match(r"\d{3}: ", part), f"unquoted text attributed to a seed: {part!r}"
            continue
        rest = part[marker.end() :]
        assert rest.endswith('"') and len(rest) > 1, f"quotation does not end the part: {part!r}"
        found.append((marker.group("origin"), rest[:-1]))
    return found


# ------------------------------------------------------------------------------ tests


def test_section_7_lists_the_options_the_rulesets_use() -> None:
    assert list(_section_7_domains()) == SECTION_7_OPTIONS


def test_section_8_covers_exactly_the_builtin_rulesets_and_section_7_options() -> None:
    values = _section_8_values()
    assert list(values) == BUILTIN_RULESETS
    for name in BUILTIN_RULESETS:
        assert sorted(values[name]) == sorted(SECTION_7_OPTIONS), name


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_rulesets_match_rules_md_section_8(name: str) -> None:
    expected = _section_8_values()[name]
    actual = _options(_load(name))
    mismatches = {
        option: (actual.get(option), value)
        for option, value in expected.items()
        if actual.get(option) != value or type(actual.get(option)) is not type(value)
    }
    assert not mismatches, f"{name}: option -> (file, §8 table): {mismatches}"


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_values_lie_in_section_7_domains(name: str) -> None:
    domains = _section_7_domains()
    for option, value in _options(_load(name)).items():
        assert _in_domain(value, domains[option], domains), f"{name}: {option} = {value!r}"


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_file_is_complete_per_section_7(name: str) -> None:
    data = _load(name)
    assert data.get("name") == name
    for key in ("description", "source"):
        assert isinstance(data.get(key), str) and data[key].strip(), f"{name}: empty {key}"
    assert sorted(_options(data)) == sorted(SECTION_7_OPTIONS), f"{name}: option set differs"
    sources = data.get("sources")
    assert isinstance(sources, dict), f"{name}: no [sources] table"
    assert sorted(sources) == sorted(SECTION_7_OPTIONS), f"{name}: [sources] keys differ"
    for option, entry in sources.items():
        assert isinstance(entry, str) and entry.strip(), f"{name}: empty source for {option}"


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_source_names_the_section_8_source(name: str) -> None:
    # §8's source row begins with the seed id (003, 001, 000) or HGM; the file's `source` too.
    origin = _section_8_source_row()[name].split()[0]
    assert _load(name)["source"].startswith(f"{origin}: "), name


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_quotations_occur_in_their_sources(name: str) -> None:
    if not SEEDS_DIR.is_dir():
        pytest.skip(f"seeds folder not found at {SEEDS_DIR}; cannot check quotations")
    seeds: dict[str, str] = {}
    for path in SEEDS_DIR.glob("*.txt"):
        seeds[path.name[:3]] = _norm(path.read_text(encoding="utf-8"))
    section_9 = (
        _norm(_section(RULES_MD.read_text(encoding="utf-8"), 9)) if RULES_MD.is_file() else None
    )
    checked = 0
    for option, entry in _load(name)["sources"].items():
        for origin, quotation in _quotations(entry):
            if origin == "RULES.md §9":
                if section_9 is None:
                    continue
                text = section_9
            else:
                assert origin in seeds, f"{name}: {option} cites unknown seed {origin}"
                text = seeds[origin]
            assert _norm(quotation) in text, f"{name}: {option}: not in {origin}: {quotation!r}"
            checked += 1
    assert checked > 0, f"{name}: no quotation checked"


def test_quotation_convention_parser() -> None:
    entry = '000 is silent; borrowed from 001: "a "b" c." | note | RULES.md §9: "x"'
    assert _quotations(entry) == [("001", 'a "b" c.'), ("RULES.md §9", "x")]
    with pytest.raises(AssertionError):
        _quotations("003: unquoted claim")
    with pytest.raises(AssertionError):
        _quotations('003: "quote" trailing text')

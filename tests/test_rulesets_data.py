"""The built-in ruleset files (loo_replay/rulesets/*.toml): complete, valid, and citing their
sources by the convention below. docs/rules.md's table of them is checked in test_docs.py;
their agreement with the specification and the seed texts in ``make conformance``.

Convention for the ``[sources]`` table of a ruleset file: each entry is one or more parts
separated by `` | ``. A part that contains ``NNN: "`` (NNN a three-digit seed id) or
``HGM notes: "`` is a quotation: from that marker to the end of the part it must read
``NNN: "<quotation>"`` (the closing double quote ends the part; the quotation itself may contain
double quotes, as the seeds do). A part that starts with ``NNN: `` must be a quotation (nothing
may be attributed to a seed unquoted). Every other part is commentary, e.g. "000 is silent on
penalties; borrowed from 001 (hoyle)".
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from loo_replay.engine.options import OPTION_SPECS, OptionError, Options, check_option
from loo_replay.rulesets import builtin, builtin_names

RULESETS_DIR = Path(__file__).resolve().parents[1] / "loo_replay" / "rulesets"

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

TOP_LEVEL_KEYS = {"name", "description", "source", "sources"}

QUOTE_MARKER = re.compile(r'(?P<origin>\d{3}|HGM notes): "')
PART_SEPARATOR = " | "


def load(name: str) -> dict[str, Any]:
    path = RULESETS_DIR / f"{name}.toml"
    assert path.is_file(), f"missing built-in ruleset file {path}"
    with path.open("rb") as fh:
        return tomllib.load(fh)


def options(data: dict[str, Any]) -> dict[str, Any]:
    """Dotted option name -> value, from every table except [sources]."""
    out: dict[str, Any] = {}
    for section, table in data.items():
        if section in TOP_LEVEL_KEYS:
            continue
        assert isinstance(table, dict), f"unexpected top-level key {section!r}"
        for key, value in table.items():
            out[f"{section}.{key}"] = value
    return out


def quotations(entry: str) -> list[tuple[str, str]]:
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


def test_the_eleven_builtin_rulesets_are_the_package_files() -> None:
    assert sorted(builtin_names()) == sorted(BUILTIN_RULESETS)


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_file_cites_a_source_for_every_option_it_sets(name: str) -> None:
    """A file sets options in docs/rules.md's order and cites a source for each; the options
    it leaves out are those its source is silent on, which take their defaults."""
    data = load(name)
    assert data.get("name") == name
    for key in ("description", "source"):
        assert isinstance(data.get(key), str) and data[key].strip(), f"{name}: empty {key}"
    named = list(options(data))
    assert named == [o for o in OPTION_SPECS if o in named], f"{name}: unknown option or order"
    sources = data.get("sources")
    assert isinstance(sources, dict), f"{name}: no [sources] table"
    assert sorted(sources) == sorted(named), f"{name}: [sources] keys differ from its options"
    for option, entry in sources.items():
        assert isinstance(entry, str) and entry.strip(), f"{name}: empty source for {option}"


def test_the_defaults_are_the_default_rulesets_values() -> None:
    """``OptionSpec.default`` is three-card's value: docs/rules.md's table says a blank is
    three-card's, and a ruleset that leaves an option out takes it."""
    assert options(load("three-card")) == {n: s.default for n, s in OPTION_SPECS.items()}
    assert builtin("three-card").options == Options.from_dotted({})


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_an_option_a_builtin_file_leaves_out_has_its_default(name: str) -> None:
    named = options(load(name))
    for option, value in builtin(name).options.dotted().items():
        assert value == named.get(option, OPTION_SPECS[option].default), (name, option)


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_values_are_ones_the_options_take(name: str) -> None:
    for option, value in options(load(name)).items():
        try:
            check_option(option, value)
        except OptionError as exc:
            pytest.fail(f"{name}: {exc}")


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_sources_follow_the_quotation_convention(name: str) -> None:
    data = load(name)
    assert re.match(r"(\d{3}|HGM): ", data["source"]), f"{name}: source names no origin"
    quoted = [q for entry in data["sources"].values() for q in quotations(entry)]
    assert quoted, f"{name}: no quotation"


def test_quotation_convention_parser() -> None:
    entry = '000 is silent; borrowed from 001: "a "b" c." | note | HGM notes: "x"'
    assert quotations(entry) == [("001", 'a "b" c.'), ("HGM notes", "x")]
    with pytest.raises(AssertionError):
        quotations("003: unquoted claim")
    with pytest.raises(AssertionError):
        quotations('003: "quote" trailing text')


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", BUILTIN_RULESETS)
def test_builtin_ruleset_quotations_of_the_hgm_notes_are_in_the_docs(name: str) -> None:
    """A ``HGM notes: "…"`` quotation is a sentence of docs/rules.md's HGM notes, so a reader
    can find it in the repository (the seed quotations are checked in make conformance)."""
    docs = (RULESETS_DIR.parents[1] / "docs" / "rules.md").read_text("utf-8")
    notes = _words(docs.split("### HGM notes", 1)[1].split("\n#", 1)[0])
    for option, entry in load(name)["sources"].items():
        for origin, quotation in quotations(entry):
            if origin == "HGM notes":
                assert _words(quotation) in notes, f"{name}: {option}: {quotation!r}"

"""docs/ against the package: every event type, option, finding code, ruleset and command the
code knows is documented, and everything the docs name exists; the ruleset table is the one the
TOML files give; the log to copy in docs/log-format.md is valid; links resolve."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from db_helpers import ROOT, run
from jsonschema import Draft202012Validator
from md_helpers import anchors, backticked, fenced, links, section, tables

from loo_replay.cli import app
from loo_replay.collusion.opportunities import TESTS as COLLUSION_TESTS
from loo_replay.engine.analysis import NOTE_CODES
from loo_replay.engine.model import ACTIONS, FINDING_CODES, REVOKE_CODES, UNCHECKED_CHECKS
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.fairness.stats import TESTS as FAIRNESS_TESTS
from loo_replay.logs.parse import EVENT_FIELDS
from loo_replay.rulesets import DEFAULT, builtin, builtin_names

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
README = ROOT / "README.md"
OPTION_GROUPS = {name.split(".")[0] for name in OPTION_SPECS}
OPTION_NAME = re.compile(rf"(?<!/)(?:{'|'.join(OPTION_GROUPS)})\.[a-z_]+")  # not engine/flush.py
# Hyphenated names in backticks that are neither finding codes nor rulesets.
OTHER_HYPHENATED = {"chromium-driver", "loo-replay"}


def _read(path: Path) -> str:
    return path.read_text("utf-8")


def _all_docs() -> str:
    return "\n".join(_read(page) for page in PAGES)


def _page(name: str) -> str:
    return _read(DOCS / name)


def _first_column(table: list[list[str]]) -> list[str]:
    return [name for row in table[1:] for name in backticked(row[0])]


def _table_headed(text: str, first: str) -> list[list[str]]:
    """The table of ``text`` whose header's first cell is ``first``."""
    (table,) = [t for t in tables(text) if t[0][0] == first]
    return table


def _commands() -> list[str]:
    return [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]


# ------------------------------------------------------------------------ event types


def test_every_event_type_and_its_fields_are_in_the_log_format_page() -> None:
    events = _table_headed(section(_page("log-format.md"), "Events"), "type")
    documented = {backticked(row[0])[0]: row for row in events[1:]}
    assert sorted(documented) == sorted(EVENT_FIELDS)
    for kind, fields in EVENT_FIELDS.items():
        named = backticked(documented[kind][1])
        assert set(fields) <= set(named), (kind, fields, named)
    declare = documented["declare"][1]
    assert set(ACTIONS) <= set(backticked(declare))


def test_every_event_named_in_the_docs_exists() -> None:
    named = re.findall(r"`(\w+)` event", _all_docs())
    assert named, "the docs name no event"
    assert set(named) <= set(EVENT_FIELDS), set(named) - set(EVENT_FIELDS)


# ---------------------------------------------------------------------------- options


def test_every_option_is_in_the_options_table_with_its_values() -> None:
    table = _table_headed(section(_page("rules.md"), "7. Options"), "option")
    rows = {backticked(row[0])[0]: row for row in table[1:]}
    assert list(rows) == list(OPTION_SPECS)
    for name, spec in OPTION_SPECS.items():
        values = rows[name][1]
        if spec.kind == "bool":
            assert backticked(values) == ["true", "false"], name
        elif spec.kind == "int":
            assert values == f"an integer ≥ {spec.minimum}", name
        else:
            assert sorted(backticked(values)) == sorted(map(str, spec.choices)), name
        assert rows[name][2], f"{name} has no meaning"


def test_every_option_named_in_the_docs_exists() -> None:
    for path in [README, *PAGES]:
        for name in backticked(_read(path)):
            for option in OPTION_NAME.findall(name):
                assert option in OPTION_SPECS, (path.name, option)


# ---------------------------------------------------------------------- finding codes


def test_every_finding_code_is_in_the_findings_table_with_its_kind() -> None:
    table = _table_headed(section(_page("rules.md"), "6. Findings"), "code")
    kinds = {backticked(row[0])[0]: row[1] for row in table[1:]}
    assert list(kinds) == list(FINDING_CODES)
    for code, kind in kinds.items():
        assert kind == ("revoke" if code in REVOKE_CODES else "violation"), code


def test_every_finding_code_has_an_example() -> None:
    findings = section(_page("rules.md"), "6. Findings")
    examples = re.findall(r"^- \*\*`([a-z-]+)`\*\*", findings, flags=re.M)
    assert examples == list(FINDING_CODES)


def test_every_analysis_note_code_is_explained_in_the_analysis_page() -> None:
    page = _page("analysis.md")
    for code in NOTE_CODES:
        assert f"`{code}`" in page, code


def test_every_fairness_test_is_explained_in_the_fairness_page() -> None:
    page = _page("fairness.md")
    for name in FAIRNESS_TESTS:
        assert f"`{name}`" in page, name


def test_every_collusion_test_is_explained_in_the_collusion_page() -> None:
    page = _page("collusion.md")
    for name in COLLUSION_TESTS:
        assert f"`{name}`" in page, name


def test_every_hyphenated_name_in_the_docs_is_a_finding_code_or_a_ruleset() -> None:
    known = set(FINDING_CODES) | set(NOTE_CODES) | set(FAIRNESS_TESTS) | set(builtin_names())
    known |= set(COLLUSION_TESTS)
    known |= set(UNCHECKED_CHECKS)
    known |= OTHER_HYPHENATED
    for path in [README, *PAGES]:
        for name in backticked(_read(path)):
            if re.fullmatch(r"[a-z]+(-[a-z]+)+", name):
                assert name in known, (path.name, name)


# --------------------------------------------------------------------------- rulesets


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def rulesets_table() -> str:
    """The table of options per built-in ruleset, from the TOML files: three-card first,
    blanks where a ruleset keeps three-card's value."""
    names = [DEFAULT, *(n for n in builtin_names() if n != DEFAULT)]
    options = {name: builtin(name).options.dotted() for name in names}
    lines = [
        "| option | " + " | ".join(names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for option, default in options[DEFAULT].items():
        cells = [_shown(default)] + [
            "" if options[n][option] == default else _shown(options[n][option]) for n in names[1:]
        ]
        lines.append(f"| `{option}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def test_the_rulesets_table_is_the_one_the_ruleset_files_give() -> None:
    expected = rulesets_table()
    assert expected in _page("rules.md"), "docs/rules.md should carry:\n" + expected


def test_every_builtin_ruleset_is_described() -> None:
    table = _table_headed(section(_page("rules.md"), "8. Built-in rulesets"), "ruleset")
    assert sorted(_first_column(table)) == sorted(builtin_names())


# --------------------------------------------------------------------------- commands


def test_every_command_is_documented() -> None:
    docs = _all_docs()
    for name in _commands():
        assert f"loo-replay {name}" in docs, name


def test_every_command_named_in_the_docs_exists() -> None:
    commands = set(_commands())
    for path in [README, *PAGES]:
        text = _read(path)
        lines = [line for block in fenced(text, "sh") for line in block.splitlines()]
        lines += [code for code in backticked(text) if code.startswith("loo-replay ")]
        for line in lines:
            for name in re.findall(r"(?:^|\s|/)loo-replay ([a-z]+)", line):
                assert name in commands, (path.name, line)


# --------------------------------------------------------------------- the log to copy


def _log_to_copy() -> dict[str, Any]:
    (block,) = fenced(section(_page("log-format.md"), "A complete log to copy"), "json")
    doc: dict[str, Any] = json.loads(block)
    return doc


def _validate(doc: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "kitchen.json"
    path.write_text(json.dumps(doc), "utf-8")
    result = run("validate", path, "--format", "json")
    audit: dict[str, Any] = json.loads(result.stdout)
    audit["exit"] = result.returncode
    return audit


def test_the_log_to_copy_validates_with_no_findings(tmp_path: Path) -> None:
    doc = _log_to_copy()
    assert len(doc["session"]["players"]) == 3 and len(doc["deals"]) == 2
    audit = _validate(doc, tmp_path)
    assert audit["exit"] == 0
    assert audit["summary"] == {
        "sessions": 1,
        "deals": 2,
        "audited": 2,
        "misdeals": 0,
        "rejected": 0,
        "violations": 0,
        "discrepancies": 0,
        "unreadable": 0,
        "partial": 0,
        "skipped_entries": 0,
    }


def test_the_log_to_copy_matches_the_json_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "hand-log.schema.json").read_text("utf-8"))
    Draft202012Validator(schema).validate(_log_to_copy())


_ORDINALS = ("first", "second", "third")
# docs/log-format.md's exercise, read from the page itself so that the test does what it says.
_EXERCISE = re.compile(r'Change the (\w+) card Bob plays to `"(\w+)"`\s+and the (\w+) to `"(\w+)"`')


def _bob_leads_the_king(doc: dict[str, Any]) -> dict[str, Any]:
    """The change docs/log-format.md suggests, done as the page words it: Bob's cards played
    (his declaration is not a card), counted in the order he plays them."""
    match = _EXERCISE.search(" ".join(_page("log-format.md").split()))
    assert match, "docs/log-format.md no longer suggests changing Bob's cards"
    first, first_card, second, second_card = match.groups()
    changed = copy.deepcopy(doc)
    events = changed["deals"][0]["events"]
    plays = [e for e in events if e["type"] == "play" and e["player"] == "bob"]
    plays[_ORDINALS.index(first)]["card"] = first_card
    plays[_ORDINALS.index(second)]["card"] = second_card
    return changed


def test_the_suggested_change_gives_a_lead_top_trump_revoke(tmp_path: Path) -> None:
    audit = _validate(_bob_leads_the_king(_log_to_copy()), tmp_path)
    codes = [v["code"] for s in audit["sessions"] for d in s["deals"] for v in d["violations"]]
    assert codes == ["lead-top-trump"]
    assert audit["exit"] == 1


# ----------------------------------------------------------------------- hands left out


def test_every_unchecked_check_is_in_the_hands_left_out_table_in_order() -> None:
    """docs/log-format.md, "Hands left out": the checks a partial deal cannot make are defined once, in the
    engine, and the log-format page lists exactly those, in that order."""
    text = section(_page("log-format.md"), "Hands left out")
    assert _first_column(tables(text)[0]) == list(UNCHECKED_CHECKS)


def test_the_deal_recorded_at_a_table_is_audited_as_the_page_says(tmp_path: Path) -> None:
    """docs/log-format.md, "Hands left out": the first deal of the log to copy, no hand written down, gives the
    full deal's verdict, ``partial`` and the unchecked list the page gives."""
    (block,) = fenced(section(_page("log-format.md"), "Hands left out"), "json")
    doc = _log_to_copy()
    full = _validate(doc, tmp_path)["sessions"][0]["deals"][0]
    doc["deals"] = [json.loads(block)]
    audit = _validate(doc, tmp_path)
    deal = audit["sessions"][0]["deals"][0]
    assert (deal["knowledge"], audit["summary"]["partial"]) == ("partial", 1)
    said = section(_page("log-format.md"), "Hands left out").split("`unchecked`")[-1]
    assert json.dumps(deal["unchecked"]) in said
    for member in ("knowledge", "unchecked", "discrepancies"):
        del deal[member], full[member]
    assert deal == full


# ------------------------------------------------------------------ the JSON contract


def _documented_members(text: str, heading: str) -> set[str]:
    part = text[text.index(heading) :]
    return set(_first_column(tables(part)[0]))


def test_every_member_of_the_json_audit_is_documented_and_exists(tmp_path: Path) -> None:
    audit = _validate(_bob_leads_the_king(_log_to_copy()), tmp_path)
    del audit["exit"]
    session = audit["sessions"][0]
    deal = session["deals"][0]
    text = section(_page("audit-json.md"), "Members")
    assert _documented_members(text, "**Top level**") == set(audit)
    summary = text[text.index("**`summary`**:") + 14 : text.index("**A session**")]
    assert set(backticked(summary)) - {"errors"} == set(audit["summary"])
    assert _documented_members(text, "**A session**") == set(session)
    assert _documented_members(text, "**A deal**") == set(deal)
    assert _documented_members(text, "**A violation**") == set(deal["violations"][0])


def test_the_json_audit_example_is_real_output(tmp_path: Path) -> None:
    """The example of docs/audit-json.md is the first deal of the suggested change, as
    validate writes it (a few discrepancies left out)."""
    (block,) = fenced(_page("audit-json.md"), "json")
    example = json.loads(block)
    audit = _validate(_bob_leads_the_king(_log_to_copy()), tmp_path)
    assert example["summary"] == audit["summary"]
    shown, real = example["sessions"][0]["deals"][0], audit["sessions"][0]["deals"][0]
    assert all(d in real["discrepancies"] for d in shown.pop("discrepancies"))
    del real["discrepancies"]
    assert shown == real


# ------------------------------------------------------------------------------ links


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: p.name)
def test_relative_links_resolve(path: Path) -> None:
    for target in links(_read(path)):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, fragment = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), (path.name, target)
        if fragment:
            assert fragment in anchors(_read(linked)), (path.name, target)


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(_read(README))}
    assert set(PAGES) <= linked, set(PAGES) - linked


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "make test" in _read(README)
    assert next(line for line in ci.splitlines() if line.startswith("make ")) == "make test"


# The specification's file names, spelled so that this file does not cite them itself.
_SPEC_FILES = re.compile(
    r"\b(?:" + "|".join(("RULES", "ANALYSIS", "RECORDING", "FAIRNESS", "LOG-FORMAT")) + r")\.md"
)


def _rules_sections() -> set[str]:
    """Every number docs/rules.md gives: its numbered headings (``## 5.``, ``### 5.3``) and
    the numbered steps of each section (§2.5 is step 5 of ``## 2.``)."""
    text = _page("rules.md")
    numbers = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, re.M))
    for top in [n for n in numbers if "." not in n]:
        body = section(
            text, next(t for t in re.findall(r"^## (.+)$", text, re.M) if t.startswith(f"{top}. "))
        )
        numbers |= {f"{top}.{step}" for step in re.findall(r"^(\d+)\. ", body, re.M)}
    return numbers


def test_the_code_cites_docs_only_and_every_rules_section_it_cites_exists() -> None:
    """issue 40: the repository explains itself, so its code cites docs/ (the specification
    it was written from is not in the repository)."""
    sources = [
        path
        for folder in ("loo_replay", "tests", "scripts", "benchmarks")
        for pattern in ("*.py", "*.pxd", "*.toml", "*.js", "*.css")
        for path in (ROOT / folder).rglob(pattern)
    ]
    known = _rules_sections()
    cited: dict[str, Path] = {}
    for path in sources:
        text = path.read_text("utf-8")
        assert not _SPEC_FILES.search(text), f"{path} cites the specification, not docs/"
        for number in re.findall(r"docs/rules\.md §(\d+(?:\.\d+)?)", text):
            cited.setdefault(number, path)
    assert cited, "the engine cites the rules it applies"
    missing = {number: str(path) for number, path in cited.items() if number not in known}
    assert missing == {}, "cited sections docs/rules.md does not have"

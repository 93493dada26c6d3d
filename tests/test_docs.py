"""docs/ against the package: every event type, option, finding code, ruleset and command the
code knows is documented, and everything the docs name exists; the ruleset table is the one the
TOML files give; the log to copy in docs/log-format.md is valid; links resolve."""

from __future__ import annotations

import copy
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from db_helpers import ROOT, SAMPLES, run
from docs_examples import PLACEHOLDER, key, run_example
from jsonschema import Draft202012Validator
from md_helpers import anchors, backticked, commands, fenced, links, section, tables

from loo_replay.cli import COMMANDS
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
OTHER_HYPHENATED = {"chromium-driver", "loo-replay", "confusable-homoglyphs"}  # a PyPI package


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
    return list(COMMANDS)


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


# ------------------------------------------------------------------ every example runs

# issue 55: every `loo-replay` line of the shell and console blocks of README.md and docs/
# runs, as written, from a fresh folder holding what the docs say a reader has: the clone's
# sample_logs/ and what `make audit` (README's first command) makes from it, loo.duckdb and
# reports/, plus what the page itself says to make.  Each line's exit status and a fragment
# of what it shows are checked; a console block's shown lines (but "..." ones) are its
# output's.  `serve` answers one request on a free port; `record` runs in a pseudo-terminal
# and stops at its first prompt.  A line naming a placeholder marked as the reader's own
# (`<your-logs>/`: docs_examples.PLACEHOLDER) is skipped; any other line is run or named
# in SKIPPED with its reason.
EXAMPLES: dict[str, dict[str, tuple[int, str]]] = {
    "README.md": {
        "loo-replay validate sample_logs/": (1, "14 session(s), 320 deal(s): 313 audited"),
        "loo-replay validate sample_logs/ --format json": (
            1,
            '"summary":{"sessions":14,"deals":320,',
        ),
        "loo-replay rulesets hoyle": (0, "hoyle: Three-Card Loo of an American Hoyle"),
        "loo-replay replay sample_logs/wrong-payouts.json --deal 4": (
            1,
            "Session wrong-payouts-2026-11-27 · deal 4",
        ),
        "loo-replay replay sample_logs/three-card-table-recorded.json --deal 10": (
            1,
            "Session kitchen-table-2026-11-29 · deal 10",
        ),
        "loo-replay replay sample_logs/three-card-club-night.json --deal 24 --decisions": (
            0,
            "cat passed with J♦ 2♣ 10♣",
        ),
        "loo-replay analyse sample_logs/three-card-revokes.json": (
            1,
            "24 deal(s): 23 audited, 1 misdeal(s)",
        ),
        "loo-replay fairness --db loo.duckdb": (1, "FLAGGED dealer-hand"),
        "loo-replay collusion --db loo.duckdb": (0, "collusion screen of 293 deal(s), 15 pair(s)"),
        "loo-replay serve --db loo.duckdb": (130, "HTTP 200"),
        'loo-replay query "SELECT * FROM player_stats"': (0, "(6 rows)"),
        "loo-replay simulate --deals 50 --out games.jsonl": (
            0,
            "wrote 1 session(s) of 50 deal(s) to games.jsonl",
        ),
        "loo-replay record game.json --players ann,bob,cat": (0, "Saved game.json"),
        "loo-replay seal game.json": (0, "sealed game in game.json"),
        "loo-replay bundle game.json --out case.zip": (0, "wrote case.zip: 1 log(s)"),
        "loo-replay verify case.zip": (0, "case.zip: verified"),
    },
    "analysis.md": {
        "loo-replay simulate --seed 3 --players 5 --deals 6 --out night.jsonl": (
            0,
            "wrote 1 session(s) of 6 deal(s) to night.jsonl",
        ),
        "loo-replay analyse night.jsonl": (0, "4 trick(s) thrown away, 1 avoidable loo(s)"),
        "loo-replay analyse sample_logs/three-card-revokes.json --findings-only": (
            1,
            "5 trick(s) thrown away, 4 avoidable loo(s)",
        ),
    },
    "collusion.md": {
        "loo-replay collusion sample_logs/three-card-club-night.json": (
            0,
            "collusion screen of 24 deal(s), 10 pair(s)",
        ),
        "loo-replay collusion --db loo.duckdb --format json": (0, '"alpha": 0.01'),
        "loo-replay simulate --players 6 --deals 1000 --colluders ann,bob:0.5 --out games.jsonl": (
            0,
            "wrote 1 session(s) of 1000 deal(s) to games.jsonl",
        ),
    },
    "database.md": {
        "loo-replay ingest sample_logs/ --db loo.duckdb": (
            0,
            "320 deal(s) in 14 session(s) from 10 file(s)",
        ),
        "loo-replay stats": (0, "(6 rows)"),
        'loo-replay query "SELECT * FROM pool_history LIMIT 5" --format csv': (
            0,
            "session_id,deal_index,deal,dealer,status",
        ),
        "loo-replay export --parquet out/": (0, "out/sessions.parquet: 14 row(s)"),
    },
    "explorer.md": {
        "loo-replay serve --db loo.duckdb": (130, "HTTP 200"),
        "loo-replay serve --db loo.duckdb --port 0": (130, "HTTP 200"),
    },
    "fairness.md": {
        "loo-replay fairness sample_logs/three-card-crooked-dealer.jsonl": (
            1,
            "FLAGGED dealer-hand (session crooked-dealer-2026-11-28)",
        ),
        "loo-replay fairness --db loo.duckdb --by all --format json": (1, '"alpha": 0.01'),
        "loo-replay fairness --db loo.duckdb --by player --by venue --alpha 0.001": (
            1,
            "FLAGGED dealer-hand (venue The Cocoa Tree)",
        ),
    },
    "judging-decisions.md": {
        "loo-replay ingest sample_logs/three-card-club-night.json --db club.duckdb": (
            0,
            "24 deal(s) in 1 session(s) from 1 file(s): 24 loaded",
        ),
        "loo-replay audit sample_logs/three-card-club-night.json --db club.duckdb --out club "
        "--decisions --samples 20": (0, "reports: club/index.html (1 session report(s)"),
        "loo-replay ingest sample_logs/three-card-club-night.json --db club.duckdb --decisions": (
            0,
            "decisions: nothing new to judge on 100 world(s) each (seed 0)",
        ),
    },
    "log-format.md": {
        "loo-replay validate kitchen.json": (0, "0 violation(s), 0 discrepancy(ies)"),
    },
    "record.md": {
        "loo-replay record club-night.json --players ann,bob,cat,dan --chips 30": (
            0,
            "Saved club-night.json",
        ),
        "loo-replay record --resume club-night.json": (
            0,
            "Resuming from the journal club-night.json.journal",
        ),
        "loo-replay validate club-night.json": (0, "1 session(s), 0 deal(s)"),
    },
    "replay.md": {
        "loo-replay replay sample_logs/wrong-payouts.json --deal 4": (
            1,
            "Session wrong-payouts-2026-11-27 · deal 4",
        ),
        "loo-replay replay sample_logs/hoyle-evening.jsonl --session "
        "hoyle-single-double-2026-11-24 --deal 1 --step": (0, "showing every step"),
        "loo-replay replay sample_logs/five-card-pam.json --deal 1 --html deal.html": (
            0,
            "wrote deal 1 of session pam-loo-2026-11-23 to deal.html",
        ),
    },
    "reports.md": {
        "loo-replay audit sample_logs --db loo.duckdb --out reports": (
            1,
            "reports: reports/index.html (14 session report(s), 318 replay page(s), 0 new)",
        ),
        "loo-replay report --db loo.duckdb --out reports": (
            0,
            "reports: reports/index.html (14 session report(s), 318 replay page(s), 0 new)",
        ),
        "loo-replay report --no-replays": (
            0,
            "reports: reports/index.html (14 session report(s))",
        ),
    },
    "simulate.md": {
        "loo-replay simulate --ruleset hoyle --players 6 --deals 50 --sessions 10 --seed 7 "
        "--violations 0.2 --corrupt 0.1 --out games.jsonl.gz": (
            0,
            "wrote 10 session(s) of 50 deal(s) to games.jsonl.gz",
        ),
    },
    "validate.md": {
        "loo-replay validate sample_logs/": (1, "14 session(s), 320 deal(s): 313 audited"),
        "loo-replay validate sample_logs/modern-online.jsonl.gz --format json": (
            1,
            '"summary":{"sessions":3,"deals":48,',
        ),
        "loo-replay validate sample_logs/hoyle-evening.jsonl --ruleset hoyle "
        "--set stakes.loo=unlimited": (1, "3 session(s), 56 deal(s)"),
        "loo-replay rulesets": (0, "hoyle-five-card"),
        "loo-replay rulesets hoyle-pam": (0, "hoyle-pam: Pam-Loo of an American Hoyle"),
    },
}

_MAKE = "a make target: sets up .venv and builds the compiled part (minutes) before it runs"
_FUZZ = "a long reproduction: fuzzing the reader for 300 s (docs/limits.md)"
# What is not run, and why: every command line of the docs that is not a `loo-replay` line
# run above, and the one `loo-replay` line too long to run here.
SKIPPED = {
    "make audit": _MAKE + "; what it runs, `loo-replay audit sample_logs --db loo.duckdb "
    "--out reports`, makes the folder every page starts from here",
    "make test": _MAKE + " the whole suite, this test among it",
    "make pgo": _MAKE + " a profile-guided build (several minutes)",
    "make check-install": _MAKE + " fresh installs outside the checkout (several minutes)",
    "make bench": _MAKE + " the benchmarks (tens of minutes)",
    "make bench-quick": _MAKE + " the start-up and 40,000-deal benchmarks (minutes)",
    ".venv/bin/pip install atheris": "a network install",
    "mkdir fuzz-corpus": _FUZZ,
    'for f in sample_logs/*.json; do (printf \'\\0\'; cat "$f") > "fuzz-corpus/${f##*/}"; done': _FUZZ,
    "LOO_REPLAY_PURE=1 .venv/bin/python scripts/fuzz_reader.py -max_total_time=300 "
    "fuzz-corpus/": _FUZZ,
    ".venv/bin/python benchmarks/collusion_calibration.py --seeds 100 --fair 200 --jobs 2 "
    "> table.md": "a long reproduction: the calibration table (hours on two cores)",
    ".venv/bin/python benchmarks/run.py --sizes 10000,100000 --rulesets three-card": (
        "a long reproduction: a benchmark of 110,000 deals"
    ),
    "loo-replay analyse sample_logs/three-card-club-night.json --decisions": (
        "a long reproduction: 172 decisions judged on 100 worlds each, half a minute of CPU "
        "as pure Python; tests/test_decisions_cli.py runs it on 8 worlds"
    ),
}
# Pages whose examples another test runs, command by command, with the steps between them
# that the page describes in words, and their whole output compared with the page.
RUN_ELSEWHERE = {
    "evidence.md": "tests/test_evidence_docs.py runs its examples, the edit of night.json "
    "and codes.txt included, and the bundle worked through, its key made by ssh-keygen",
}
EXAMPLE_PAGES = [README, *(p for p in PAGES if p.name not in RUN_ELSEWHERE)]


def _page_commands(path: Path) -> list[tuple[str, str]]:
    return [(key(line), shown) for line, shown in commands(_read(path))]


def test_every_example_is_run_or_skipped_with_its_reason() -> None:
    """Every command line of the docs is in EXAMPLES (run, with its exit status and a
    fragment of its output), names a placeholder marked as the reader's, or is in SKIPPED
    with its reason; neither table names a line the docs no longer have."""
    seen: set[str] = set()
    for path in EXAMPLE_PAGES:
        run_here = EXAMPLES.get(path.name, {})
        found = [line for line, _ in _page_commands(path)]
        seen.update(found)
        for line in found:
            assert line in run_here or line in SKIPPED or PLACEHOLDER.search(line), (
                f"{path.name}: `{line}` is neither run (EXAMPLES) nor skipped with a reason "
                "(SKIPPED), nor marked as the reader's (<your-logs>/)"
            )
            assert not (line in run_here and PLACEHOLDER.search(line)), line
        assert set(run_here) <= set(found), (path.name, set(run_here) - set(found))
    assert set(SKIPPED) <= seen, set(SKIPPED) - seen
    for name in RUN_ELSEWHERE:
        assert commands(_page(name)), f"{name} has no example left to run elsewhere"


@pytest.fixture(scope="module")
def after_make_audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone's sample_logs/ and what `make audit` makes from it (the Makefile's command)."""
    folder = tmp_path_factory.mktemp("clone")
    shutil.copytree(SAMPLES, folder / "sample_logs")
    recipe = re.search(
        r"^\t@\$\(BIN\)/(loo-replay audit [^|]*?) \|\| ", _read(ROOT / "Makefile"), re.M
    )
    assert recipe, "the Makefile's audit target runs loo-replay audit"
    made = run_example(recipe[1], folder)
    assert made.status == 1 and "reports: reports/index.html" in made.said, made.said
    return folder


def _made_by_the_page(name: str, folder: Path) -> None:
    """What a page tells its reader to make before its command lines."""
    if name == "log-format.md":  # "Save it as kitchen.json"
        (folder / "kitchen.json").write_text(json.dumps(_log_to_copy()), "utf-8")


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLE_PAGES if p.name in EXAMPLES], ids=lambda p: p.name
)
def test_every_example_runs_as_written(path: Path, after_make_audit: Path, tmp_path: Path) -> None:
    folder = tmp_path / "clone"
    shutil.copytree(after_make_audit, folder, symlinks=True)
    _made_by_the_page(path.name, folder)
    expected = EXAMPLES[path.name]
    took = []
    for line, shown in _page_commands(path):
        if line not in expected:
            continue
        status, fragment = expected[line]
        start = time.monotonic()
        ran = run_example(line, folder)
        took.append(f"{time.monotonic() - start:.1f} s {line}")
        assert "Traceback" not in ran.said, ran.said
        assert (ran.status, fragment in ran.said) == (status, True), (line, ran.said[-3000:])
        said = set(ran.said.splitlines())
        for want in shown.splitlines():
            assert "..." in want or not want.strip() or want in said, (line, want)
    print("\n".join(took))


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

"""The command line as a newcomer meets it, through real subprocesses: help on ``-h``,
``-j`` beside every ``--jobs``, plain help text, findings first, DuckDB's own hints, the
folder ``simulate`` writes into, and messages that name players."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from db_helpers import SAMPLES, run
from loo_helpers import audit_deal, audited, deal_doc, plays

from loo_replay.cli import COMMANDS as NAMED
from loo_replay.cli import app
from loo_replay.rulesets import builtin, builtin_names
from loo_replay.run.audit import SessionReport
from loo_replay.simulate import Simulator, write_simulation

COMMANDS = sorted(NAMED)
TYPER_TYPES = re.compile(r"<(bool|str|int|float|path|list|text)\b[^>]*>")
PRONOUNS = re.compile(r"\b(he|his|him|himself)\b", re.IGNORECASE)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_h_works_everywhere_and_is_plain(command: str) -> None:
    """``-h`` is ``--help`` for every command; no Typer type markers (``<bool>``,
    ``<int range>``) and no boxes; ``-j`` wherever ``--jobs`` is."""
    result = run(command, "-h")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: loo-replay {command} ")
    assert not TYPER_TYPES.search(result.stdout), result.stdout
    assert "╭" not in result.stdout and "{" not in result.stdout.splitlines()[0]
    if "--jobs" in result.stdout:
        assert "-j, --jobs N" in result.stdout


def test_help_h_at_the_top_lists_every_command() -> None:
    result = run("-h")
    assert result.returncode == 0
    for command in COMMANDS:
        assert f"\n  {command} " in result.stdout


def test_validate_j_is_jobs() -> None:
    one = run("validate", SAMPLES / "wrong-payouts.json", "--format", "json")
    two = run("validate", SAMPLES / "wrong-payouts.json", "--format", "json", "-j", "2")
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout


# -- findings first ------------------------------------------------------------------


def _session_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("Session "):
            blocks.append([line])
        elif blocks and line.startswith("  "):
            blocks[-1].append(line)
    return blocks


def test_validate_text_lists_each_sessions_findings_first() -> None:
    """220 sample deals: in each session the deals with findings come before the others."""
    result = run("validate", SAMPLES)
    for block in _session_blocks(result.stdout):
        marks = [i for i, line in enumerate(block) if "without findings" in line]
        found = [
            i for i, line in enumerate(block) if re.search(r"VIOLATION|DISCREPANCY|REJECTED", line)
        ]
        if marks and found:
            assert max(found) < marks[0], block[:5]


def test_validate_findings_only_shows_only_deals_with_findings() -> None:
    """``--findings-only``: every deal shown has a finding; the summary is the whole one."""
    full = run("validate", SAMPLES)
    only = run("validate", SAMPLES, "--findings-only")
    assert only.returncode == full.returncode == 1
    assert full.stdout.splitlines()[-1] == only.stdout.splitlines()[-1]
    lines = only.stdout.splitlines()
    assert len(lines) < len(full.stdout.splitlines()) / 3
    deals = [i for i, line in enumerate(lines) if line.startswith("  Deal ")]
    assert deals
    for start, stop in zip(deals, [*deals[1:], len(lines)], strict=True):
        chunk = "\n".join(lines[start:stop])
        assert re.search(r"VIOLATION|DISCREPANCY|REJECTED", chunk), chunk
    assert "without findings" not in only.stdout


def test_validate_findings_only_json_keeps_the_summary_and_only_flagged_deals() -> None:
    full = orjson.loads(run("validate", SAMPLES, "--format", "json").stdout)
    only = orjson.loads(run("validate", SAMPLES, "--format", "json", "--findings-only").stdout)
    assert only["summary"] == full["summary"]
    deals = [d for s in only["sessions"] for d in s["deals"]]
    assert deals and all(d["violations"] or d["discrepancies"] or d["errors"] for d in deals)
    flagged = sum(
        1
        for s in full["sessions"]
        for d in s["deals"]
        if d["violations"] or d["discrepancies"] or d["errors"]
    )
    assert len(deals) == flagged


# -- query keeps DuckDB's hints; simulate makes its folder ---------------------------------


def test_query_keeps_duckdbs_hint(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", SAMPLES / "wrong-payouts.json", "--db", db).returncode == 0
    result = run("query", "SELECT * FROM deal", "--db", db)
    assert result.returncode == 2
    assert 'Did you mean "deals"?' in result.stderr
    column = run("query", "SELECT dael FROM deals", "--db", db)
    assert "Candidate bindings" in column.stderr and "LINE 1" not in column.stderr


def test_simulate_out_creates_the_missing_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "x.jsonl"
    result = run("simulate", "--deals", "2", "--out", out)
    assert result.returncode == 0, result.stderr
    assert out.is_file() and (out.parent / "x.truth.json").is_file()


# -- messages name players, the card after the verb ---------------------------------------


def test_messages_name_players_never_he(tmp_path: Path) -> None:
    """Every message of the engine on simulated sessions of every ruleset with injected
    violations and corrupted records, and every log error of the nasty fixtures: none says
    "he" or "his"."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in builtin_names():
        sim = Simulator(builtin(name).options, name, 4, 7, violations=0.6, corrupt=0.3)
        write_simulation(logs / f"{name}.jsonl", sim.sessions(3, 30), 3, sim.truth)
    nasty = Path(__file__).resolve().parent / "fixtures" / "nasty"
    texts: list[str] = []
    for item in audited([logs, nasty]):
        if not isinstance(item, SessionReport):
            continue
        texts += [e.message for e in item.errors]
        for deal in item.deals:
            texts += [v.message for v in deal.violations]
            texts += [e.message for e in deal.errors]
            texts += deal.notes
    assert len(texts) > 200
    assert [t for t in texts if PRONOUNS.search(t)] == []


def test_messages_put_the_card_played_after_the_verb() -> None:
    """docs/rules.md §6 (a message names the player, the card, what they held): hoyle, a must
    deal; bob holds 2♠ but plays 2♣ to ann's 9♠."""
    deal = deal_doc(
        {"ann": "9S 9H 5C", "bob": "2S 4H 2C", "cat": "KS 8H 4C"},
        plays("ann 9S", "bob 2C", "cat KS", "cat 8H", "ann 9H", "bob 4H")
        + plays("ann 5C", "bob 2S", "cat 4C"),
        number=1,
        dealer="cat",
    )
    audit = audit_deal(deal, players=("ann", "bob", "cat"), ruleset="hoyle")
    (v,) = audit.violations
    assert v.message == (
        "bob played 2♣ to 9♠, holding 2♠ 4♥ 2♣ (no trumps): the suit led (♠) must be followed"
    )


def test_the_command_list_gives_every_description_whole() -> None:
    """Issue 55: ``--help`` cut the commands' descriptions with "..." at the terminal's
    width; each is now its whole first paragraph, wrapped.  The list is written from
    ``loo_replay.cli.COMMANDS`` without importing the commands: each line there is the
    first paragraph of the command's docstring, its own help's first paragraph."""
    import typer.main

    listing = " ".join(run("--help").stdout.split("Commands:", 1)[1].split())
    assert "..." not in listing
    group = typer.main.get_group(app)
    assert list(group.commands) == list(NAMED)
    for name, command in group.commands.items():
        assert command.name == name
        first = " ".join((command.help or "").split("\n\n", 1)[0].split())
        assert f"{name} {first}" in listing, name

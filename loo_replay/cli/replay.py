"""``loo-replay replay``: one deal trick by trick, in the terminal or as an HTML page.

Thin, like the other commands: the driver (``run.driver.each_document``) reads and audits
the file in this process, the deal is found, its steps built and rendered; ``main`` says
every failure in one sentence with its exit status (2 bad usage or unreadable input, 1 a
rejected deal or a deal with findings, 0 a clean deal).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from loo_replay.cli.failures import refused_as
from loo_replay.cli.options import (
    DEFAULT_SAMPLES,
    SamplesOpt,
    SeedOpt,
    decisions_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import wants_colour
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe

if TYPE_CHECKING:  # imported by the command itself: every other command starts without them
    from loo_replay.replayer.steps import DealReplay


@reads_logs
def replay(
    file: Annotated[
        Path, typer.Argument(help="A hand-log file (.json, .jsonl, optionally .gz) or a directory.")
    ],
    deal: Annotated[
        int, typer.Option("--deal", min=1, metavar="N", help="The deal number to replay.")
    ],
    session: Annotated[
        str | None,
        typer.Option(
            "--session", metavar="ID", help="The session id; needed when the file holds several."
        ),
    ] = None,
    step: Annotated[
        bool,
        typer.Option(
            "--step", help="Step through interactively: Enter for the next event, q quits."
        ),
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", metavar="FILE", help="Write a self-contained page to step through instead."
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            metavar="NAME|FILE",
            help="A built-in ruleset or a TOML file; overrides the log's.",
        ),
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="OPTION=VALUE", help="Override one rule option; repeatable."),
    ] = None,
    no_analysis: Annotated[
        bool,
        typer.Option(
            "--no-analysis",
            help="Leave out the double-dummy analysis (G before each card, lost tricks).",
        ),
    ] = False,
    decisions: Annotated[
        bool,
        decisions_option(
            "Judge every declaration and card on what its player knew, as analyse does."
        ),
    ] = False,
    samples: SamplesOpt = DEFAULT_SAMPLES,
    seed: SeedOpt = 0,
    limits: Limits = LIMITS,
) -> None:
    """Replay one deal trick by trick.

    Hands, legal cards, findings where they happened, the settlement, and the
    double-dummy analysis: each player's guarantee G before each of their cards,
    "?" on a card that threw a trick away; with --decisions, every option of each
    judged decision with its chips, the best and the loss.
    """
    from loo_replay.replayer.judged import judged, with_views
    from loo_replay.replayer.locate import find_deal, find_session
    from loo_replay.replayer.steps import build_replay
    from loo_replay.run.audit import audit_documents
    from loo_replay.run.driver import each_document

    setup = (rule_choice(ruleset, settings), limits)
    report = find_session(each_document([file], audit_documents, setup, limits), session, [file])
    audit = find_deal(report, deal)
    rp = build_replay(report, audit, analyse=not no_analysis, by_name=html is not None)
    if decisions:
        rp = judged(rp, samples, seed)
    if html is not None:
        rp = with_views(rp)
    if html is not None:
        _write_page(rp, html)
    else:
        _show(rp, step)
    raise typer.Exit(1 if audit.violations or audit.discrepancies else 0)


def _write_page(rp: DealReplay, path: Path) -> None:
    from loo_replay.files import write_atomic
    from loo_replay.replayer.html import render_page

    with refused_as(f"cannot write {path}"):
        write_atomic(path, render_page(rp).encode("utf-8"))
    typer.echo(f"wrote deal {rp.number} of session {safe(rp.session_id)} to {path}", err=True)


def _show(rp: DealReplay, step: bool) -> None:
    from loo_replay.replayer.terminal import plain, step_through, transcript

    style = _colours if wants_colour(as_json=False) else plain
    if step and sys.stdin.isatty():
        step_through(rp, style, typer.echo, input)
        return
    if step:
        typer.echo(
            "loo-replay: --step needs a terminal on standard input; showing every step", err=True
        )
    for line in transcript(rp, style):
        typer.echo(line)


# The replay's palette on a terminal, by the kind of text ``replayer/terminal.py`` names.
_COLOURS: dict[str, dict[str, object]] = {
    "red": {"fg": "red"},
    "bad": {"fg": "red", "bold": True},
    "warn": {"fg": "yellow"},
    "win": {"fg": "green", "bold": True},
    "title": {"fg": "cyan", "bold": True},
    "head": {"bold": True},
    "dim": {"dim": True},
    "legal": {"bold": True, "underline": True},
}


def _colours(text: str, kind: str) -> str:
    return typer.style(text, **_COLOURS.get(kind, {}))  # type: ignore[arg-type]

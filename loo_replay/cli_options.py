"""Command-line options shared by every command that audits: paths, rules, output.

Kept apart from ``cli`` so that the command modules (validate, ingest,
replay, report) use one definition without importing each other.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from loo_replay.engine.options import OptionError, parse_option_text
from loo_replay.rulesets import RuleChoice, RulesetError, load

RulesetOpt = Annotated[
    str | None,
    typer.Option(
        "--ruleset", help="A built-in ruleset name or a ruleset TOML file; overrides the log's."
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="OPTION=VALUE",
        help="Override one rule option (e.g. stakes.loo=unlimited); repeatable; wins over all.",
    ),
]
PathsArg = Annotated[
    list[Path],
    typer.Argument(help="Hand-log files (.json, .jsonl, .ndjson, optionally .gz) or directories."),
]


class Format(StrEnum):
    text = "text"
    json = "json"


FormatOpt = Annotated[Format, typer.Option("--format", help="text for people, json for programs.")]
PrettyOpt = Annotated[bool, typer.Option(help="Indent the JSON output.")]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(help="Work on the Dask cluster at this address (the dask extra)."),
]


def rule_choice(ruleset: str | None, settings: list[str] | None) -> RuleChoice:
    """The command line's rules, or a usage error naming what is wrong."""
    try:
        chosen = load(ruleset) if ruleset else None
        overrides: dict[str, object] = {}
        for item in settings or []:
            name, sep, text = item.partition("=")
            if not sep:
                raise typer.BadParameter(
                    f"{item!r} is not OPTION=VALUE (e.g. stakes.loo=unlimited)", param_hint="--set"
                )
            overrides[name.strip()] = parse_option_text(name.strip(), text)
    except (RulesetError, OptionError) as exc:
        raise typer.BadParameter(str(exc)) from None
    return RuleChoice(chosen, overrides)

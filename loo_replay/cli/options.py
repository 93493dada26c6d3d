"""Command-line options shared by every command that audits: paths, rules, jobs,
output; and the plain help every command prints.

Kept apart from ``cli`` so that the command modules (validate, ingest,
replay, report) use one definition without importing each other.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar

import typer
from typer.core import TyperCommand

from loo_replay.engine.options import OptionError
from loo_replay.logs.limits import LIMITS, MOST_DEPTH, OPTIONS, Limits
from loo_replay.output.text import safe
from loo_replay.rulesets import RuleChoice, load, parse_settings

if TYPE_CHECKING:  # the driver is imported when paths are checked: --help loads less
    from loo_replay.run.driver import Given

R = TypeVar("R")

RulesetOpt = Annotated[
    str | None,
    typer.Option(
        "--ruleset",
        metavar="NAME|FILE",
        help="A built-in ruleset name or a ruleset TOML file; overrides the log's.",
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
    typer.Argument(
        help="Hand-log files (.json, .jsonl, .ndjson, optionally .gz) or folders of them.",
        show_default=False,
    ),
]


def jobs_option(help: str) -> Any:
    """``--jobs``/``-j``, the same spelling for every command that can use processes."""
    return typer.Option("--jobs", "-j", min=1, metavar="N", help=help)


def decisions_option(help: str) -> Any:
    """``--decisions``, the same switch for every command that judges decisions."""
    return typer.Option("--decisions", help=help)


_TYPE = re.compile(r" <([^<>]+)>")
_TYPE_NAMES = {
    "int": "INTEGER",
    "int range": "INTEGER",
    "float": "NUMBER",
    "float range": "NUMBER",
    "str": "TEXT",
    "path": "PATH",
}


def _plain_type(match: re.Match[str]) -> str:
    name = match.group(1)
    return " " + _TYPE_NAMES.get(name, f"[{name}]" if "|" in name else name.upper())


class HelpWriter(Protocol):
    """What the help below writes with: the formatter Typer hands a command.  Typer calls us
    with its own copy of click, which it does not export (``typer._click``), so the help is
    typed by what it uses of it, and the context, which it only passes back, as ``Any``."""

    def section(self, name: str) -> AbstractContextManager[None]: ...

    def write_dl(self, rows: Sequence[tuple[str, str]]) -> None: ...


class PlainCommand(TyperCommand):
    """Help in click's plain style (every command is registered with it): values named as
    click names them (TEXT, INTEGER, PATH, [text|json]) instead of Typer's ``<str>`` or
    ``<int range>``, arguments by their names alone, in capitals."""

    def get_short_help_str(self, limit: int = 45) -> str:
        """The command's whole first paragraph in ``loo-replay --help``, wrapped rather than
        cut at ``limit`` with "...": a description that stops
        mid-sentence says less than the one line it was meant to be."""
        if self.short_help:
            return self.short_help
        return " ".join((self.help or "").split("\n\n", 1)[0].split())

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = (param.metavar or param.name or "").upper()
                name += "..." if param.nargs != 1 else ""
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: HelpWriter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            left, right = record
            if param.param_type_name == "argument":
                arguments.append((_TYPE.sub("", left).upper(), right))
            else:
                options.append((_TYPE.sub(_plain_type, left), right))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


class Format(StrEnum):
    text = "text"
    json = "json"


FormatOpt = Annotated[Format, typer.Option("--format", help="text for people, json for programs.")]
PrettyOpt = Annotated[bool, typer.Option("--pretty", help="Indent the JSON output.")]


def scheduler_option(help: str) -> Any:
    """``--scheduler ADDRESS``, the same spelling for every command that audits many logs:
    the run layer's driver sends the work to the Dask cluster there (the dask extra)."""
    return typer.Option("--scheduler", metavar="ADDRESS", help=help)


def one_kind_of_workers(jobs: int, scheduler: str | None) -> None:
    """A usage error for ``--jobs N`` (N > 1) with ``--scheduler``: the work runs in
    processes here or on the Dask cluster, not both."""
    if scheduler is not None and jobs != 1:
        raise typer.BadParameter(
            "--jobs runs the work in processes here, --scheduler on a Dask cluster: give one",
            param_hint="--scheduler",
        )


SchedulerOpt = Annotated[
    str | None, scheduler_option("Work on the Dask cluster at this address (the dask extra).")
]

# The judging of decisions (docs/judging-decisions.md): one spelling for every command that
# judges, defaults where the command declares it (DEFAULT_SAMPLES, seed 0).  Here, not in
# engine/judging.py, so that a command is declared without importing the judging.
DEFAULT_SAMPLES = 100
SamplesOpt = Annotated[
    int, typer.Option(min=1, max=100_000, help="Worlds drawn for each decision judged.")
]
SeedOpt = Annotated[int, typer.Option(help="Seed of the worlds drawn.")]


def rule_choice(ruleset: str | None, settings: list[str] | None) -> RuleChoice:
    """The command line's rules, or a usage error naming what is wrong (a ruleset file
    unread or not one is a ``RulesetError``: one line, not usage)."""
    chosen = load(ruleset) if ruleset else None
    try:
        overrides = parse_settings(settings or [])
    except OptionError as exc:
        raise typer.BadParameter(str(exc)) from None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--set") from None
    return RuleChoice(chosen, overrides)


# What each limit on reading counts, for its option's help (logs/limits.py).
_LIMIT_HELP = {
    "document_bytes": "Bytes of one document (a .json file, a line of a .jsonl), decompressed.",
    "gzip_ratio": "Decompressed bytes per compressed byte of a .gz file.",
    "depth": "Objects and arrays nested inside one another in a document.",
    "string_length": "Characters of one string in a document.",
    "number_length": "Characters of one number as written in a document.",
    "deal_events": "Events of one deal.",
}


def _limit_parameter(name: str) -> inspect.Parameter:
    most = MOST_DEPTH if name == "depth" else None
    option = typer.Option(
        OPTIONS[name], min=1, max=most, metavar="N", help=_LIMIT_HELP[name], show_default=True
    )
    default = getattr(LIMITS, name)
    annotation = Annotated[int, option]
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def check_paths(paths: list[Path]) -> Given:
    """End the command, exit status 2, when a path of its command line cannot be read at all
    (missing, not a hand log, a folder with none), each said in one line, before any work
    is done or anything made: a mistyped folder is not audited into empty reports.  Entries
    skipped inside a folder are not errors here: the audit names and counts them
    (docs/limits.md, "What is read from a folder").  The paths, expanded once by the run
    layer's driver for the work that follows (``run.driver.Given``)."""
    from loo_replay.run.driver import Given, unreadable

    given = Given(paths)
    errors = unreadable(given)
    for error in errors:
        typer.echo(f"loo-replay: {safe(error, 600)}", err=True)
    if errors:
        typer.echo(
            f"loo-replay: {len(errors)} input file(s) or folder(s) could not be read: "
            "nothing was audited or written",
            err=True,
        )
        raise typer.Exit(2)
    return given


def reads_logs(command: Callable[..., R]) -> Callable[..., R]:
    """``command`` with an option for each limit on what is read (``--max-document-bytes``
    and the rest: docs/limits.md), called with ``limits=`` the ``Limits`` they give: every
    command that reads logs takes the same options from this one place, and has the paths
    of its command line checked (``check_paths``), and ``--jobs`` with ``--scheduler``
    refused (``one_kind_of_workers``), before it starts."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "limits"]
    added = [_limit_parameter(name) for name in OPTIONS]

    @functools.wraps(command)
    def with_limits(*args: Any, **kwargs: Any) -> R:
        limits = Limits(**{name: kwargs.pop(name) for name in OPTIONS})
        one_kind_of_workers(kwargs.get("jobs", 1), kwargs.get("scheduler"))
        if kwargs.get("paths"):
            kwargs["paths"] = check_paths(kwargs["paths"])
        return command(*args, limits=limits, **kwargs)

    with_limits.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    with_limits.__annotations__ = {
        **{p.name: p.annotation for p in kept},
        **{p.name: p.annotation for p in added},
        "return": signature.return_annotation,
    }
    return with_limits

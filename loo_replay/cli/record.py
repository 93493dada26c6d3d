"""``loo-replay record``: start a session, or resume one, and hand it to the prompts.

Wiring only: the journal is made, checked, resumed and the log caught up by
``recorder/start.py``, the entries judged and written by ``recorder/prompts.py``; this
says what they return, asks for the players when they are not given, and exits."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from loo_replay.cli.options import SetOpt, rule_choice
from loo_replay.cli.output import fail, wants_colour
from loo_replay.output.text import safe
from loo_replay.recorder import start
from loo_replay.recorder.entry import typed
from loo_replay.recorder.reading import bounded_lines
from loo_replay.rulesets import DEFAULT


def record(
    file: Annotated[
        Path, typer.Argument(help="The hand log to write (.json); its journal goes beside it.")
    ],
    resume: Annotated[
        bool, typer.Option("--resume", help="Carry on recording FILE (from its journal).")
    ] = False,
    players: Annotated[
        str | None,
        typer.Option(metavar="IDS", help="The players in clockwise seating order: ann,bob,cat."),
    ] = None,
    ruleset: Annotated[str, typer.Option(metavar="NAME", help="A built-in ruleset.")] = DEFAULT,
    settings: SetOpt = None,
    chips: Annotated[int | None, typer.Option(min=0, help="Every player's starting stack.")] = None,
    session_id: Annotated[
        str | None, typer.Option("--id", help="The session's id (default: FILE's name).")
    ] = None,
    venue: Annotated[str | None, typer.Option(help="Where the game is played.")] = None,
) -> None:
    """Record a game at the table, judged by the rules engine as you type.

    Asks for each deal in the order things happen (dealer, turn-up, declarations,
    exchanges, every card), refuses impossible entries with the reason, flags a failure
    to follow at once, and shows each deal's settlement.  Every entry is on disk before
    the next prompt; u undoes the last one.
    """
    # Entries from a pipe or a file are read line by line; prompt_toolkit is for a keyboard
    # (from a regular file it had read nothing, and a long line from a pipe cost quadratic time).
    lines = None if sys.stdin.isatty() else bounded_lines(sys.stdin.buffer)
    if file.suffix.lower() != ".json":
        fail(f"{file}: the recorder writes one session document, a .json file")
    starting = {"--players": players, "--set": settings, "--chips": chips, "--id": session_id}
    starting |= {"--venue": venue, "--ruleset": None if ruleset == DEFAULT else ruleset}
    given = [name for name, value in starting.items() if value is not None]
    if resume and given:
        fail(f"{', '.join(given)} start a session; --resume carries on with the log's own")
    if resume:
        opening = start.resume(file)
    else:
        start.refuse_existing(file)
        start.known_ruleset(ruleset)
        overrides = rule_choice(ruleset, settings).overrides
        typed_players = players if players is not None else _players(lines)
        opening = start.start(
            file,
            start.session_header(file, typed_players, ruleset, overrides, chips, session_id, venue),
        )
    if opening.note is not None:
        typer.echo(opening.note)
    from loo_replay.recorder.prompts import Recorder  # the recorder, when recording

    recorder = Recorder(file, opening.journal, opening.entries, print, colour=wants_colour(False))
    start.catch_up(file, recorder.entries, recorder.standing)
    try:
        interrupted = recorder.run(resumed=resume, lines=lines)
    finally:
        opening.journal.close()
    if recorder.behind is not None:
        fail(
            safe(
                f"{file} is behind its journal ({recorder.behind}): loo-replay record "
                f"--resume {file} writes it again once there is room",
                400,
            )
        )
    if interrupted:
        raise typer.Exit(130)


def _players(lines: Iterator[str | None] | None) -> str:
    """The players, asked at the keyboard, or read as the first of ``lines``; none is a
    usage error, Ctrl-C stops with nothing written."""
    ask = "Players in clockwise seating order (e.g. ann bob cat dan): "
    try:
        if lines is None:
            from prompt_toolkit import prompt  # loaded only to ask (every command starts faster)

            return typed(prompt(ask))
        line = next(lines, None)
        if line is None:  # the end, or a line past LINE_CHARS
            raise EOFError
        typer.echo(f"{ask}{safe(typed(line))}")
        return typed(line)
    except EOFError:
        fail("no players given (--players ann,bob,cat)")
    except KeyboardInterrupt:  # Ctrl-C, read as a key: stopped, nothing written yet
        raise typer.Exit(130) from None

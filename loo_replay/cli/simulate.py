"""``loo-replay simulate``: write simulated sessions and their ground truth (docs/simulate.md)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from loo_replay.cli.failures import refused_as
from loo_replay.rulesets import RulesetError, builtin


def _share(help: str) -> Any:
    """A share of deals, 0 to 1: click's range lets ``nan`` through (no comparison with it
    is false), so it is refused here, by name."""

    def finite(value: float) -> float:
        if math.isnan(value):
            raise typer.BadParameter(f"{value} is not a number between 0 and 1")
        return value

    return typer.Option(min=0.0, max=1.0, callback=finite, help=help)


def _seed(value: int) -> int:
    """The seed goes into each session's ``meta``, a JSON integer of 64 bits."""
    if not -(2**63) <= value < 2**63:
        raise typer.BadParameter(f"{value} is not a 64-bit integer (-2**63 to 2**63 - 1)")
    return value


def simulate(
    ruleset: Annotated[
        str, typer.Option(metavar="NAME", help="A built-in ruleset.")
    ] = "three-card",
    players: Annotated[int, typer.Option(help="Seats at the table.")] = 5,
    deals: Annotated[int, typer.Option(min=1, help="Deals per session.")] = 20,
    sessions: Annotated[int, typer.Option(min=1, help="Sessions to write.")] = 1,
    seed: Annotated[
        int, typer.Option(callback=_seed, help="Same seed, same bytes (a 64-bit integer).")
    ] = 1,
    violations: Annotated[float, _share("Share of deals with an injected violation.")] = 0.0,
    corrupt: Annotated[float, _share("Share of deals with a corrupted record.")] = 0.0,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help=".json, .jsonl or .jsonl.gz (its folder is created if need be); the ground "
            "truth goes beside it as .truth.json.  Default: the sessions on standard output.",
        ),
    ] = None,
    crooked_dealer: Annotated[
        str | None,
        typer.Option(
            metavar="PLAYER[:RATE]",
            help="When PLAYER deals, with chance RATE (0.5) they take the best trump.",
        ),
    ] = None,
    shuffle: Annotated[
        str,
        typer.Option(metavar="uniform|riffle:K", help="Deal from K riffles of the last deal."),
    ] = "uniform",
    colluders: Annotated[
        list[str] | None,
        typer.Option(
            metavar="A,B[:RATE]",
            help="A and B play for each other at each chance with chance RATE (0.5); "
            "repeatable (docs/collusion.md).",
        ),
    ] = None,
) -> None:
    """Write simulated sessions, with their ground truth.

    Bots play every deal through the engine, choosing from the legal cards and
    declarations; violations and corrupted records are injected on request.
    """
    from loo_replay.simulate import (
        Simulator,
        parse_colluders,
        parse_crooked,
        parse_shuffle,
        write_simulation,
    )

    try:
        crooked = None if crooked_dealer is None else parse_crooked(crooked_dealer)
        riffles = parse_shuffle(shuffle)
        pairs = tuple(parse_colluders(text) for text in colluders or ())
        sim = Simulator(
            builtin(ruleset).options,
            ruleset,
            players,
            seed,
            violations,
            corrupt,
            crooked,
            riffles,
            pairs,
        )
    except (RulesetError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    docs = sim.sessions(sessions, deals)
    if out is None:
        for doc in docs:
            sys.stdout.buffer.write(orjson.dumps(doc) + b"\n")
        return
    try:  # the disk's refusal is not bad usage: one line, as everywhere
        with refused_as(f"cannot write {out}", naming=str(out)):
            out.parent.mkdir(parents=True, exist_ok=True)
            write_simulation(out, docs, sessions, sim.truth)
    except ValueError as exc:  # a name that says no format, or a .json of many sessions
        raise typer.BadParameter(str(exc), param_hint="--out") from None
    typer.echo(f"wrote {sessions} session(s) of {deals} deal(s) to {out}", err=True)

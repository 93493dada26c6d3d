"""``loo-replay seal`` and ``verify``: seals added to logs, and logs checked against their
seals and the codes noted at the table; ``verify CASE.zip`` goes to the bundles' own
checks (``cli/bundle.py``) (docs/evidence.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from loo_replay.cli.bundle import BytesOpt, KeyOpt, MembersOpt, RatioOpt, verify_bundles
from loo_replay.cli.failures import refused_as
from loo_replay.cli.options import check_paths, jobs_option, reads_logs, scheduler_option
from loo_replay.errors import InputError
from loo_replay.evidence.archive import ARCHIVE_LIMITS, ArchiveLimits
from loo_replay.evidence.sealing import seal_file
from loo_replay.evidence.seals import BROKEN, SEALED, UNSEALABLE, UNSEALED, SealCheck
from loo_replay.evidence.verify_logs import (
    Code,
    SessionVerdict,
    read_code_option,
    read_codes_file,
    unread,
    verify_logs,
)
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe
from loo_replay.run.driver import documents

LogsArg = Annotated[
    list[Path],
    typer.Argument(
        help="Hand-log files (.json, .jsonl, .ndjson, optionally .gz) or folders of them.",
        show_default=False,
    ),
]


@reads_logs
def seal(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Hand-log files (.json, .jsonl, .ndjson, optionally .gz), each sealed in place.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="Write the sealed log here (one input only)."),
    ] = None,
    renew: Annotated[
        bool,
        typer.Option(
            "--renew",
            help="Seal again over seals that no longer hold (the log was changed on purpose).",
        ),
    ] = False,
    limits: Limits = LIMITS,
) -> None:
    """Add seals to hand logs written by other means.

    Each session gains a seal of its header and each deal one that vouches for every deal
    before it; no other value changes.  The last code of each session is printed.
    """
    if out is not None and len(paths) != 1:
        raise typer.BadParameter("--out takes one input log", param_hint="--out")
    for path in paths:
        with refused_as(f"{out or path}: cannot write"):
            done = seal_file(path, out, renew, limits)
        for sid, last in done.last_codes:
            shown = f"last code {last}" if last else "no deals"
            typer.echo(f"sealed {safe(sid)} in {safe(str(done.path))}: {shown}")


def _status(seals: SealCheck) -> str:
    """The session's status in ``verify``'s words (docs/evidence.md)."""
    if seals.status == SEALED:
        return "sealed"
    if seals.status == BROKEN:
        return (
            f"broken at {seals.at}: the log was changed after it was sealed, and its seals "
            "were not computed again"
        )
    if seals.status == UNSEALABLE:
        return f"cannot be checked: {seals.at} {seals.reason}"
    assert seals.status == UNSEALED
    return "unsealed: nothing is proven"


def _unconfirmed(labels: list[str]) -> str:
    if len(labels) <= 6:
        return ", ".join(labels)
    return f"{', '.join(labels[:3])}, … {', '.join(labels[-2:])} ({len(labels)} deals)"


def _session_lines(verdict: SessionVerdict) -> list[str]:
    where = f"{verdict.file}:{verdict.line}" if verdict.line else verdict.file
    head = f"session {safe(verdict.session)} ({safe(where)}), {verdict.deals} deal(s): "
    lines = [head + _status(verdict.seals)]
    lines += [f"  {result.line()}" for result in verdict.codes]
    if verdict.unconfirmed:
        lines.append(f"  not confirmed by any code: {_unconfirmed(verdict.unconfirmed)}")
    return lines


@reads_logs
def verify(
    inputs: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATHS",
            help="Hand-log files or folders of them; or evidence bundles (CASE.zip).",
            show_default=False,
        ),
    ],
    codes_file: Annotated[
        Path | None,
        typer.Option(
            "--codes",
            metavar="FILE",
            help="The codes noted at the table: SESSION DEAL CODE a line, # for comments.",
        ),
    ] = None,
    code: Annotated[
        list[str] | None,
        typer.Option(
            "--code",
            metavar="SESSION:DEAL=CODE",
            help="A code noted at the table (repeatable).",
        ),
    ] = None,
    key: KeyOpt = None,
    jobs: Annotated[int, jobs_option("Re-run a bundle's audit in this many processes.")] = 1,
    scheduler: Annotated[
        str | None,
        scheduler_option(
            "Re-run a bundle's audit on the Dask cluster at this address (the dask extra)."
        ),
    ] = None,
    max_archive_members: MembersOpt = ARCHIVE_LIMITS.members,
    max_archive_bytes: BytesOpt = ARCHIVE_LIMITS.total_bytes,
    max_archive_ratio: RatioOpt = ARCHIVE_LIMITS.ratio,
    limits: Limits = LIMITS,
) -> None:
    """Check hand logs against their seals and the codes noted at the table; or check an
    evidence bundle: its archive, its files, its signature, and its audit re-run.

    Each session is sealed, unsealed, or broken at its header or a deal; each code given
    matches, differs, or names a deal the log lacks.  Exit status 0 only when every
    session is sealed, every code matches and no deal follows the last code given (for a
    bundle: when it is verified).
    """
    bundles = [p for p in inputs if p.suffix.lower() == ".zip"]
    if bundles:
        if len(bundles) != len(inputs):
            raise typer.BadParameter("give hand logs or evidence bundles (.zip), not both")
        if codes_file is not None or code:
            raise typer.BadParameter("--codes and --code check hand logs, not bundles")
        archive = ArchiveLimits(max_archive_members, max_archive_bytes, max_archive_ratio)
        verify_bundles(bundles, key, jobs, scheduler, limits, archive)
    if key is not None:
        raise typer.BadParameter("--key checks a bundle's signature; give a bundle (.zip)")
    if scheduler is not None:
        raise typer.BadParameter(
            "--scheduler re-runs a bundle's audit; hand logs are checked here",
            param_hint="--scheduler",
        )
    # Checked here, not by reads_logs: a bundle is not a hand log.
    inputs = check_paths(inputs)
    given: list[Code] = []
    noted = None
    if codes_file is not None:
        with refused_as(f"{codes_file}: cannot read", UnicodeDecodeError, error=InputError):
            noted = codes_file.read_text("utf-8")
    try:  # a code that is not one is bad usage, said with the usage
        if noted is not None:
            given += read_codes_file(noted, str(codes_file))
        given += [read_code_option(text) for text in code or ()]
    except InputError as exc:
        raise typer.BadParameter(str(exc)) from None
    found = verify_logs(documents(inputs, limits, unread), given)
    for verdict in found.sessions:
        for line in _session_lines(verdict):
            typer.echo(line)
    for unknown in found.unknown:
        typer.echo(
            f"session {safe(unknown.session)}: no log holds it; deal {unknown.deal} "
            f"{unknown.code} ({safe(unknown.where)}) is missing"
        )
    for unreadable in found.unreadable:
        where = f"{unreadable.file}:{unreadable.line}" if unreadable.line else unreadable.file
        typer.echo(f"loo-replay: {safe(where)}: {safe(unreadable.message, 400)}", err=True)
    sessions = len(found.sessions)
    holding = sum(v.holds for v in found.sessions)
    if found.exit_code == 0:
        typer.echo(f"verified: {sessions} session(s) sealed and every code given matches")
    else:
        typer.echo(f"not verified: {sessions - holding} of {sessions} session(s) not proven")
    raise typer.Exit(found.exit_code)

"""``loo-replay bundle``, and what ``verify CASE.zip`` does (``cli/evidence.py`` declares ``verify``): an audit packed with its logs and rulesets,
signed if asked, and checked by anyone who re-runs it (docs/evidence.md).

Exit status of ``bundle``: 0 written (whatever the audit found: it is in the bundle), 2 bad
usage or unreadable input.  Of ``verify``: 0 verified, 1 a difference, a changed file or a
bad signature, 2 bad usage or an archive refused (docs/limits.md, "Evidence bundles").
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from loo_replay.bundles.audit import AuditOptions
from loo_replay.cli.failures import refused_as
from loo_replay.cli.options import (
    DEFAULT_SAMPLES,
    PathsArg,
    RulesetOpt,
    SamplesOpt,
    SchedulerOpt,
    SeedOpt,
    SetOpt,
    decisions_option,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import StatusLine, fail
from loo_replay.evidence.archive import OPTIONS, ArchiveLimits
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe
from loo_replay.rulesets import builtin_names
from loo_replay.run.render import Sampling

PASSPHRASE_ENV = "LOO_REPLAY_KEY_PASSPHRASE"


def _passphrase() -> bytes:
    """The key's passphrase: from the environment, else asked on the terminal."""
    given = os.environ.get(PASSPHRASE_ENV)
    if given is not None:
        return given.encode("utf-8")
    if not sys.stdin.isatty():
        fail(f"the key has a passphrase: type it on a terminal, or set {PASSPHRASE_ENV}")
    text: str = typer.prompt("passphrase of the key", hide_input=True, err=True)
    return text.encode("utf-8")


def _epoch() -> int | None:
    text = os.environ.get("SOURCE_DATE_EPOCH")
    if text is None:
        return None
    if not text.strip().isdigit():
        fail(f"SOURCE_DATE_EPOCH={text!r} is not a number of seconds")
    return int(text)


@reads_logs
def bundle(
    paths: PathsArg,
    out: Annotated[
        Path, typer.Option("--out", metavar="CASE.zip", help="The bundle to write (a .zip).")
    ],
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    analysis: Annotated[
        bool,
        typer.Option("--analysis", help="Add the double-dummy analysis and the collusion screen."),
    ] = False,
    decisions: Annotated[
        bool, decisions_option("Add every decision judged on what its player knew.")
    ] = False,
    samples: SamplesOpt = DEFAULT_SAMPLES,
    seed: SeedOpt = 0,
    sign: Annotated[
        Path | None,
        typer.Option(
            "--sign", metavar="KEYFILE", help="Sign the statement with this Ed25519 private key."
        ),
    ] = None,
    jobs: Annotated[int, jobs_option("Audit in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Pack the logs, the rulesets and their audit into one zip anyone can verify.

    A BagIt bag with an in-toto statement of what was audited and found, signed with
    --sign; the same inputs and SOURCE_DATE_EPOCH give the same bytes.
    """
    from loo_replay.bundles.bundle import make_bundle  # cryptography and bagit: when used
    from loo_replay.evidence import dsse

    if out.suffix != ".zip":
        raise typer.BadParameter(f"{out} does not end in .zip", param_hint="--out")
    rule_choice(ruleset, settings)  # a bad ruleset or --set is a usage error, said now
    builtin = ruleset if ruleset in builtin_names() else None
    ruleset_file = Path(ruleset) if ruleset is not None and builtin is None else None
    sampling = Sampling(samples, seed) if decisions else None
    options = AuditOptions(builtin, tuple(settings or ()), analysis, sampling)
    with refused_as(f"cannot write {out}"):
        key = None if sign is None else dsse.load_private_key(sign, _passphrase)
        made = make_bundle(
            paths, out, options, ruleset_file=ruleset_file, key=key, epoch=_epoch(),
            jobs=jobs, scheduler=scheduler, limits=limits,
        )  # fmt: skip
    typer.echo(
        f"wrote {made.path}: {len(made.logs)} log(s), {made.sessions} session(s), "
        f"{len(made.rulesets)} ruleset(s), {len(made.outputs)} audit output(s)"
    )
    typer.echo(
        f"signed by the key {made.keyid}" if made.keyid else "not signed (sign with --sign KEYFILE)"
    )


def _archive_option(name: str, help: str) -> Any:
    return typer.Option(OPTIONS[name], min=1, metavar="N", help=help, show_default=True)


# verify's options for a bundle (``cli/evidence.py`` declares the command).
KeyOpt = Annotated[
    Path | None,
    typer.Option(
        "--key", metavar="PUBKEY", help="Check a bundle's signature with this Ed25519 public key."
    ),
]
MembersOpt = Annotated[int, _archive_option("members", "Members of a bundle's archive.")]
BytesOpt = Annotated[
    int, _archive_option("total_bytes", "Bytes of all a bundle's members, decompressed.")
]
RatioOpt = Annotated[
    int, _archive_option("ratio", "Decompressed bytes per compressed byte of a bundle's member.")
]


def verify_bundles(
    cases: list[Path],
    key: Path | None,
    jobs: int,
    scheduler: str | None,
    limits: Limits,
    archive_limits: ArchiveLimits,
) -> NoReturn:
    """``verify CASE.zip...``: each bundle checked and its verdict printed; the exit status
    is the worst of them; each audit re-run in ``jobs`` processes or on the Dask cluster
    at ``scheduler``."""
    from loo_replay.bundles.bundle import verify_bundle  # cryptography and bagit: when used
    from loo_replay.evidence import dsse

    public = None if key is None else dsse.load_public_key(key)
    worst = 0
    for case in cases:
        status = StatusLine()
        try:
            verdict = verify_bundle(
                case,
                public,
                jobs=jobs,
                scheduler=scheduler,
                limits=limits,
                archive_limits=archive_limits,
                step=status,
            )
        finally:
            status.close()
        for problem in verdict.problems:
            typer.echo(f"FAILED {safe(problem, 600)}")
        for note in verdict.notes:
            typer.echo(safe(note, 600))
        if verdict.problems:
            typer.echo(f"{case}: NOT verified ({len(verdict.problems)} problem(s))")
        else:
            typer.echo(f"{case}: verified")
        worst = max(worst, verdict.exit_code)
    raise typer.Exit(worst)

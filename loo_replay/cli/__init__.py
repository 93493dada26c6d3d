"""The ``loo-replay`` command line: parse options, call the library, render, exit.

Each command group's module (``validate``, ``database``, ``reports``, ...) defines its
commands; this module holds the app and registers them in the order of the help.  Errors from the library become one
sentence and an exit status in this package and nowhere else: 0 nothing found,
1 findings, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from typing import Annotated

import typer

from loo_replay import build_status, version_line
from loo_replay.cli import (
    analysis,
    bundle,
    collusion,
    database,
    evidence,
    fairness,
    record,
    replay,
    reports,
    serve,
    simulate,
    validate,
)
from loo_replay.cli.options import PlainCommand
from loo_replay.run.workers import SchedulerError

app = typer.Typer(
    help="Audit, settle, load and replay recorded games of Loo (Lanterloo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no <bool> metavars, no boxes, paragraphs rewrapped
    context_settings={"help_option_names": ["-h", "--help"]},
)

for command in (
    validate.validate,
    validate.rulesets,
    validate.schema,
    simulate.simulate,
    replay.replay,
    database.ingest,
    database.stats,
    database.query,
    database.export,
    reports.report,
    reports.audit,
    serve.serve,
    analysis.analyse,
    fairness.fairness,
    collusion.collusion,
    record.record,
    evidence.seal,
    evidence.verify,
    bundle.bundle,
):
    app.command(cls=PlainCommand)(command)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(version_line())
        raise typer.Exit(0)


class _Interrupts:
    """Whether Ctrl-C reached this process while the command ran.  Python's own handler
    stays (DuckDB interrupts a query only under it); its KeyboardInterrupt unwinds the
    command through its cleanups (a transaction rolled back, temporary files removed,
    workers stopped), and may come out as another error (DuckDB's "Query interrupted").
    CPython writes the number of every signal it catches to the wakeup pipe, whatever
    becomes of it: that says it was an interrupt."""

    def __init__(self) -> None:
        self.on = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not nohup
        if self.on:
            self.read, write = os.pipe()
            os.set_blocking(self.read, False)
            os.set_blocking(write, False)
            signal.set_wakeup_fd(write, warn_on_full_buffer=False)

    def seen(self) -> bool:
        try:
            return self.on and signal.SIGINT.value in os.read(self.read, 4096)
        except BlockingIOError:
            return False


def main() -> None:
    # NumPy (which pyarrow and SciPy import) starts an OpenBLAS thread per core that
    # competes with the audit's own processes while doing nothing of use here: nothing we
    # call is a parallel matrix product.  One thread, for this process and the workers it
    # starts, unless the user chose otherwise (docs/performance.md).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    status = build_status()
    if not status.compiled and not status.requested:  # the speed figures do not hold
        print(
            f"loo-replay: running as pure Python, several times slower: {status.reason}",
            file=sys.stderr,
        )
    interrupts = _Interrupts()
    try:
        app(prog_name="loo-replay")  # the same name in help and errors, however it was started
    except SchedulerError as exc:
        print(f"loo-replay: {exc}", file=sys.stderr)
        sys.exit(2)
    except BaseException as exc:
        # Ctrl-C: whatever the command was doing is undone; no traceback (docs/limits.md).
        # Exit status 130 says so, whatever became of the KeyboardInterrupt on its way.
        code = exc.code if isinstance(exc, SystemExit) else None
        if (isinstance(exc, SystemExit) and code in (0, None)) or not interrupts.seen():
            raise
        if code != 130:  # not the command's own exit on the interrupt, said or not
            print("loo-replay: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        # The command is done: the collector's last pass at the interpreter's exit would
        # look at every object left (a fifth of a second after an ingest, with one core
        # idle).  Frozen, they are still freed by their counts and their finalizers run.
        gc.freeze()

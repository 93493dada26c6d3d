"""The ``loo-replay`` command line: parse options, call the library, render, exit.

Each command group's module (``validate``, ``database``, ``reports``, ...) defines its
commands; this module holds the app and names them in the order of the help.  A command's
module is imported only when that command runs or shows its own help: ``--help`` and each
command import what they use and no more (docs/performance.md, "Start-up").  The commands
let the library's errors go up to ``main``, which says each in one sentence with its exit
status (``cli/failures.py``): 0 nothing found, 1 findings, 2 bad usage or unreadable
input, 130 Ctrl-C.
"""

from __future__ import annotations

import _thread
import gc
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info
from typer.models import CommandInfo

from loo_replay import build_status, version_line
from loo_replay.errors import LooReplayError

# Every command in the order of the help: the module of this package that defines it (as a
# function of the command's name), and its line in ``loo-replay --help``, which is the first
# paragraph of its docstring (tests/test_cli_help_and_output.py holds the two equal): the
# list is written without importing any command.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "Audit hand logs and report every finding."),
    "rulesets": (
        "validate",
        "List the built-in rulesets, or show one with its options and sources.",
    ),
    "schema": ("validate", "Print the JSON Schema of the hand-log format."),
    "simulate": ("simulate", "Write simulated sessions, with their ground truth."),
    "replay": ("replay", "Replay one deal trick by trick."),
    "ingest": ("database", "Audit hand logs and load them into a DuckDB database."),
    "stats": ("database", "Per-player statistics from the database."),
    "query": ("database", "Run SQL on the database, opened read-only."),
    "export": ("database", "Write every table as Parquet files."),
    "report": ("reports", "Write the HTML reports from the database."),
    "audit": ("reports", "Validate, load and report in one command."),
    "serve": (
        "serve",
        "Explore a database in a browser: sessions, players and findings, any deal's replay.",
    ),
    "analyse": (
        "analysis",
        "Audit the logs as validate does and say, for every card, whether it threw away a "
        "trick its player could have made sure of, and which loos were avoidable; with "
        "--decisions, what every declaration and card was worth from where its player sat.",
    ),
    "fairness": (
        "fairness",
        "Test whether the cards were dealt fairly: six statistical tests, Holm-adjusted.",
    ),
    "collusion": (
        "collusion",
        "Screen every pair of players for playing for each other: four tests, Holm-adjusted.",
    ),
    "record": ("record", "Record a game at the table, judged by the rules engine as you type."),
    "seal": ("evidence", "Add seals to hand logs written by other means."),
    "verify": (
        "evidence",
        "Check hand logs against their seals and the codes noted at the table; or check an "
        "evidence bundle: its archive, its files, its signature, and its audit re-run.",
    ),
    "bundle": (
        "bundle",
        "Pack the logs, the rulesets and their audit into one zip anyone can verify.",
    ),
}


def _command(name: str) -> Any:
    """The command ``name`` as Typer builds it from its function, with the plain help."""
    from loo_replay.cli.options import PlainCommand

    module = importlib.import_module(f"loo_replay.cli.{COMMANDS[name][0]}")
    info = CommandInfo(name, cls=PlainCommand, callback=getattr(module, name))
    return get_command_from_info(
        info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None
    )


class _Commands(MutableMapping[str, Any]):
    """The commands by name, each built the first time it is asked for: the group looks up
    only the one on its command line (and a mistyped name finds its suggestions here)."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _Group(TyperGroup):
    """The top-level group: its commands built when used, its help listed from ``COMMANDS``."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands()

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, line) for name, (_, line) in COMMANDS.items()])


app = typer.Typer(
    cls=_Group,
    help="Audit, settle, load and replay recorded games of Loo (Lanterloo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no <bool> metavars, no boxes, paragraphs rewrapped
    context_settings={"help_option_names": ["-h", "--help"]},
)


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
    becomes of it: that says it was an interrupt.

    Two ways CPython loses a Ctrl-C that lands while a module is imported are put right
    here (docs/limits.md, "Interrupts and errors").  A KeyboardInterrupt raised where it
    cannot go up (a weakref callback, a finalizer) is printed as "Exception ignored" and
    dropped, and the command would run on to its end: ``_lost`` takes it quietly and has
    it raised again in the main thread.  One that leaves code run from text (``exec`` of a
    string, as ``dataclasses`` and ``namedtuple`` do) is marked as never caught, even once
    it has been, and under ``python -m`` the interpreter then ends itself by SIGINT at its
    exit instead of with status 130: ``forget`` clears the mark."""

    def __init__(self) -> None:
        self.on = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not nohup
        self.lock = threading.Lock()
        self.closed = False  # the command is over: a lost interrupt is not raised again
        if self.on:
            self.read, write = os.pipe()
            os.set_blocking(self.read, False)
            os.set_blocking(write, False)
            signal.set_wakeup_fd(write, warn_on_full_buffer=False)
            self.hook = sys.unraisablehook
            sys.unraisablehook = self._lost

    def seen(self) -> bool:
        try:
            return self.on and signal.SIGINT.value in os.read(self.read, 4096)
        except BlockingIOError:
            return False

    def _lost(self, unraisable: sys.UnraisableHookArgs) -> None:
        if not issubclass(unraisable.exc_type, KeyboardInterrupt):
            self.hook(unraisable)
        elif not self.closed:
            # Raised from here it would be lost again, in this hook: raised from a thread
            # a moment later, once the callback that lost it has returned.
            _thread.start_new_thread(self._again, ())

    def _again(self) -> None:
        time.sleep(0.02)
        with self.lock:
            if not self.closed:
                _thread.interrupt_main()

    def close(self) -> None:
        """No lost interrupt is raised again from now on: the command is over."""
        with self.lock:
            self.closed = True

    @staticmethod
    def forget() -> None:
        """Clear CPython's mark of a KeyboardInterrupt never caught: each string run
        resets it as it begins."""
        exec("pass", {})


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
        try:
            app(prog_name="loo-replay")  # the same name in help and errors, however started
        except LooReplayError as exc:  # the one place the library's errors are said
            from loo_replay.cli.failures import said  # only when one is: every start is short

            sys.exit(said(exc))
        finally:
            interrupts.close()
    except BaseException as exc:
        # Ctrl-C: whatever the command was doing is undone; no traceback (docs/limits.md).
        # Exit status 130 says so, whatever became of the KeyboardInterrupt on its way.
        code = exc.code if isinstance(exc, SystemExit) else None
        if (isinstance(exc, SystemExit) and code in (0, None)) or not interrupts.seen():
            raise
        if code != 130:  # not the command's own exit on the interrupt, said or not
            print("loo-replay: interrupted", file=sys.stderr)
        interrupts.forget()
        sys.exit(130)
    finally:
        # The command is done: the collector's last pass at the interpreter's exit would
        # look at every object left (a fifth of a second after an ingest, with one core
        # idle).  Frozen, they are still freed by their counts and their finalizers run.
        gc.freeze()

"""The library's errors said in one place (``loo_replay/cli/failures.py``): every error
class the package defines has an exit status in its one table, the commands let the
library's errors go up to ``main`` instead of catching them each in its own way, and what
``main`` says is one safe line (with a rejected deal's errors under it), through the real
CLI."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest
from db_helpers import ROOT, SAMPLES, run

import loo_replay
from loo_replay.cli.failures import MESSAGE_CHARS, STATUSES, refused_as, said, status_of
from loo_replay.errors import InputError, Interrupted, LooReplayError, OutputError

CLI = ROOT / "loo_replay" / "cli"


def _library_errors() -> list[type[LooReplayError]]:
    """Every subclass of ``LooReplayError`` the package defines, every module imported."""
    for module in pkgutil.walk_packages(loo_replay.__path__, "loo_replay."):
        importlib.import_module(module.name)
    found: list[type[LooReplayError]] = []
    todo: list[type[LooReplayError]] = [LooReplayError]
    while todo:
        kind = todo.pop()
        found.append(kind)
        todo.extend(k for k in kind.__subclasses__() if k not in found)
    return [k for k in found if k.__module__.startswith("loo_replay")]


def test_every_error_the_library_defines_has_a_documented_status() -> None:
    errors = _library_errors()
    assert len(errors) > 20  # the walk found the hierarchy, not just its base
    statuses = {kind.__qualname__: status_of(kind) for kind in errors}
    assert set(statuses.values()) <= {1, 2, 130}, statuses  # docs/limits.md, "Exit statuses"
    assert set(STATUSES) <= set(errors)  # the table names the library's own classes


@pytest.mark.parametrize(
    ("module", "name", "status"),
    [
        ("loo_replay.replayer.steps", "ReplayError", 1),  # a deal that is a finding
        ("loo_replay.replayer.locate", "Rejected", 1),
        ("loo_replay.replayer.locate", "NotFound", 2),  # bad usage
        ("loo_replay.db.errors", "DatabaseBusy", 2),
        ("loo_replay.db.queries", "QueryError", 2),
        ("loo_replay.run.workers", "SchedulerError", 2),
        ("loo_replay.rulesets", "RulesetError", 2),
        ("loo_replay.files", "OutputRefused", 2),
        ("loo_replay.explorer.server", "CannotListen", 2),
        ("loo_replay.recorder.journal", "JournalError", 2),
        ("loo_replay.errors", "Interrupted", 130),
    ],
)
def test_each_kind_of_error_exits_as_docs_limits_says(module: str, name: str, status: int) -> None:
    assert status_of(getattr(importlib.import_module(module), name)) == status


def test_said_is_one_safe_line_and_the_details_under_it(capsys: pytest.CaptureFixture[str]) -> None:
    error = InputError("a \x1b[31mred\x1b[0m name " + "x" * 2 * MESSAGE_CHARS)
    assert said(error) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("loo-replay: a \\u001b[31mred\\u001b[0m name xxx")
    assert len(line) == len("loo-replay: ") + MESSAGE_CHARS and line.endswith("…")
    error.details = ("error /deals/0: one", "error /deals/1: two")
    assert said(error) == 2
    assert capsys.readouterr().err == f"{line}:\n  error /deals/0: one\n  error /deals/1: two\n"
    assert said(Interrupted("interrupted; nothing kept")) == 130


def test_refused_as_says_what_was_being_done_and_lets_the_librarys_errors_by(
    tmp_path: Path,
) -> None:
    unwritten = pytest.raises(OutputError, match=r"^cannot write x: No such file or directory$")
    with unwritten, refused_as("cannot write x"):
        (tmp_path / "no" / "x").write_text("")
    unread = pytest.raises(InputError, match=r"^c.txt: cannot read: not UTF-8 text$")
    with unread, refused_as("c.txt: cannot read", UnicodeDecodeError, error=InputError):
        b"\xff".decode("utf-8")
    refused = OutputError("said by the library")
    with pytest.raises(OutputError) as caught, refused_as("cannot write x"):
        raise refused
    assert caught.value is refused


# Where a command may still catch one of the library's errors: to make it click's usage
# error (said with the usage line), and serve's busy database, which it serves anyway.
ALLOWED = {("serve.py", "DatabaseBusy"), ("failures.py", "LooReplayError")}


def test_no_command_catches_the_librarys_errors_but_to_make_them_usage_errors() -> None:
    names = {kind.__name__ for kind in _library_errors()}
    found = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ExceptHandler) or node.type is None:
                continue
            caught = [n for n in ast.walk(node.type) if isinstance(n, ast.Name | ast.Attribute)]
            caught_names = {n.id if isinstance(n, ast.Name) else n.attr for n in caught} & names
            usage = any(
                isinstance(n, ast.Attribute) and n.attr == "BadParameter" for n in ast.walk(node)
            )
            main = path.name == "__init__.py" and caught_names == {"LooReplayError"}
            for name in caught_names:
                if not (usage or main or (path.name, name) in ALLOWED):
                    found.append(f"{path.name}:{node.lineno} catches {name}")
    assert found == []


def test_a_rejected_deal_is_said_with_its_errors_and_exits_1() -> None:
    result = run("replay", SAMPLES / "broken-deals.json", "--deal", "3")
    assert result.returncode == 1 and result.stdout == ""
    first, *errors = result.stderr.splitlines()
    assert first.endswith("was rejected (a log error), so it cannot be replayed:")
    assert errors and all(line.startswith("  error /deals/2/") for line in errors)


def test_an_unwritable_output_is_one_line_naming_what_was_written(tmp_path: Path) -> None:
    out = tmp_path / "no" / "case.zip"
    (tmp_path / "no").write_text("a file, not a folder")
    result = run("bundle", SAMPLES / "wrong-payouts.json", "--out", out)
    assert result.returncode == 2
    assert result.stderr == f"loo-replay: cannot write {out}: Not a directory\n"

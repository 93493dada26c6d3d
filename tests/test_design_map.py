"""docs/design.md is the map of the code (issue 40): every module of the package is named
there, in a line of its own saying what it holds, and every module it names exists.  Its
data-flow drawing and its list of the commands' steps and sinks are the code's (issue 52):
each arrow of the drawing and each name a command lists is checked against the imports."""

from __future__ import annotations

import ast
import functools
import importlib
import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "design.md"
ENTRY = re.compile(r"^- `(loo_replay/[\w/]+\.py)`: \S", re.M)


def test_every_module_is_on_the_map_and_the_map_names_only_modules() -> None:
    named = ENTRY.findall(MAP.read_text("utf-8"))
    assert len(named) == len(set(named)), "a module named twice"
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "loo_replay").rglob("*.py")}
    assert modules - set(named) == set(), "modules docs/design.md does not describe"
    assert set(named) - modules == set(), "docs/design.md names modules that are gone"


def test_the_replay_stays_split_by_the_kind_of_event() -> None:
    """Issue 52: ``Replay`` at most 600 lines, split by the kind of event: the deal in
    replay_base.py, the declaring phase in replay_declaring.py, the play in replay.py, each
    class deriving from the one before."""
    from loo_replay.engine.replay import Replay
    from loo_replay.engine.replay_base import ReplayBase
    from loo_replay.engine.replay_declaring import DeclaringReplay

    assert Replay.__mro__[1:3] == (DeclaringReplay, ReplayBase)
    for name in ("replay", "replay_base", "replay_declaring"):
        lines = (ROOT / "loo_replay" / "engine" / f"{name}.py").read_text("utf-8").splitlines()
        assert len(lines) <= 600, (name, len(lines))


# The imports of every module, as the data flow and the commands' map are checked against.


def _module_names() -> set[str]:
    names = set()
    for path in (ROOT / "loo_replay").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _module_names()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(tree: ast.AST) -> Iterator[tuple[str, str | None]]:
    """Each (module, name) a module imports directly, at any depth but outside ``if
    TYPE_CHECKING:``; ``from package import module`` gives (package.module, None)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                yield (whole, None) if whole in MODULES else (node.module, alias.name)
        yield from _imported(node)


def _source(module: str) -> Path:
    path = ROOT / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@functools.cache
def imports(module: str) -> frozenset[tuple[str, str | None]]:
    """What ``module`` imports directly: (module, name) pairs, name None for a module."""
    tree = ast.parse(_source(module).read_text("utf-8"))
    return frozenset(_imported(tree))


def imported_modules(module: str) -> frozenset[str]:
    return frozenset(m for m, _ in imports(module) if m in MODULES)


def _section(title: str) -> str:
    text = MAP.read_text("utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


# The data flow: the drawing's lines, blocks and arrows.

NAME = re.compile(r"^[a-z_]+/(?:[a-z_]+)?$")


def _drawing() -> list[str]:
    section = _section("The data flow")
    return section[section.index("```text\n") + 8 : section.index("```\n", 1)].splitlines()


def _modules_of(node: str) -> frozenset[str]:
    """``db/`` → every module of ``loo_replay.db``; ``run/audit`` → ``loo_replay.run.audit``
    (with its own modules, if it is a package)."""
    dotted = "loo_replay." + node.rstrip("/").replace("/", ".")
    found = frozenset(m for m in MODULES if m == dotted or m.startswith(dotted + "."))
    assert found, f"the data flow names {node}, which is not a module or package"
    return found


def _names(region: str) -> list[list[str]]:
    """``a ─ b, c`` → [[a], [b, c]]: the links of a chain, each a group of names."""
    chain = [[n.strip() for n in link.split(",")] for link in region.split(" ─ ")]
    for link in chain:
        for name in link:
            assert NAME.match(name), f"the data flow's {name!r} is not a module or package"
    return chain


def _region(text: str) -> str:
    """The names of a line: its text up to the first two spaces (its description after)."""
    return re.split(r"\s{2,}", text.strip(), maxsplit=1)[0]


def _reads(reader: Iterable[str], read: Iterable[str]) -> bool:
    """Whether a module of ``reader`` imports a module of ``read`` directly."""
    read = frozenset(read)
    return any(imported_modules(m) & read for m in reader)


Claim = tuple[str, frozenset[str], frozenset[str], str]


def _claims() -> list[Claim]:
    """What the drawing says, each claim (arrow, reader, read, its line): a module of the
    reader imports a module of the read directly."""
    lines = _drawing()
    kind: dict[int, str] = {}  # each line: blank, down, across, head, member or input
    nodes: dict[int, frozenset[str]] = {}  # the modules a head line or an arrow's end names
    chains: dict[int, list[list[str]]] = {}  # a member line's chain
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            kind[i] = "blank"
        elif "──▶" in line:
            kind[i] = "across"
            names = _names(_region(line[line.index("▶") + 1 :]))
            assert len(names) == 1, f"one link at an arrow's end: {line!r}"
            nodes[i] = frozenset().union(*(_modules_of(n) for n in names[0]))
        elif stripped[0] in "│▼":
            assert set(stripped) <= set("│▼ "), f"a line the test cannot read: {line!r}"
            kind[i] = "down"
        elif not any(NAME.match(n.strip()) for n in re.split(r" ─ |,", _region(line))):
            assert i == 0, f"a line of the drawing that names no module: {line!r}"
            kind[i] = "input"
        elif line.startswith("   "):
            kind[i], chains[i] = "member", _names(_region(line))
        else:
            names = _names(_region(line))
            assert len(names) == 1, f"a ─ only on an indented line: {line!r}"
            kind[i], nodes[i] = "head", frozenset().union(*(_modules_of(n) for n in names[0]))
    # Blocks: runs of head, member and input lines; each line's block, as its head lines.
    blocks: list[list[int]] = []
    for i in range(len(lines)):
        if kind[i] in ("head", "member", "input"):
            if i == 0 or kind[i - 1] not in ("head", "member", "input"):
                blocks.append([])
            blocks[-1].append(i)
    block_of = {i: block for block in blocks for i in block}

    def heads(block: list[int]) -> frozenset[str]:
        return frozenset().union(*(nodes[i] for i in block if kind[i] == "head"))

    claims: list[Claim] = []
    for upper, lower in itertools.pairwise(blocks):
        between = range(upper[-1] + 1, lower[0])
        if all(kind[j] == "down" for j in between) and any("▼" in lines[j] for j in between):
            claims += [("▼", heads(lower), nodes[i], lines[i].strip()) for i in upper if i in nodes]
    for i, line in enumerate(lines):
        if kind[i] == "member":
            head = max(j for j in block_of[i] if j < i and kind[j] == "head")
            reader = nodes[head]
            for link in chains[i]:
                for name in link:
                    claims.append(("calls", reader, _modules_of(name), line.strip()))
                reader = frozenset().union(*(_modules_of(n) for n in link))
        elif kind[i] == "across":
            stem = max(line.rfind("├", 0, line.index("▶")), line.rfind("└", 0, line.index("▶")))
            j = i - 1
            while j >= 0 and len(lines[j]) > stem and lines[j][stem] in "│├└":
                j -= 1
            assert j >= 0 and kind[j] != "blank", f"an arrow from nowhere: {line!r}"
            source = nodes[j] if kind[j] == "across" else heads(block_of[j])
            claims.append(("──▶", nodes[i], source, line.strip()))
    return claims


def test_the_data_flow_is_read_whole() -> None:
    """Every arrow across and every indented line of the drawing gives its claims, and both
    arrows down theirs, so that a change of the drawing's shape cannot skip a line unseen."""
    lines = _drawing()
    claims = _claims()
    drawn = {(kind, line) for kind, _, _, line in claims}
    across = [line.strip() for line in lines if "──▶" in line]
    indented = [line.strip() for line in lines if re.match(r"   [a-z]", line)]
    assert len(across) >= 5 and all(("──▶", line) in drawn for line in across)
    assert len(indented) >= 4 and all(("calls", line) in drawn for line in indented)
    assert sum("▼" in line for line in lines) == 2
    assert len([kind for kind, *_ in claims if kind == "▼"]) == 4  # the four lines of logs
    named = set().union(*(reader | read for _, reader, read, _ in claims))
    for package in ("logs", "run", "engine", "output", "db", "reports", "explorer", "recorder"):
        assert any(m.startswith(f"loo_replay.{package}") for m in named), package


def _short(modules: frozenset[str]) -> str:
    prefixes = {m.split(".")[1] for m in modules}
    if len(prefixes) == 1 and len(modules) > 2:
        return f"loo_replay.{prefixes.pop()}"
    return ", ".join(sorted(modules))


def test_every_arrow_of_the_data_flow_is_an_import() -> None:
    """docs/design.md's drawing is the code's (issue 52): each arrow down or across, and
    each engine module drawn under the one that calls it, is a direct import (the rule is
    written beneath the drawing)."""
    false = [
        f"{kind} {drawn!r}: no module of {_short(reader)} imports {_short(read)}"
        for kind, reader, read, drawn in _claims()
        if not _reads(reader, read)
    ]
    assert not false, "docs/design.md's data flow draws what the code does not do:\n" + "\n".join(
        false
    )


# Each command with its steps and sinks.

COMMAND_LINE = re.compile(r"^- `([a-z]+)` \(`cli/(\w+)\.py`\): (.+)$", re.M)
DOTTED = re.compile(r"`(loo_replay(?:\.\w+)+)`")
FILE = re.compile(r"`((?:\w+/)*\w+\.py)`")


def _resolved(dotted: str) -> tuple[str, str | None] | None:
    """``loo_replay.db.ingest.ingest`` → (``loo_replay.db.ingest``, ``ingest``); a module
    → (module, None); None when there is no such name."""
    if dotted in MODULES:
        return dotted, None
    module, name = dotted.rsplit(".", 1)
    if module not in MODULES or not hasattr(importlib.import_module(module), name):
        return None
    return module, name


def _imported_by(module: str, name: str | None, readers: Iterable[str]) -> bool:
    """Whether one of ``readers`` imports ``module`` (``name`` None) or ``name`` from it."""
    for reader in readers:
        found = imports(reader)
        if name is None and any(m == module for m, _ in found):
            return True
        if name is not None and (module, name) in found:
            return True
    return False


def test_every_command_is_listed_with_its_steps_and_sinks() -> None:
    """Issue 52: docs/design.md lists each command with the steps and sinks it uses; every
    command of ``COMMANDS`` once, in the order of the help, each with its module."""
    from loo_replay.cli import COMMANDS

    listed = COMMAND_LINE.findall(_section("Each command: its steps and sinks"))
    assert [name for name, _, _ in listed] == list(COMMANDS)
    for name, module, text in listed:
        assert module == COMMANDS[name][0], f"{name} is defined in cli/{COMMANDS[name][0]}.py"
        assert DOTTED.search(text), f"{name}: no step or sink named"


def _unused(section: str) -> list[str]:
    """What the commands' lines of ``section`` name and do not use: a ``loo_replay.…`` name
    that does not exist, or that the command's own module of ``cli/`` does not import
    directly (one it reaches through another module of ``cli/`` does not count: the line
    then names that module's function), and a file that does not exist."""
    false = []
    for name, module, text in COMMAND_LINE.findall(section):
        own = f"loo_replay.cli.{module}"
        for dotted in DOTTED.findall(text):
            found = _resolved(dotted)
            if found is None:
                false.append(f"{name}: there is no {dotted}")
            elif not _imported_by(*found, [own]):
                false.append(f"{name}: cli/{module}.py does not import {dotted}")
        false += [
            f"{name}: no file loo_replay/{path}"
            for path in FILE.findall(text)
            if not (ROOT / "loo_replay" / path).is_file()
        ]
    return false


def test_every_step_and_sink_a_command_names_is_what_it_imports() -> None:
    """Each ``loo_replay.…`` name on a command's line exists and is imported directly by the
    module of ``cli/`` that defines the command; each file named exists."""
    false = _unused(_section("Each command: its steps and sinks"))
    assert not false, "docs/design.md's commands name what they do not use:\n" + "\n".join(false)


def test_the_commands_check_sees_a_name_the_command_does_not_import() -> None:
    """The check of the commands' lines fails on a wrong entry: a name the command's module
    reaches only through another module of ``cli/`` (``audit``'s module imports
    ``cli/database.py``, which imports the loader), a name that does not exist and a file
    that does not exist; a true entry passes."""
    wrong = (
        "- `audit` (`cli/reports.py`): `loo_replay.db.ingest.ingest`.\n"
        "- `serve` (`cli/serve.py`): `loo_replay.explorer.app.no_such_step`, `explorer/gone.py`.\n"
        "- `replay` (`cli/replay.py`): `loo_replay.run.driver.each_document`.\n"
    )
    assert _imported_by("loo_replay.db.ingest", "ingest", ["loo_replay.cli.database"])
    assert _unused(wrong) == [
        "audit: cli/reports.py does not import loo_replay.db.ingest.ingest",
        "serve: there is no loo_replay.explorer.app.no_such_step",
        "serve: no file loo_replay/explorer/gone.py",
    ]

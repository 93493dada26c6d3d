"""The layers of ``loo_replay``, checked on the source with ``ast``.

Only ``loo_replay/cli/`` talks to the user: no module outside it imports Typer or click,
prints or reads the standard streams (``print``, ``input``, ``sys.stdout`` …), calls
``sys.exit``, ``os._exit``, ``exit`` or ``quit``, or raises ``SystemExit`` or ``typer.Exit``; the library raises the errors of ``loo_replay/errors.py`` and returns
results.
A command opens a database only through ``db.opening.opened`` (``DATABASE_OPENERS``: none
by hand in ``cli/``, so none is left open on an error).

Imports go one way, down this list of layers (docs/design.md):

    engine ← logs and the common ground ← run layer ← outputs ← cli

A module imports from its own layer or from the layers below it; within the outputs,
only the arrows ``OUTPUTS_ARROWS`` names (the reports read the database, the fairness
tests, the collusion screen and the replays; every output but the database and the simulator may use
``output``'s wording).  ``RUN_TO_OUTPUT`` is the one arrow up, named with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "loo_replay"

# Each unit (a package or top-level module of loo_replay) in one layer, lowest first.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"engine"}),
    frozenset(
        {
            "logs",
            "rulesets",
            "errors",
            "files",
            "html",
            "laws",
            "gc_thresholds",
            "evidence",
            "lookalike",
            "__init__",
        }
    ),
    frozenset({"run"}),
    frozenset(
        {
            "output",
            "db",
            "reports",
            "replayer",
            "fairness",
            "collusion",
            "derived",
            "recorder",
            "simulate",
            "explorer",
            "bundles",
        }
    ),
    frozenset({"cli", "__main__"}),
)
OUTPUTS = LAYERS[3]
OUTPUTS_ARROWS = {
    "output": frozenset(),
    "db": frozenset(),
    "simulate": frozenset(),
    "replayer": frozenset({"output"}),
    "recorder": frozenset({"output"}),
    "fairness": frozenset({"db", "simulate"}),
    "collusion": frozenset({"db", "fairness", "simulate"}),
    "derived": frozenset({"collusion", "db", "fairness"}),
    "reports": frozenset({"collusion", "db", "fairness", "output", "replayer"}),
    "explorer": frozenset({"collusion", "db", "fairness", "output", "replayer", "reports"}),
    "bundles": frozenset({"db", "derived", "fairness", "output"}),
}
# validate's and analyse's work (``run/render.py``, run in the workers) calls the renderers
# of ``output/``: only bytes cross process boundaries.
RUN_TO_OUTPUT = frozenset({("loo_replay.run.render", "output")})

INTERFACE = frozenset({"typer", "click"})


def _modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        yield name, path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _unit(module: str) -> str:
    """``loo_replay.db.load`` → ``db``; ``loo_replay.errors`` → ``errors``; the package's own
    names (``loo_replay.__version__``) → ``__init__``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    first = parts[1]
    if (PACKAGE / first).is_dir() or (PACKAGE / f"{first}.py").exists():
        return first
    return "__init__"


def _imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every module imported, at any depth (inside functions and TYPE_CHECKING too)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "loo_replay":
                for alias in node.names:
                    yield node.lineno, f"loo_replay.{alias.name}"
            else:
                yield node.lineno, node.module


USER_FACING = frozenset(
    {"sys.exit", "os._exit", "typer.Exit", "sys.stdout", "sys.stderr", "sys.stdin"}
)
USER_FACING_NAMES = frozenset({"SystemExit", "exit", "quit", "print", "input"})


def _exits(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every exit and every use of the standard streams."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            dotted = f"{node.value.id}.{node.attr}"
            if dotted in USER_FACING:
                yield node.lineno, dotted
        elif isinstance(node, ast.Name) and node.id in USER_FACING_NAMES:
            yield node.lineno, node.id


def _layer(unit: str) -> int:
    return next(i for i, units in enumerate(LAYERS) if unit in units)


def test_every_unit_has_a_layer() -> None:
    units = {_unit(name) for name, _, _ in _modules()}
    placed = set().union(*LAYERS)
    assert units - placed == set(), "place each new package or module in a layer"
    assert placed - units == set(), "a layer names a unit that is gone"
    assert sum(len(units) for units in LAYERS) == len(placed), "a unit in two layers"


def test_only_the_cli_talks_to_the_user() -> None:
    found = []
    for name, path, tree in _modules():
        if _unit(name) in LAYERS[-1]:
            continue
        for line, imported in _imports(tree):
            if imported.split(".")[0] in INTERFACE:
                found.append(f"{path}:{line} imports {imported}")
        for line, call in _exits(tree):
            found.append(f"{path}:{line} uses {call}")
    assert found == []


# What opens a database by hand.  ``cli/`` opens one only through ``db.opening.opened`` (or
# ``ready``), which applies the safe checks and closes it however its block ends.
DATABASE_OPENERS = frozenset({"connect", "open_db", "open_for_reading", "visitor"})


def _called(node: ast.Call) -> str | None:
    """The name a call calls: ``f`` of ``f(...)`` and of ``x.f(...)``."""
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _hand_opened(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every database opened or closed by hand: DuckDB imported, an opener called, or
    ``.close()`` called on a name an opener's connection was bound to."""
    yield from ((line, f"import {m}") for line, m in _imports(tree) if m.split(".")[0] == "duckdb")
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) in DATABASE_OPENERS:
            yield node.lineno, f"{_called(node)}(...)"
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _called(node.value) in DATABASE_OPENERS
        ):
            bound |= {n.id for n in node.targets if isinstance(n, ast.Name)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _called(node) == "close"
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in bound
        ):
            yield node.lineno, f"{node.func.value.id}.close()"


def test_the_cli_opens_a_database_only_through_opened() -> None:
    found = [
        f"{path}:{line} {what}"
        for name, path, tree in _modules()
        if _unit(name) == "cli"
        for line, what in _hand_opened(tree)
    ]
    assert found == []


def test_imports_go_down_the_layers() -> None:
    found = []
    for name, path, tree in _modules():
        unit = _unit(name)
        for line, imported in _imports(tree):
            if imported.split(".")[0] != "loo_replay":
                continue
            target = _unit(imported)
            if target == unit or (name, target) in RUN_TO_OUTPUT:
                continue
            here, there = _layer(unit), _layer(target)
            sideways_ok = unit in OUTPUTS and target in OUTPUTS_ARROWS[unit]
            if there > here or (there == here and here == _layer("db") and not sideways_ok):
                found.append(f"{path}:{line} ({unit}) imports {imported} ({target})")
    assert found == []


def _import_graph(key: Callable[[str], str]) -> dict[str, set[str]]:
    """Who imports whom, at any depth, with each name mapped by ``key`` (a module, a unit);
    the one arrow up, ``RUN_TO_OUTPUT``, left out."""
    graph: dict[str, set[str]] = {}
    for name, _, tree in _modules():
        edges = graph.setdefault(key(name), set())
        for _, imported in _imports(tree):
            if imported.split(".")[0] != "loo_replay" or (name, _unit(imported)) in RUN_TO_OUTPUT:
                continue
            if key(imported) != key(name):
                edges.add(key(imported))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The pairs that reach each other (strongly connected, by Warshall's closure)."""
    reach = {node: set(edges) for node, edges in graph.items()}
    for middle in graph:
        for node in graph:
            if middle in reach[node]:
                reach[node] |= reach.get(middle, set())
    return sorted((a, b) for a in graph for b in reach[a] if a < b and a in reach.get(b, set()))


def _module_of(imported: str) -> str:
    """``loo_replay.replayer.steps.Step`` → ``loo_replay.replayer.steps``."""
    parts = imported.split(".")
    while parts and not (
        PACKAGE.parent.joinpath(*parts).with_suffix(".py").exists()
        or PACKAGE.parent.joinpath(*parts, "__init__.py").exists()
    ):
        parts.pop()
    return ".".join(parts)


def test_no_two_units_and_no_two_modules_import_each_other() -> None:
    """A unit within a layer (``logs`` and ``rulesets``) or a module within a unit
    (``replayer.steps`` and ``replayer.judged``) that imports the other, even for a type
    alone, is one piece split in two: each side can only be read with the other."""
    assert _cycles(_import_graph(_unit)) == []
    assert _cycles(_import_graph(_module_of)) == []


def test_the_cycle_finder_finds_a_cycle_through_a_third() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]


def test_the_checks_see_what_they_forbid() -> None:
    """The walkers find an exit, an interface import and an upward import where they are."""
    tree = ast.parse(
        "def f():\n"
        "    import sys, typer\n"
        "    from loo_replay.cli.output import fail\n"
        "    from loo_replay import __version__\n"
        "    raise SystemExit(sys.exit(2))\n"
        "    print(input(), file=sys.stderr)\n"
    )
    assert {i for _, i in _imports(tree)} == {
        "sys",
        "typer",
        "loo_replay.cli.output",
        "loo_replay.__version__",
    }
    assert {c for _, c in _exits(tree)} == {
        "SystemExit",
        "sys.exit",
        "print",
        "input",
        "sys.stderr",
    }
    opened_by_hand = ast.parse(
        "import duckdb\n"
        "con = duckdb.connect('x')\n"
        "other = open_for_reading(db)\n"
        "other.close()\n"
        "status.close()\n"
        "with opened(db) as fine:\n"
        "    fine.close()\n"
    )
    assert sorted(_hand_opened(opened_by_hand)) == [
        (1, "import duckdb"),
        (2, "connect(...)"),
        (3, "open_for_reading(...)"),
        (4, "other.close()"),
    ]
    assert _unit("loo_replay.cli.output") == "cli" and _unit("loo_replay.__version__") == "__init__"
    assert _layer("cli") > _layer("db") > _layer("run") > _layer("logs") > _layer("engine")
    assert set(OUTPUTS_ARROWS) == OUTPUTS


def _private_interface(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every import of a private part of Typer or click: a module whose dotted name has a
    part that starts with ``_`` (``typer._click``), or such a name imported from one of
    them (``from typer import _click``)."""
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for dotted in names:
            root, *rest = dotted.split(".")
            if root in INTERFACE and any(part.startswith("_") for part in rest):
                yield node.lineno, dotted


def test_no_private_part_of_typer_or_click_is_imported() -> None:
    """Typer vendors its own click (``typer._click``) and may move it in any release: the
    command line uses what Typer exports (``typer.*``, ``typer.core.TyperCommand``)."""
    found = [
        f"{path}:{line} imports {dotted}"
        for _, path, tree in _modules()
        for line, dotted in _private_interface(tree)
    ]
    assert found == []


def test_the_private_import_check_sees_them() -> None:
    tree = ast.parse(
        "import typer._click.core\n"
        "from typer._click import Context\n"
        "from typer import _click, core\n"
        "from click import Context as C\n"
        "from typer.core import TyperCommand\n"
    )
    assert [d for _, d in _private_interface(tree)] == [
        "typer._click.core",
        "typer._click.Context",
        "typer._click",
    ]


# What drives the work over the input's logs (issue 52): expanding paths, planning pieces
# and shares, starting worker processes, mapping over them or a Dask cluster.
_DRIVING = frozenset(
    {
        "expand",
        "plan_pieces",
        "share",
        "started_pool",
        "mapped_now",
        "ordered_map",
        "dask_map",
        "ProcessPoolExecutor",
        "multiprocessing",
    }
)


def test_ingest_is_a_sink_of_the_run_layers_driver() -> None:
    """The database's loader and its workers' work drive nothing: ``run/driver.py`` expands
    the paths, plans the shares and runs the work here, in workers or on Dask."""
    for module in ("db/ingest.py", "run/load_work.py"):
        tree = ast.parse((PACKAGE / module).read_text("utf-8"))
        names = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        assert not names & _DRIVING, (module, sorted(names & _DRIVING))
    driver = ast.parse((PACKAGE / "run" / "driver.py").read_text("utf-8"))
    used = {n.id for n in ast.walk(driver) if isinstance(n, ast.Name)}
    assert {"expand", "plan_pieces", "share", "started_pool", "dask_map"} <= used


# The expander of a command line's paths (``logs/paths.py``): what walks its folders.
_EXPANDERS = frozenset({"expand", "entries"})
# Who may call it: the run layer (its driver) and the logs' own modules.
_MAY_EXPAND = frozenset({"run", "logs"})


def _expanding(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every import of ``logs.paths``' expanders, and of the module itself (whose
    expanders it would reach as ``paths.expand``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "loo_replay.logs.paths":
            for alias in node.names:
                if alias.name in _EXPANDERS:
                    yield node.lineno, f"loo_replay.logs.paths.{alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module == "loo_replay.logs":
            if any(alias.name == "paths" for alias in node.names):
                yield node.lineno, "loo_replay.logs.paths"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "loo_replay.logs.paths":
                    yield node.lineno, alias.name


def test_only_the_run_layer_expands_paths() -> None:
    """No module outside ``run/`` (and ``logs/`` itself) expands the paths of a command line
    (issue 52): ``run/driver.py`` expands them once, for the check, the progress bar's whole
    and the plan (``run.driver.Given``), and reads a command's documents from them."""
    found = [
        f"{path}:{line} imports {what}"
        for name, path, tree in _modules()
        if _unit(name) not in _MAY_EXPAND
        for line, what in _expanding(tree)
    ]
    assert found == []


def test_the_expansion_check_sees_them() -> None:
    tree = ast.parse(
        "from loo_replay.logs.paths import Skipped, expand\n"
        "from loo_replay.logs.paths import entries as walk\n"
        "from loo_replay.logs import paths\n"
        "import loo_replay.logs.paths\n"
        "from loo_replay.logs.reader import entries\n"
    )
    assert [what for _, what in _expanding(tree)] == [
        "loo_replay.logs.paths.expand",
        "loo_replay.logs.paths.entries",
        "loo_replay.logs.paths",
        "loo_replay.logs.paths",
    ]


def _driving(tree: ast.Module) -> set[str]:
    """What of ``_DRIVING`` a module imports or calls."""
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    called = {_called(node) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return (imported | called) & _DRIVING


def test_validate_and_analyse_are_work_and_a_sink_of_the_driver() -> None:
    """validate's and analyse's work (``run/render.py``) and the output layer (their text
    and JSON stream among it) drive nothing: only ``run/driver.py`` and ``run/workers.py``
    expand paths, plan pieces and shares, start workers and map over them or Dask."""
    modules = [PACKAGE / "run" / "render.py", *sorted((PACKAGE / "output").glob("*.py"))]
    found = {
        str(path.relative_to(PACKAGE)): sorted(used)
        for path in modules
        if (used := _driving(ast.parse(path.read_text("utf-8"))))
    }
    assert found == {}
    for module in ("driver.py", "workers.py"):  # the check sees them where they are
        assert _driving(ast.parse((PACKAGE / "run" / module).read_text("utf-8")))


# Starting worker processes and mapping work over them or a Dask cluster: ``run/`` alone.
_STARTS_WORKERS = frozenset(
    {"ordered_map", "started_pool", "mapped_now", "dask_map", "ProcessPoolExecutor"}
)


def _starts_workers(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every import of ``loo_replay.run.workers`` and every use of a name that starts worker
    processes (``_STARTS_WORKERS``): imported, called or reached as an attribute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "loo_replay.run.workers":
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "loo_replay.run.workers":
                yield node.lineno, node.module
            for alias in node.names:
                if node.module == "loo_replay.run" and alias.name == "workers":
                    yield node.lineno, "loo_replay.run.workers"
                elif alias.name in _STARTS_WORKERS:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.Name) and node.id in _STARTS_WORKERS:
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute) and node.attr in _STARTS_WORKERS:
            yield node.lineno, node.attr


def test_only_the_run_layer_starts_workers() -> None:
    """The outputs are sinks (issue 52): the report's pages and the judging of loaded deals
    name their work and take ``run.driver.Processes`` from the command, whose ``map`` starts
    the workers; no module outside ``run/`` starts one or maps work over them itself."""
    found = [
        f"{name}:{line}: {what}"
        for name, _, tree in _modules()
        if _unit(name) != "run"
        for line, what in _starts_workers(tree)
    ]
    assert found == []
    driver = ast.parse((PACKAGE / "run" / "driver.py").read_text("utf-8"))
    assert {"ordered_map", "dask_map", "started_pool"} <= {w for _, w in _starts_workers(driver)}


def test_the_worker_check_sees_what_it_forbids() -> None:
    tree = ast.parse(
        "import loo_replay.run.workers\n"
        "from loo_replay.run import workers\n"
        "from loo_replay.run.workers import early_context\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "for x in ordered_map(f, items, 2): pass\n"
        "w.dask_map(f, items, 'tcp://here')\n"
        "processes.map(f, items)\n"
    )
    assert sorted(_starts_workers(tree)) == [
        (1, "loo_replay.run.workers"),
        (2, "loo_replay.run.workers"),
        (3, "loo_replay.run.workers"),
        (4, "ProcessPoolExecutor"),
        (5, "ordered_map"),
        (6, "dask_map"),
    ]


# A pool's own exceptions: the driver says them as the library's error (``errors.WorkerDied``,
# ``run/workers.py``), so that no sink knows how its work was run.
_POOL_ERRORS = frozenset({"BrokenProcessPool", "BrokenExecutor"})


def _pool_errors(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every name of a pool's exception: imported, caught, or reached as an attribute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in _POOL_ERRORS:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.Name) and node.id in _POOL_ERRORS:
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute) and node.attr in _POOL_ERRORS:
            yield node.lineno, node.attr


def test_only_the_run_layer_names_a_broken_pool() -> None:
    """A worker process that dies is ``WorkerDied``, said by ``run/`` in one place (issue
    52): no sink (the loader, the judging of loaded deals, the report) catches the pool's
    ``BrokenProcessPool`` and says it in its own words."""
    found = [
        f"{name}:{line}: {what}"
        for name, _, tree in _modules()
        if _unit(name) != "run"
        for line, what in _pool_errors(tree)
    ]
    assert found == []
    workers = ast.parse((PACKAGE / "run" / "workers.py").read_text("utf-8"))
    assert "BrokenProcessPool" in {w for _, w in _pool_errors(workers)}


def test_the_broken_pool_check_sees_what_it_forbids() -> None:
    tree = ast.parse(
        "from concurrent.futures.process import BrokenProcessPool\n"
        "from concurrent.futures import BrokenExecutor as Broken\n"
        "try: pass\nexcept concurrent.futures.process.BrokenProcessPool: pass\n"
        "try: pass\nexcept BrokenProcessPool: pass\n"
        "from concurrent.futures.process import ProcessPoolExecutor\n"
    )
    assert sorted(_pool_errors(tree)) == [
        (1, "BrokenProcessPool"),
        (2, "BrokenExecutor"),
        (4, "BrokenProcessPool"),
        (6, "BrokenProcessPool"),
    ]

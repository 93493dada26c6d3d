"""loo-replay: audit, settle, load and replay recorded games of Loo (Lanterloo).

Some modules (setup.py's ``COMPILED``) are also installed compiled, from the same source.
The build writes ``build-record.json`` beside this file: the hash of each compiled module's
source and ``.pxd``, or why nothing was compiled.  The compiled modules are imported only
when every one of them is there and was built from the sources beside it, hashes compared,
never file times (an installed wheel's times say nothing); ``LOO_REPLAY_PURE=1`` imports the
Python source instead, so both builds run from one checkout (docs/performance.md, "The
compiled part").  ``build_status()`` says which runs and why; the command line says it too.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType

from loo_replay.engine.records import record

__version__ = "0.2.0"

PURE_ENV = "LOO_REPLAY_PURE"
RECORD = "build-record.json"  # written by setup.py, updated by scripts/pgo.py
_ROOT = Path(__file__).parent


def package_file(*parts: str) -> Path:
    """A file installed with the package (``package_file("rulesets", "hoyle.toml")``).  The
    package is always a folder on disk (its compiled modules load from no archive), so its
    files are read by path: ``importlib.resources`` cost every command that reads a ruleset
    16 million instructions to import and to find its reader (docs/performance.md,
    "Start-up")."""
    return _ROOT.joinpath(*parts)


@record(slots=True)
class BuildStatus:
    """Which build runs.  ``reason`` says why the compiled modules are not used (None when
    they are); ``requested`` when that was asked for with ``LOO_REPLAY_PURE``."""

    modules: tuple[str, ...]  # the compiled modules the build record names
    reason: str | None
    requested: bool = False
    # The trained profile the modules were compiled with (setup.py): "current" for all of
    # them, "none" for none, else "stale" (trained on an earlier version of some).
    profile: str = "none"

    @property
    def compiled(self) -> bool:
        return self.reason is None


@cache
def build_status() -> BuildStatus:
    """Read the build record and check it against the sources here, once a process."""
    if os.environ.get(PURE_ENV):
        return BuildStatus((), f"{PURE_ENV} is set", requested=True)
    try:
        record = json.loads((_ROOT / RECORD).read_bytes())
        modules: dict[str, dict[str, str | None]] = record["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return BuildStatus((), "not built: no build record (install with pip or make)")
    names = tuple(modules)
    if record.get("not_compiled"):
        return BuildStatus(names, f"not compiled at install ({record['not_compiled']})")
    for name, digests in modules.items():
        if problem := _problem(name, digests):
            return BuildStatus(names, problem)
    profiles = {str(digests.get("profile") or "none") for digests in modules.values()}
    profile = profiles.pop() if len(profiles) == 1 else "stale"
    return BuildStatus(names, None, profile=profile)


def _problem(name: str, digests: dict[str, str | None]) -> str | None:
    """Why the compiled module ``name`` cannot be used, or None."""
    base = _ROOT.joinpath(*name.split("."))
    if not any(base.with_name(base.name + s).is_file() for s in _SUFFIXES):
        return f"{name} has no compiled module"
    for ext in ("py", "pxd"):
        source = base.with_name(f"{base.name}.{ext}")
        now = hashlib.sha256(source.read_bytes()).hexdigest() if source.is_file() else None
        if now != digests.get(ext):
            return f"{name}.{ext} changed since it was compiled (rebuild: make, or pip install)"
    return None


_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _loads_compiled(name: str) -> bool:
    """Whether ``name`` is found as a compiled module whose library loads (``build``)."""
    module = sys.modules.get(name)
    if module is not None:
        return isinstance(
            getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader
        )
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return False
        importlib.util.module_from_spec(spec)
    except ImportError:
        return False
    return True


class _SourceFirst:
    """Finds this package's modules as Python source where the compiled ones must not be
    used.  The compiled modules read each other's extension types as C structures, so they
    are used all together or not at all.  A finder of ``sys.meta_path`` by its method alone:
    ``importlib.abc``'s base class imports ``importlib.resources``, 11 million instructions
    that ``--help`` has no use for."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(__name__ + ".") or path is None:
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            source = Path(entry, leaf + ".py")
            if source.is_file():
                if build_status().compiled:
                    return None
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def build() -> str:
    """Which build runs, for ``--version``: ``compiled (module, ...)`` only when every
    compiled module of the build record loads compiled, else ``pure Python (why)``.

    A module is loaded, not run: its shared library is opened and its module object made
    (Cython's modules initialise in two phases, PEP 489), but its body, which would import
    what the module uses (pyarrow for the loader's columns), is not executed, so that
    ``--version`` costs a few milliseconds (docs/performance.md, "Start-up")."""
    status = build_status()
    if not status.compiled:
        return f"pure Python ({status.reason})"
    if pure := [n for n in status.modules if not _loads_compiled(f"{__name__}.{n}")]:
        return f"pure Python ({', '.join(pure)} did not load compiled)"
    profile = {"current": ", with its profile", "stale": ", with a partly stale profile"}
    return f"compiled ({', '.join(status.modules)}{profile.get(status.profile, '')})"


def version_line() -> str:
    """What ``loo-replay --version`` prints: the version and which build runs."""
    return f"loo-replay {__version__}, {build()}"


sys.meta_path.insert(0, _SourceFirst())

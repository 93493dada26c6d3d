"""loo-replay: audit, settle, load and replay recorded games of Loo (Lanterloo).

Some modules (setup.py's ``COMPILED``) may also be installed compiled, from the same
source.  The compiled modules are imported when they are there and none is older than its source;
``LOO_REPLAY_PURE=1`` imports the Python source instead, so both builds run from one
checkout (docs/performance.md, "The compiled part").  ``build()`` says which ran.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from pathlib import Path
from types import ModuleType

__version__ = "0.2.0"

PURE_ENV = "LOO_REPLAY_PURE"


class _SourceFirst(MetaPathFinder):
    """Finds this package's modules as Python source where the compiled ones must not be
    used: with ``LOO_REPLAY_PURE`` set, or when any compiled module is older than its
    source (a build left behind by an edit).  The compiled modules read each other's
    extension types as C structures, so they are used all together or not at all."""

    def __init__(self) -> None:
        self._stale: bool | None = None  # found out at the first import

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
            if not source.is_file():
                continue
            if os.environ.get(PURE_ENV) or self._any_stale():
                return importlib.util.spec_from_file_location(fullname, source)
            return None
        return None

    def _any_stale(self) -> bool:
        if self._stale is None:
            self._stale = any(_stale(built) for built in _built())
        return self._stale


def _built() -> list[Path]:
    """The compiled modules installed beside this package's sources."""
    root = Path(__file__).parent
    return [
        path
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        for path in root.rglob("*" + suffix)
    ]


def _stale(built: Path) -> bool:
    """Whether the module's source (its .py, or the .pxd of its C types) is newer."""
    stem = built.name.partition(".")[0]
    made = built.stat().st_mtime
    sources = (built.with_name(stem + ext) for ext in (".py", ".pxd"))
    return any(source.is_file() and made < source.stat().st_mtime for source in sources)


def compiled_modules() -> list[str]:
    """The modules of this package imported so far that run compiled."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith(__name__ + ".")
        and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    )


def build() -> str:
    """Which build runs: ``compiled (module, ...)`` or ``pure Python``; imports the engine."""
    import loo_replay.engine.analysis  # noqa: F401  (the solver and what it calls)

    names = compiled_modules()
    if not names:
        return "pure Python"
    return "compiled (" + ", ".join(n.removeprefix(__name__ + ".") for n in names) + ")"


sys.meta_path.insert(0, _SourceFirst())

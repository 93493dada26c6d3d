"""Builds the compiled part of loo-replay: the modules of COMPILED, compiled by Cython from
their own annotated Python source (pure-Python mode, so one source is both the reference
and the compiled module).  Everything else is in pyproject.toml.

The build never fails the install: with LOO_REPLAY_PURE_BUILD=1 set, or without a working C
compiler, the package installs as pure Python and behaves the same, more slowly
(docs/performance.md, "The compiled part").
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The one list of compiled modules: the rule options every other module reads, the analysis,
# its solver and the legality they call, then the validate path from a document's bytes
# to its audit JSON (reading, the record checks, the replay, settlement, the output), and
# the loader's frames of each deal.
COMPILED = (
    "loo_replay/engine/options.py",
    "loo_replay/engine/cards.py",
    "loo_replay/engine/tables.py",
    "loo_replay/engine/legal.py",
    "loo_replay/engine/solver.py",
    "loo_replay/engine/analysis.py",
    "loo_replay/engine/model.py",
    "loo_replay/engine/state.py",
    "loo_replay/engine/flush.py",
    "loo_replay/engine/derive.py",
    "loo_replay/engine/replay.py",
    "loo_replay/engine/settle.py",
    "loo_replay/engine/session.py",
    "loo_replay/logs/reader.py",
    "loo_replay/logs/parse.py",
    "loo_replay/logs/plain.py",
    "loo_replay/output/audit_json.py",
    "loo_replay/audit.py",
    "loo_replay/db/columns.py",
    "loo_replay/db/frames.py",
)


class OptionalBuildExt(build_ext):
    """build_ext that warns and carries on when an extension cannot be compiled."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no Python headers: pure Python it is
            _skip(exc)

    def build_extension(self, ext: object) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _skip(exc)


def _skip(exc: BaseException) -> None:
    print(f"loo-replay: not compiled ({exc}); installing as pure Python", file=sys.stderr)


def _extensions() -> list[object]:
    if os.environ.get("LOO_REPLAY_PURE_BUILD"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:
        _skip(exc)
        return []
    return list(
        cythonize(
            list(COMPILED),
            build_dir="build/cython",
            compiler_directives={"language_level": 3},
            quiet=True,
        )
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})

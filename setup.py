"""Builds the compiled part of loo-replay: the modules of COMPILED, compiled by Cython from
their own annotated Python source (pure-Python mode, so one source is both the reference
and the compiled module).  Everything else is in pyproject.toml.

The build never fails the install: with LOO_REPLAY_PURE_BUILD=1 set, or without a working C
compiler, the package installs as pure Python and behaves the same, more slowly.  Either
way the build writes ``loo_replay/build-record.json``: the hash of every compiled module's
source, or why nothing was compiled, which ``loo_replay/__init__.py`` reads at run time
(docs/performance.md, "The compiled part").
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

# The one list of compiled modules: the rule options every other module reads, the analysis,
# its solver and the legality they call, the judging of decisions (its worlds and max^n
# finish), then the validate path from a document's bytes
# to its audit JSON (reading, the record checks, the replay, settlement, the output), and
# the loader's frames of each deal.
COMPILED = (
    "loo_replay/engine/options.py",
    "loo_replay/engine/cards.py",
    "loo_replay/engine/tables.py",
    "loo_replay/engine/legal.py",
    "loo_replay/engine/solver.py",
    "loo_replay/engine/maxn.py",
    "loo_replay/engine/worlds.py",
    "loo_replay/engine/judging.py",
    "loo_replay/engine/analysis.py",
    "loo_replay/engine/model.py",
    "loo_replay/engine/state.py",
    "loo_replay/engine/flush.py",
    "loo_replay/engine/derive.py",
    "loo_replay/engine/declarations.py",
    "loo_replay/engine/replay_base.py",
    "loo_replay/engine/replay_declaring.py",
    "loo_replay/engine/replay.py",
    "loo_replay/engine/settle.py",
    "loo_replay/engine/session.py",
    "loo_replay/logs/reader.py",
    "loo_replay/logs/parse.py",
    "loo_replay/logs/fast_reader.py",
    "loo_replay/output/json_document.py",
    "loo_replay/run/audit.py",
    "loo_replay/run/columns.py",
    "loo_replay/run/frames.py",
    "loo_replay/run/deal_frames.py",
    "loo_replay/run/struct_rows.py",
)
RECORD = "build-record.json"  # read by loo_replay/__init__.py
CYTHON_DIR = "build/cython"
# Profiles trained here by scripts/pgo.py (make pgo, opt-in), one a module: gcc lays the hot
# paths out as a training run took them (docs/performance.md, "Profile-guided build").
# Where a module changed since, gcc uses what still fits.
PROFILES = "profiles"
PROFILE_USE = ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile",
               "-Wno-coverage-mismatch"]  # fmt: skip
CORES = os.cpu_count() or 1


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _write_record(package: Path, not_compiled: str | None, unguided: Sequence[str] = ()) -> None:
    """The build record beside the package's modules: each compiled module with the hash
    of the source (and .pxd) it was compiled from, or the reason none was compiled; and
    whether each was compiled with a profile trained on the very C it was compiled from
    (``current``), on an earlier version of it (``stale``: gcc keeps what still fits), or
    without (``none``)."""
    try:
        trained = json.loads(Path(PROFILES, "trained-on.json").read_text())
    except (OSError, ValueError):
        trained = {}
    modules: dict[str, Any] = {}
    for source in map(Path, COMPILED):
        name = ".".join(source.with_suffix("").parts[1:])
        c = Path(CYTHON_DIR, source.with_suffix(".c"))
        fresh = name in trained and trained[name] == _digest(c)
        if not_compiled or f"loo_replay.{name}" in unguided:
            profile = "none"
        else:
            profile = "current" if fresh else "stale"
        modules[name] = {
            "py": _digest(source),
            "pxd": _digest(source.with_suffix(".pxd")),
            "profile": profile,
        }
    record = {"modules": modules, "not_compiled": not_compiled}
    package.mkdir(parents=True, exist_ok=True)
    (package / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _package_dir(command: Any) -> Path:
    """Where the installed package's files go: the checkout for an editable install, else
    the build folder the wheel is made from."""
    inplace = getattr(command, "inplace", False) or getattr(command, "editable_mode", False)
    return Path("loo_replay") if inplace else Path(command.build_lib, "loo_replay")


class RecordingBuildPy(build_py):
    """build_py that records a pure-Python build; build_ext, where it runs, records its own."""

    def run(self) -> None:
        super().run()
        if not self.distribution.has_ext_modules():
            _write_record(_package_dir(self), _pure_reason or "not compiled")


class OptionalBuildExt(build_ext):
    """build_ext that compiles on every core, warns and carries on when an extension cannot
    be compiled, says each module as it is done ("compiled module i of N": `make` shows it,
    pip with -v), and records what it built."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # pip gives no -j: every core, a third of the wall time
            self.parallel = CORES

    def run(self) -> None:
        self.failed: list[str] = []
        self.unguided: list[str] = []
        self.done = 0
        self.counting = threading.Lock()  # the extensions are built on threads, one a core
        try:
            super().run()
        except Exception as exc:  # no compiler, no Python headers: pure Python it is
            self.failed.append(_skip(exc))
        _write_record(_package_dir(self), "; ".join(self.failed) or None, self.unguided)

    def build_extension(self, ext: Any) -> None:
        try:
            self._build_one(ext)
        finally:
            with self.counting:
                self.done += 1
                print(
                    f"compiled module {self.done} of {len(self.extensions)}: {ext.name}",
                    file=sys.stderr,
                    flush=True,
                )

    def _build_one(self, ext: Any) -> None:
        guided = self._with_profile(ext)
        if guided is not None:
            try:
                super().build_extension(guided)
                return
            except Exception:  # a compiler that cannot read gcc's profile: compiled without
                pass
        self.unguided.append(ext.name)
        try:
            super().build_extension(ext)
        except Exception as exc:
            self.failed.append(f"{ext.name}: {_skip(exc)}")

    def _with_profile(self, ext: Any) -> Any | None:
        """The extension compiled with its trained profile (scripts/pgo.py), which gcc
        reads beside the object file; None where there is no profile."""
        profile = Path(PROFILES, *ext.name.split(".")[1:]).with_suffix(".gcda")
        if not profile.is_file() or not sys.platform.startswith("linux"):
            return None
        (obj,) = self.compiler.object_filenames(ext.sources[:1], output_dir=self.build_temp)
        Path(obj).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(profile, Path(obj).with_suffix(".gcda"))
        guided = copy.copy(ext)
        guided.extra_compile_args = [*ext.extra_compile_args, *PROFILE_USE]
        return guided


def _skip(exc: BaseException) -> str:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    print(f"loo-replay: not compiled ({reason}); installing as pure Python", file=sys.stderr)
    return reason


def _extensions() -> list[Any]:
    global _pure_reason
    if os.environ.get("LOO_REPLAY_PURE_BUILD"):
        _pure_reason = "LOO_REPLAY_PURE_BUILD was set at install"
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:
        _pure_reason = _skip(exc)
        return []
    extensions = list(
        cythonize(
            list(COMPILED),
            build_dir=CYTHON_DIR,
            compiler_directives={"language_level": 3},
            quiet=False,  # "[ i/N] Cythonizing NAME" as each starts: `make` shows it
            nthreads=CORES,
        )
    )
    for extension in extensions:
        # No debug information: a third of the compile time and nine tenths of the wheel.
        extension.extra_compile_args += ["-g0", "-Wno-unused-function"]
    return extensions


_pure_reason: str | None = None
setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": OptionalBuildExt, "build_py": RecordingBuildPy},
)

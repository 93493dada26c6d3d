"""The trained profiles (docs/performance.md, "Profile-guided build"): scripts/pgo.py trains
one for every module setup.py compiles, from the C Cython wrote for it, and every build
compiles each module with its profile; a module missed would silently lose a fifth of
its speed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import loo_replay

ROOT = Path(__file__).resolve().parents[1]
COMPILED = re.findall(r'^    "loo_replay/(.*)\.py",$', (ROOT / "setup.py").read_text(), re.M)


def _pgo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgo", ROOT / "scripts" / "pgo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_pgo_trains_every_module_that_setup_py_compiles() -> None:
    if not loo_replay.build_status().compiled:
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    pairs = _pgo().modules()
    found = {str(built.relative_to(ROOT / "loo_replay")).split(".")[0] for _, built in pairs}
    assert found == set(COMPILED)
    for source, built in pairs:  # each from its own C, named as setup.py compiles it
        assert not source.is_absolute() and source.parts[:2] == ("build", "cython")
        assert source.stem == built.name.split(".")[0]


def test_every_compiled_module_has_a_profile_and_the_build_used_them() -> None:
    trained = json.loads((ROOT / "profiles" / "trained-on.json").read_text())
    names = {path.replace("/", ".") for path in COMPILED}
    assert set(trained) == names
    assert all((ROOT / "profiles" / f"{path}.gcda").is_file() for path in COMPILED)
    status = loo_replay.build_status()
    if not status.compiled:
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    record = json.loads((ROOT / "loo_replay" / "build-record.json").read_text())
    unguided = [name for name, module in record["modules"].items() if module["profile"] == "none"]
    assert unguided == [], "compiled without their profile"
    assert status.profile in ("current", "stale")

"""The profile-guided build (docs/performance.md, "Profile-guided build"): scripts/pgo.py
trains a profile for every module setup.py compiles, from the C Cython wrote for it, named
as setup.py looks for it; the build record and ``--version`` say whether the modules were
compiled with one."""

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


def _compiled() -> None:
    if not loo_replay.build_status().compiled:
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")


def test_pgo_trains_every_module_that_setup_py_compiles() -> None:
    _compiled()
    pairs = _pgo().modules()
    found = {str(built.relative_to(ROOT / "loo_replay")).split(".")[0] for _, built in pairs}
    assert found == set(COMPILED)
    for source, built in pairs:  # each from its own C, named as setup.py compiles it
        assert not source.is_absolute() and source.parts[:2] == ("build", "cython")
        assert source.stem == built.name.split(".")[0]


def test_the_record_and_the_version_say_whether_the_build_used_a_profile() -> None:
    """Without profiles/ (make pgo not run: CI, a fresh clone) every module is compiled
    without one and nothing claims otherwise; with it, every module used its profile."""
    _compiled()
    record = json.loads((ROOT / "loo_replay" / "build-record.json").read_text())
    used = {name: module["profile"] for name, module in record["modules"].items()}
    version = loo_replay.build()
    if not (ROOT / "profiles" / "trained-on.json").is_file():
        assert set(used.values()) == {"none"} and "profile" not in version
        return
    trained = json.loads((ROOT / "profiles" / "trained-on.json").read_text())
    assert set(trained) == {path.replace("/", ".") for path in COMPILED}
    assert "none" not in used.values(), "compiled without their profile"
    assert ", with its profile" in version or ", with a partly stale profile" in version

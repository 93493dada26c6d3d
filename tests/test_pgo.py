"""scripts/pgo.py, which ``make`` runs after the install (docs/performance.md, "Profile-guided
build"), compiles again every module setup.py compiled, from the C that Cython wrote for it;
a module it missed would silently keep its unguided build."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import loo_replay

ROOT = Path(__file__).resolve().parents[1]


def _pgo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgo", ROOT / "scripts" / "pgo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_pgo_compiles_again_every_module_that_setup_py_compiles() -> None:
    if "compiled (" not in loo_replay.build():
        pytest.skip("no compiled build here; `make .venv/.installed-stamp` builds it")
    compiled = re.findall(r'^    "(loo_replay/.*)\.py",$', (ROOT / "setup.py").read_text(), re.M)
    pairs = _pgo().modules()
    found = {str(built.relative_to(ROOT)).split(".")[0] for _, built in pairs}
    assert found == set(compiled)
    for source, built in pairs:  # each from its own C, to its own place
        assert source.stem == built.name.split(".")[0]

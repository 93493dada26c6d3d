"""docs/design.md's "How to add" recipes name only what exists: every backticked path is
a file or folder of the repository, and every backticked ``loo_replay.module.symbol`` is
found by importing its module and looking the rest up; each of the five recipes names
both files and symbols."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

from md_helpers import backticked

ROOT = Path(__file__).resolve().parents[1]
DESIGN = (ROOT / "docs" / "design.md").read_text("utf-8")
RECIPES = ("A rule option", "A finding code", "A command", "A report page", "A database table")
PATH = re.compile(r"[\w.-]+(?:/[\w.-]*)+|[\w-]+\.(?:md|py|pxd|toml|json)")
SYMBOL = re.compile(r"loo_replay(?:\.\w+)+")


def _recipes() -> dict[str, str]:
    section = DESIGN.split("\n## How to add\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", section, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _found(dotted: str) -> object:
    """The object ``dotted`` names: its longest importable module, then attributes."""
    words = dotted.split(".")
    for cut in range(len(words), 0, -1):
        try:
            found: ModuleType | object = importlib.import_module(".".join(words[:cut]))
        except ModuleNotFoundError:
            continue
        for word in words[cut:]:
            found = getattr(found, word)
        return found
    raise AssertionError(f"no module in {dotted}")


def test_the_five_recipes_are_there_and_each_names_files_and_symbols() -> None:
    recipes = _recipes()
    assert list(recipes) == list(RECIPES)
    for name, text in recipes.items():
        named = backticked(text)
        assert any(PATH.fullmatch(n) for n in named), f"{name} names no file"
        assert any(SYMBOL.fullmatch(n) for n in named), f"{name} names no symbol"


def test_every_file_and_symbol_a_recipe_names_exists() -> None:
    for name, text in _recipes().items():
        for named in backticked(text):
            if SYMBOL.fullmatch(named):
                assert _found(named) is not None, (name, named)
            elif PATH.fullmatch(named):
                assert (ROOT / named).exists(), (name, named)

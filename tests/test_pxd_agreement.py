"""Every compiled module's ``.pxd`` and its ``.py`` say the same (docs/design.md).

The ``.py`` is the one source and the ``.pxd`` adds C types; a field, method or parameter
added, renamed or retyped on one side only fails here, before a build would (or, where
Cython takes the ``.pxd``'s word, instead of a silent difference between the compiled and
the pure-Python program).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pxd_helpers import Klass, disagreements, pairs, read_pxd

ROOT = Path(__file__).resolve().parents[1]
PAIRS = pairs(ROOT / "loo_replay")
# Every class the .pxd files declare, by name: a class's base may be in another module's.
DECLARED: dict[str, Klass] = {
    name: klass
    for pxd, _ in PAIRS
    for name, klass in read_pxd(pxd.read_text("utf-8")).classes.items()
}


def _name(pair: tuple[Path, Path]) -> str:
    return pair[0].relative_to(ROOT).as_posix()


@pytest.mark.parametrize("pair", PAIRS, ids=_name)
def test_pxd_agrees_with_py(pair: tuple[Path, Path]) -> None:
    pxd, py = pair
    assert disagreements(pxd.read_text("utf-8"), py.read_text("utf-8"), DECLARED) == []


def test_every_pxd_is_checked() -> None:
    """Each .pxd has its .py, and every line of each is one the check reads."""
    assert len(PAIRS) >= 12
    for pxd, py in PAIRS:
        assert py.is_file(), pxd
        read_pxd(pxd.read_text("utf-8"))


PXD = """\
from loo_replay.engine.options cimport Options

cdef const unsigned char* _TABLE

cdef class Thing:
    cdef public int count
    cdef readonly unsigned long long mask
    cdef long long* at
    cdef Options o
    cdef list seen
    cdef object extra
    cpdef int step(self, int by, bint fast=*) except -1
    cdef void _reset(self) noexcept

cpdef unsigned long long first(object cards, int n) except? 0
"""

PY = """\
import cython
from typing import Literal

Kind = Literal["a", "b"]
TABLE = bytes(4)
_TABLE = TABLE

class Thing:
    count: cython.int
    mask: cython.ulonglong
    at: cython.p_longlong
    o: Options

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.extra: Kind | None = None

    @cython.ccall
    def step(self, by: cython.int, fast: bool = False) -> cython.int:
        return by

    @cython.cfunc
    def _reset(self) -> None:
        self.count = 0

def first(cards: object, n: cython.int) -> cython.ulonglong:
    return 0
"""


def test_the_check_passes_agreeing_files() -> None:
    assert disagreements(PXD, PY) == []


@pytest.mark.parametrize(
    ("side", "old", "new", "problem"),
    [
        (
            "py",
            "    o: Options\n",
            "    o: Options\n    added: cython.int\n",
            "Thing.added: in the .py",
        ),
        (
            "pxd",
            "    cdef list seen\n",
            "    cdef list seen\n    cdef int added\n",
            "Thing.added: in the .pxd",
        ),
        (
            "py",
            "    count: cython.int",
            "    counted: cython.int",
            "Thing.count: int in the .pxd, annotated nowhere",
        ),
        (
            "py",
            "    mask: cython.ulonglong",
            "    mask: cython.longlong",
            "Thing.mask: unsigned long long",
        ),
        ("pxd", "unsigned long long mask", "long long mask", "Thing.mask: long long"),
        ("pxd", "long long* at", "int* at", "Thing.at: int*"),
        ("py", "at: cython.p_longlong", "at: cython.longlong", "Thing.at: long long*"),
        (
            "py",
            "    count: cython.int",
            "    count: int",
            "Thing.count: int in the .pxd, Python int",
        ),
        ("pxd", "cdef Options o", "cdef DealState o", "Thing.o: DealState in the .pxd"),
        ("pxd", "cdef list seen", "cdef dict seen", "Thing.seen: dict in the .pxd"),
        ("py", "self.extra: Kind | None", "self.extra: cython.int", "Thing.extra: object"),
        (
            "py",
            "self.seen: list[int] = []",
            "self.seen = []",
            "Thing.seen: list in the .pxd, annotated",
        ),
        ("py", "by: cython.int, fast", "by: cython.int, slow", "Thing.step: parameters"),
        ("pxd", "bint fast=*)", "bint fast=*, int more=*)", "Thing.step: parameters"),
        ("py", "by: cython.int, fast", "by: cython.long, fast", "Thing.step(by): int"),
        ("py", "fast: bool = False", "fast: bool", "Thing.step(fast): a default"),
        ("py", ") -> cython.int:", ") -> int:", "Thing.step: returns int"),
        ("pxd", "cdef void _reset", "cpdef void _reset", "Thing._reset: cpdef in the .pxd, cdef"),
        ("py", "def _reset(self)", "def _reset(self, hard: bool)", "Thing._reset: parameters"),
        (
            "py",
            "        return by\n",
            "        return by\n\n    @cython.cfunc\n    def more(self) -> None:\n        pass\n",
            "Thing.more: cdef in the .py",
        ),
        ("py", "def first(cards: object, n", "def first(cards: object, m", "first: parameters"),
        ("pxd", "cpdef unsigned long long first", "cpdef int first", "first: returns int"),
        ("py", "def first(", "def firsts(", "first: cpdef in the .pxd, not in the .py"),
        ("py", "class Thing:", "class Other:", "class Thing: in the .pxd"),
        ("py", "_TABLE = TABLE", "TABLES = TABLE", "_TABLE: a const unsigned char* in the .pxd"),
    ],
)
def test_the_check_finds_a_doctored_side(side: str, old: str, new: str, problem: str) -> None:
    pxd, py = PXD, PY
    if side == "py":
        assert old in py
        py = py.replace(old, new)
    else:
        assert old in pxd
        pxd = pxd.replace(old, new)
    found = disagreements(pxd, py)
    assert any(line.startswith(problem) for line in found), found


def test_a_derived_class_may_assign_the_fields_its_base_declares() -> None:
    """``Replay`` derives from ``DeclaringReplay`` and ``ReplayBase`` (one module each, their
    fields in replay_base.pxd): a field the base's .pxd declares is no derived class's to
    declare again, but a field declared by no class in the chain still fails."""
    base = read_pxd("cdef class Base:\n    cdef int count\n    cdef list seen\n").classes
    derived_pxd = "cdef class Derived(Base):\n    cdef _step(self)\n"
    derived_py = (
        "class Derived(Base):\n"
        "    def _step(self) -> None:\n"
        "        self.count = 1\n"
        "        self.seen = []\n"
    )
    assert disagreements(derived_pxd, derived_py, base) == []
    assert disagreements(derived_pxd, derived_py) == [
        "Derived.count: in the .py, not in the .pxd",
        "Derived.seen: in the .py, not in the .pxd",
    ]
    stray = derived_py + "        self.added = 2\n"
    assert disagreements(derived_pxd, stray, base) == ["Derived.added: in the .py, not in the .pxd"]

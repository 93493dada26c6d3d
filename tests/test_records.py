"""``engine/records.py``: a record behaves as the dataclass it replaced (docs/performance.md,
"Start-up"): the same ``__init__``, repr, equality and hash, frozen or not, slotted or not,
pickled across processes; each compared here with the dataclass of the same fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from loo_replay.engine.records import FrozenInstanceError, field, fields, record, replace


@record(slots=True)
class Slotted:
    index: int
    cards: tuple[int, ...] = ()
    notes: list[str] = field(default_factory=list, repr=False)


@dataclasses.dataclass(frozen=True, slots=True)
class SlottedDataclass:
    index: int
    cards: tuple[int, ...] = ()
    notes: list[str] = dataclasses.field(default_factory=list, repr=False)


@record
class Checked:
    """A frozen record with a check."""

    low: int
    high: int = 10

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclasses.dataclass(frozen=True)
class PairDataclass:
    low: int
    high: int


@record(frozen=False)
class Tally:
    count: int = 0
    names: list[str] = field(default_factory=list)


@record(frozen=False)
class MoreTally(Tally):
    extra: str = "x"


@dataclasses.dataclass
class TallyDataclass:
    count: int = 0
    names: list[str] = dataclasses.field(default_factory=list)


def test_a_record_is_made_repr_compared_and_hashed_as_the_dataclass_is() -> None:
    made, expected = Slotted(3, (1, 2), ["a"]), SlottedDataclass(3, (1, 2), ["a"])
    assert repr(made) == repr(expected).replace("SlottedDataclass", "Slotted")
    assert repr(Checked(1)) == "Checked(low=1, high=10)"
    assert made == Slotted(3, (1, 2), ["a"])
    assert made != Slotted(3, (1, 2), ["b"])
    assert made != expected  # type: ignore[comparison-overlap]  # another class, as dataclasses
    assert hash(Checked(1, 2)) == hash((1, 2)) == hash(PairDataclass(1, 2))
    assert Slotted(index=4).cards == () and Slotted(4).notes == []
    assert Slotted(4).notes is not Slotted(4).notes  # a factory's value, new each time
    assert Slotted.__slots__ == ("index", "cards", "notes")
    assert not hasattr(made, "__dict__")
    with pytest.raises(TypeError):
        Slotted()  # type: ignore[call-arg]


def test_a_frozen_record_refuses_assignment_and_a_mutable_one_takes_it() -> None:
    made = Checked(1)
    with pytest.raises(FrozenInstanceError):
        made.low = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del made.low
    tally = Tally()
    tally.count += 2
    assert tally == Tally(2) and tally.names == []
    assert Tally.__hash__ is None  # mutable and compared: unhashable, as a dataclass is


def test_post_init_runs_after_the_fields_are_set() -> None:
    with pytest.raises(ValueError, match="low above high"):
        Checked(11)
    assert Checked(11, 12).high == 12


def test_a_subclass_has_its_bases_fields_first() -> None:
    assert fields(MoreTally) == ("count", "names", "extra")
    more = MoreTally(1, ["a"], "y")
    assert repr(more) == "MoreTally(count=1, names=['a'], extra='y')"
    assert more != Tally(1, ["a"])


def test_replace_and_fields() -> None:
    made = Slotted(3, (1,), ["a"])
    changed = replace(made, cards=(2,))
    assert changed == Slotted(3, (2,), ["a"]) and made.cards == (1,)
    assert fields(made) == fields(Slotted) == ("index", "cards", "notes")
    assert replace(Tally(1)) == Tally(1)
    with pytest.raises(TypeError):
        replace(made, nothing=1)


@pytest.mark.parametrize(
    "made", [Slotted(3, (1,), ["a"]), Checked(1, 2), Tally(2, ["b"]), MoreTally(1, [], "z")]
)
def test_a_record_survives_pickling_and_copying(made: object) -> None:
    assert pickle.loads(pickle.dumps(made)) == made
    assert copy.deepcopy(made) == made
    assert copy.copy(made) == made


def test_a_class_with_a_method_a_record_makes_is_refused() -> None:
    """Where dataclass would keep the class's own, a record says so rather than replace it."""
    with pytest.raises(TypeError, match="Own defines __eq__, __repr__: a record makes them"):

        @record
        class Own:
            a: int

            def __repr__(self) -> str:
                return "own"

            def __eq__(self, other: object) -> bool:
                return True


def test_the_init_is_compiled_when_first_called() -> None:
    """Made at import, a record's own ``__init__`` is not compiled until it is called."""

    @record
    class Late:
        a: int

    first = Late.__init__
    assert Late(1).a == 1
    assert Late.__init__ is not first
    assert Late(2) == Late(a=2)

"""The loader's columns (``db.columns``): values kept as C integers or text codes make the
same Arrow arrays that Python lists of the values made (``pa.array``), nulls and all."""

from __future__ import annotations

import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.db.columns import CardLists, Ints, Objects, Texts
from loo_replay.engine.cards import canonical
from loo_replay.engine.model import DEAD


def test_integers_past_the_first_allocation_keep_every_value() -> None:
    column = Ints()
    values = [(-1) ** k * k * 1_000_003 for k in range(5_000)]  # grows the array many times
    for v in values:
        column.append(v)
    assert column.array(pa.int64()).to_pylist() == values
    assert len(column) == len(values)


def test_none_and_integers_beyond_64_bits_are_null_as_arrow_made_them() -> None:
    column = Ints()
    values = [3, None, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**200, 0]
    for v in values:
        column.append(v)
    expected = [3, None, 2**63 - 1, None, -(2**63), None, None, 0]
    assert column.array(pa.int64()).to_pylist() == expected


def test_integer_columns_take_their_declared_type() -> None:
    column = Ints()
    for v in (True, False, None, True):
        column.append(v)
    flags = column.array(pa.bool_())
    assert flags.type == pa.bool_() and flags.to_pylist() == [True, False, None, True]
    small = Ints()
    for v in (7, None, -2):
        small.append(v)
    assert small.array(pa.int32()).to_pylist() == [7, None, -2]


def test_card_numbers_in_a_text_column_are_card_names() -> None:
    column = Ints()
    for v in (0, 51, None, 12):
        column.append(v)
    names = column.array(pa.string())
    assert names.to_pylist() == [canonical(0), canonical(51), None, canonical(12)]


def test_texts_are_coded_once_and_come_back_in_row_order() -> None:
    column = Texts()
    rows = ["ann", "bob", None, "ann", "ann", "cat", None]
    for text in rows:
        column.append(text)
    assert column.code("ann") == column.code("ann") != column.code("bob")
    assert column.array(pa.string()).to_pylist() == rows


def test_texts_with_lone_surrogates_are_cleaned_as_before() -> None:
    column = Texts()
    for text in ("ok", "bad\ud800"):
        column.append(text)
    assert column.array(pa.string()).to_pylist() == ["ok", "bad?"]


def test_card_lists_from_numbers_from_masks_and_none() -> None:
    column = CardLists()
    column.append([5, 0, 51])  # in the order given
    column.append(None)
    column.append([])
    column.append_mask((1 << 51) | (1 << 3) | 1)  # lowest first
    column.append_mask(DEAD)  # a dead card: never judged
    column.append_mask(0)  # judged, nothing legal
    got = column.array(pa.list_(pa.string())).to_pylist()
    names = [canonical(c) for c in (5, 0, 51)]
    assert got == [names, None, [], [canonical(0), canonical(3), canonical(51)], None, []]
    assert len(column) == 6


def test_other_values_go_to_arrow_as_they_are() -> None:
    column = Objects()
    column.append(["a note"])
    column.append([])
    assert column.array(pa.list_(pa.string())).to_pylist() == [["a note"], []]

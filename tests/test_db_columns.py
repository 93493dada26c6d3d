"""The loader's columns (``run.columns``): values kept as C integers or text codes make the
same Arrow arrays that Python lists of the values made (``pa.array``), nulls and all."""

from __future__ import annotations

import pyarrow as pa  # type: ignore[import-untyped]
import pytest

from loo_replay.engine.cards import canonical
from loo_replay.engine.model import DEAD
from loo_replay.run.columns import CardLists, Ints, Objects, Texts


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


def test_booleans_and_32_bit_integers_are_what_arrow_makes_of_the_values() -> None:
    """The narrower buffers are written by the column, bit by bit and 32 bits a value, for
    any count of values (not a whole number of bytes) and nulls anywhere."""
    values = [None if k % 7 == 3 else (k * 37) % 11 - 5 for k in range(1_003)]
    flags = [None if v is None else v > 0 for v in values]
    for kind, wanted in ((pa.int32(), values), (pa.bool_(), flags)):
        column = Ints()
        for v in wanted:
            column.append(v)
        got = column.array(kind)
        assert got.equals(pa.array(wanted, type=kind)) and got.null_count == wanted.count(None)


def test_a_value_past_32_bits_in_a_32_bit_column_is_an_error_not_a_wrapped_number() -> None:
    column = Ints()
    for v in (1, 2**31):
        column.append(v)
    with pytest.raises(OverflowError):
        column.array(pa.int32())


def test_an_integer_type_the_column_does_not_write_is_refused_not_misread() -> None:
    """The column writes 64- and 32-bit integers and booleans itself; another width would
    read its 64-bit values as that type, so it is an error (and the frames give such a
    column to ``Objects``, which Arrow converts)."""
    column = Ints()
    column.append(5)
    with pytest.raises(TypeError):
        column.array(pa.int16())
    other = Objects()
    other.append(5)
    assert other.array(pa.int16()).to_pylist() == [5]


def test_card_numbers_in_a_text_column_are_card_names() -> None:
    column = Ints()
    for v in (0, 51, None, 12):
        column.append(v)
    names = column.array(pa.string())
    assert names.to_pylist() == [canonical(0), canonical(51), None, canonical(12)]


def test_card_names_and_texts_travel_as_narrow_codes() -> None:
    """A card name is an 8-bit index into the 52 names, a text a 32-bit code into the
    batch's texts (a third fewer bytes between the processes than 64-bit codes); a value
    that does not fit the narrow type is an error, never a wrapped index."""
    cards = Ints()
    cards.append(51)
    assert cards.array(pa.string()).type == pa.dictionary(pa.int8(), pa.string())
    lists = CardLists()
    lists.append([51])
    assert lists.array(pa.list_(pa.string())).type.value_type.index_type == pa.int8()
    texts = Texts()
    texts.append("ann")
    assert texts.array(pa.string()).type == pa.dictionary(pa.int32(), pa.string())
    wide = Ints()
    for v in (-128, 127, 128):
        wide.append(v)
    with pytest.raises(OverflowError):
        wide.array(pa.int8())
    wide = Ints()
    for v in (-128, 127, None):
        wide.append(v)
    assert wide.array(pa.int8()).to_pylist() == [-128, 127, None]


def test_a_fresh_column_is_empty_with_room_for_the_last_batch_and_grows_past_it() -> None:
    """Each batch's columns start at the size of the last batch's, a quarter more (not at
    256 values doubled again and again), and hold only the new batch's values."""
    column = Ints()
    for v in range(1_000):
        column.append(v)
    fresh = column.fresh()
    assert len(fresh) == 0 and fresh.room() >= 1_250
    values = [k * 7 - 3_000 for k in range(3_000)]  # past that room: it grows
    for v in values:
        fresh.append(v)
    assert fresh.array(pa.int64()).to_pylist() == values
    assert len(column.fresh().fresh()) == 0 and column.fresh().room() >= column.room()
    texts = Texts()
    for text in ("ann", "bob"):
        texts.append(text)
    next_texts = texts.fresh()
    next_texts.append("cat")
    assert len(next_texts) == 1
    assert next_texts.array(pa.string()).dictionary.to_pylist() == [None, "cat"]
    lists = CardLists()
    lists.append([1, 2, 3])
    next_lists = lists.fresh()
    next_lists.append([4])
    assert next_lists.array(pa.list_(pa.string())).to_pylist() == [[canonical(4)]]


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

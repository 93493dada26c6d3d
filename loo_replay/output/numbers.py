"""Numbers for people, written one way on the report pages, in the explorer, in ``stats``
and in ``query``'s tables (docs/reports.md, "How numbers read").

A true minus sign (``−3``, U+2212), never a hyphen; an explicit plus only where a number is
a change (``+9`` chips won, ``−3`` lost); thousands marked in counts and chips
(``1,234``); a share as a whole percent (``0%``, ``43%``); an estimate with its standard
error (``0.42 ± 0.08``).  A negative zero reads ``0``.  The functions return plain text:
callers escape it or mark it up (a negative in red).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence

MINUS = "\u2212"
PLUS_MINUS = "\u00b1"


def _minus(text: str) -> str:
    """A hyphen-minus as the true minus sign; ``−0`` (a value that rounds to zero) as ``0``."""
    if text.startswith("-"):
        if not text.strip("-0.,%"):
            return text[1:]
        return MINUS + text[1:]
    return text


def count(n: int) -> str:
    """A count or an amount of chips, thousands marked: ``1,234``, ``−811,188``."""
    return _minus(f"{n:,}")


def signed(n: int) -> str:
    """A change, its sign always shown: ``+9``, ``−3``, ``0``."""
    return f"+{n:,}" if n > 0 else count(n)


def fixed(x: float, places: int) -> str:
    """A value to ``places`` decimals, thousands marked: ``1,234.50``, ``−0.25``."""
    return _minus(f"{x:,.{places}f}")


def signed_fixed(x: float, places: int) -> str:
    """A change to ``places`` decimals, its sign always shown: ``+3.11``, ``−0.50``;
    ``0.00`` when it rounds to nothing."""
    shown = fixed(x, places)
    return shown if shown.startswith(MINUS) or not shown.strip("0.,") else "+" + shown


def percent(share: float, places: int = 0) -> str:
    """A share (0 to 1) as a percent: ``0%``, ``43%``, ``12.5%`` with ``places=1``."""
    return _minus(f"{share * 100:.{places}f}%")


def rate(part: int, whole: int) -> str:
    """A share counted, with what it is of: ``14% of 21``; ``–`` of nothing.  Counted, not
    estimated: no ± (docs/reports.md, "How numbers read")."""
    return f"{percent(part / whole)} of {count(whole)}" if whole else "–"


def estimate(x: float, se: float | None, places: int, unit: str = "") -> str:
    """An estimate with its standard error: ``0.42 ± 0.08``, ``71.3% ± 2.1`` (``unit``
    follows the value); the value alone when there is no standard error."""
    shown = fixed(x, places) + unit
    return shown if se is None else f"{shown} {PLUS_MINUS} {fixed(se, places)}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def p_value(p: float | None) -> str:
    """A p-value to two significant digits: ``0.032``; a small one as a power of ten,
    ``3.2×10⁻⁵``; ``–`` for none (a test not judged)."""
    if p is None:
        return "–"
    shown = f"{p:.2g}"
    mantissa, e, power = shown.partition("e")
    if not e:
        return shown
    return f"{mantissa}×10{str(int(power)).translate(_SUPERSCRIPT)}"


# -- a column of query's table --------------------------------------------------------------

SIGNIFICANT = 4  # the digits a fraction is shown to, at least, in query's tables
MAX_PLACES = 6  # no column shows more decimals than this
# Beyond these a float column is written in exponent notation, the whole column alike: past
# 10^15 a double no longer holds every integer, below 10^-4 four significant digits would
# need more than MAX_PLACES decimals.
HUGE, TINY = 1e15, 1e-4

Number = int | float | decimal.Decimal


def is_number(value: object) -> bool:
    """A value ``column`` formats: an int, a float or a DECIMAL, not a boolean."""
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _places(value: float | decimal.Decimal) -> int:
    """The decimals ``value`` needs: as many as it has (``74.5``: 1), at most enough for
    ``SIGNIFICANT`` significant digits (``1/3``: 4; ``348959.4``: 0)."""
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        has = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    else:
        text = repr(float(value))
        has = len(text.partition(".")[2]) if "e" not in text else MAX_PLACES
    magnitude = abs(float(value))
    if not magnitude:
        return 0
    wanted = SIGNIFICANT - 1 - math.floor(math.log10(magnitude))
    return max(0, min(has, wanted, MAX_PLACES))


def column(values: Sequence[Number | None]) -> list[str]:
    """A column of ``query``'s table, written alike (docs/database.md, "query"): integers in
    plain digits; fractions with the same decimals throughout, as many as the value that
    needs most (up to six); exponent notation for the whole column only when a value is
    past 10^15 or a nonzero one below 10^-4 (``3.490e+18``).  NULL is empty, NaN and the
    infinities as DuckDB names them."""
    fractions = [v for v in values if isinstance(v, float | decimal.Decimal) and math.isfinite(v)]
    exponent = any(abs(float(v)) >= HUGE or 0 < abs(float(v)) < TINY for v in fractions)
    places = 0 if exponent else max((_places(v) for v in fractions), default=0)

    def one(value: Number | None) -> str:
        if value is None:
            return ""
        if isinstance(value, int):
            return _minus(str(value))
        if not math.isfinite(value):
            return {math.inf: "inf", -math.inf: MINUS + "inf"}.get(float(value), "nan")
        if exponent:
            return _minus(f"{value:.{SIGNIFICANT - 1}e}")
        return _minus(f"{value:.{places}f}")

    return [one(v) for v in values]

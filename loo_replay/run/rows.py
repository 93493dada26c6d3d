"""One row type per database table, the only place a table's columns are declared.

Rows are built with keywords only (``SeatRow(seat=…, player=…)``; a positional value is a
``TypeError``), so no two columns can be swapped by position.  They are msgspec Structs,
whose keyword construction is done in C: the loader builds one per card played.  The Arrow schemas the loader hands to DuckDB are derived from these
declarations, and ``tests/test_db_rows.py`` checks that the migrations in ``migrations``
create exactly these columns with these types and nullability.  A column change touches
its row here and one new migration.

Each field's annotation carries its Python type (``| None`` where the column is
nullable) and, in ``Annotated``, its Arrow type, then the database's type where it is
not the one DuckDB gives that Arrow type: the ENUMs ``card`` and ``declaration``, which
the loader's strings are stored as.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_type_hints

import msgspec
import pyarrow as pa  # type: ignore[import-untyped]

_STR = pa.string()
_I32 = pa.int32()
_I64 = pa.int64()
_BOOL = pa.bool_()
_STRS = pa.list_(pa.string())

Str = Annotated[str, _STR]
OptStr = Annotated[str | None, _STR]
I32 = Annotated[int, _I32]
OptI32 = Annotated[int | None, _I32]
I64 = Annotated[int, _I64]
OptI64 = Annotated[int | None, _I64]
Bool = Annotated[bool, _BOOL]
OptBool = Annotated[bool | None, _BOOL]
Card = Annotated[str, _STR, "card"]  # a canonical card code, ``TH``
OptCard = Annotated[str | None, _STR, "card"]
Cards = Annotated[list[str], _STRS, "card[]"]
OptCards = Annotated[list[str] | None, _STRS, "card[]"]
OptDeclaration = Annotated[str | None, _STR, "declaration"]  # play, pass, take_miss, defend
Texts = Annotated[list[str], _STRS]
Errors = Annotated[  # a document's log errors: where (JSON pointer) and what
    list[dict[str, str]], pa.list_(pa.struct([("path", _STR), ("message", _STR)]))
]
Bytes = Annotated[bytes, pa.binary()]
OptF64 = Annotated[float | None, pa.float64()]


class SessionRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    digest: Str
    rules_fingerprint: Str
    file: Str
    line: OptI32
    ruleset: OptStr
    rules: OptStr
    started_at: OptStr
    venue: OptStr
    meta: OptStr
    deals: I32
    errors: Errors


class PlayerRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    seat: I32
    player: Str
    name: OptStr
    chips: OptI64


class DealRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    status: Str
    dealer: Str
    seated: I32
    pool: OptStr
    pool_start: OptI64
    must: Bool
    trump: OptStr
    turn_up: OptCard
    miss: OptCards
    miss_taker: OptStr
    defender: OptStr
    outcome: OptStr
    pool_next: OptI64
    violations: I32
    discrepancies: I32
    notes: Texts
    knowledge: Str  # full, or partial: hands left out (docs/log-format.md, "Hands left out")
    unchecked: Texts  # the checks the unknown cards prevented


class SeatRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    seat: I32
    player: Str
    dealer: Bool
    declaration: OptDeclaration
    active: Bool
    retired: Bool
    hand: OptCards
    tricks: I32
    ante: I64
    payout: OptI64
    loo: OptI64
    looed: OptBool
    penalties: OptI64
    net: OptI64
    stack: OptI64


class TrickRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    trick: I32
    leader: Str
    led: OptCard
    winner: OptStr
    cards: I32
    dead: I32


class PlayRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    trick: I32
    position: I32
    event: I32
    seat: I32
    player: Str
    card: Card
    dead: Bool
    legal: OptBool
    legal_cards: OptCards
    wins: Bool
    finding: OptStr


class FindingRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    finding: I32
    code: Str
    family: Str
    player: Str
    trick: OptI32
    card: OptCard
    held: Cards
    legal: OptCards
    penalized: Bool
    penalty: I64
    event: OptI32
    message: Str
    proved_by: OptCard  # a revoke from a derived hand: the later card that proves it
    proved_trick: OptI32


class DiscrepancyRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    field: Str
    item: Str
    player: OptStr
    recorded: I64
    expected: I64


class AnalysisDealRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    """The double-dummy analysis of a loaded deal: solved, skipped or unsolved, and why."""

    session_id: Str
    deal_index: I32
    deal: I64
    status: Str
    reason: OptStr
    nodes: I64
    cards: I32
    stopped: OptStr


class AnalysisPlayerRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    player: Str
    guarantee: I32
    tricks: I32
    lost: I32


class AnalysisNoteRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    session_id: Str
    deal_index: I32
    deal: I64
    note: I32
    code: Str
    player: Str
    trick: OptI32
    card: OptCard
    before: OptI32
    after: OptI32
    better: OptCards
    message: Str


class AnalysisCardRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    """One analysed card of a solved deal: its player's guarantee G before and after it,
    as the replay pages show it (read back instead of analysing the deal again)."""

    session_id: Str
    deal_index: I32
    deal: I64
    step: I32  # the card's place among the deal's analysed cards, from 0
    seat: I32  # the player's seat in the deal
    player: Str
    trick: I32
    card: Card
    before: I32
    after: I32
    better: Cards
    announced: Bool


class DecisionDealRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    """Whether a loaded deal's decisions were judged (docs/judging-decisions.md), and on
    what: a deal loaded without ``--decisions`` has no row."""

    session_id: Str
    deal_index: I32
    deal: I64
    status: Str  # judged | skipped
    reason: OptStr  # why skipped: partial, on_void, not_audited, an outcome...
    samples: I32  # K, the worlds drawn for each decision
    seed: I64
    unit: I64  # the chips a trick is worth in the deal: classes are in units
    declarations: OptStr  # "exchange": declarations not judged in this ruleset


class DecisionRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    """One option of one judged decision; or, with ``option`` NULL and a ``reason``, a
    decision that could not be valued.  What is one per decision (loss, class, message) is
    repeated on each of its options' rows."""

    session_id: Str
    deal_index: I32
    deal: I64
    event: I32  # the decision's index among the deal's events
    seat: I32
    player: Str
    kind: Str  # declare | card
    trick: OptI32  # a card's trick, 1-based
    option: OptStr  # a declaration, or a canonical card with "+announce"
    position: OptI32  # the option's place in option order, from 0
    value: OptF64  # its mean net chips over the worlds, and their standard error
    se: OptF64
    chosen: OptBool
    best: OptBool
    loss: OptF64
    loss_se: OptF64
    severity: OptStr  # the JSON's class: inaccuracy | mistake | blunder, else NULL
    accuracy: OptF64  # NULL where every option is worth the same
    samples: I32  # the worlds the values are means over
    reason: OptStr  # unjudged: why (later_declarations, ...)
    message: OptStr


class RejectRow(msgspec.Struct, kw_only=True, frozen=True, gc=False):
    kind: Str  # "document" (unreadable) or "deal" (log errors)
    session_id: OptStr
    deal_index: OptI32
    deal: OptI64
    dealer: OptStr
    file: Str
    line: OptI32
    path: Str
    message: Str
    errors: Errors
    raw: Bytes
    digest: Str


Row = (
    SessionRow
    | PlayerRow
    | DealRow
    | SeatRow
    | TrickRow
    | PlayRow
    | FindingRow
    | DiscrepancyRow
    | AnalysisDealRow
    | AnalysisPlayerRow
    | AnalysisNoteRow
    | AnalysisCardRow
    | DecisionDealRow
    | DecisionRow
    | RejectRow
)

ROWS: dict[str, type[Row]] = {
    "sessions": SessionRow,
    "players": PlayerRow,
    "deals": DealRow,
    "seats": SeatRow,
    "tricks": TrickRow,
    "plays": PlayRow,
    "findings": FindingRow,
    "discrepancies": DiscrepancyRow,
    "analysis_deals": AnalysisDealRow,
    "analysis_players": AnalysisPlayerRow,
    "analysis_notes": AnalysisNoteRow,
    "analysis_cards": AnalysisCardRow,
    "decision_deals": DecisionDealRow,
    "decisions": DecisionRow,
    "rejects": RejectRow,
}
TABLE_OF: dict[type[Row], str] = {row: table for table, row in ROWS.items()}


def columns(row: type[Row]) -> list[tuple[str, Any, bool]]:
    """(name, Arrow type, nullable) of each column of ``row``, in order."""
    hints = get_type_hints(row, include_extras=True)
    out = []
    for name in row.__struct_fields__:
        python, arrow, *_ = get_args(hints[name])
        out.append((name, arrow, type(None) in get_args(python)))
    return out


def enum_columns(row: type[Row]) -> dict[str, str]:
    """The columns of ``row`` stored as an ENUM (or a list of one): name -> database type."""
    hints = get_type_hints(row, include_extras=True)
    return {
        name: args[2] for name in row.__struct_fields__ if len(args := get_args(hints[name])) > 2
    }


def schema(row: type[Row]) -> pa.Schema:
    """The Arrow schema of ``row``'s table (every field nullable: DuckDB checks NOT NULL)."""
    return pa.schema([(name, arrow) for name, arrow, _ in columns(row)])

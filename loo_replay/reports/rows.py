"""The row of each report query the pages read, as a ``TypedDict`` (``queries`` returns
Polars frames; ``rows`` hands a frame's rows to the pages under their declared type).

``tests/test_reports_rows.py`` runs every query on a loaded database and checks that its
columns are exactly these keys, in order, of these types, null only where ``| None`` says.
"""

from __future__ import annotations

from typing import TypedDict, TypeVar, cast

import polars as pl


class SessionSummary(TypedDict):
    """``queries.sessions``: a session with its counts."""

    session_id: str
    file: str
    line: int | None
    digest: str
    rules_fingerprint: str
    ruleset: str | None
    rules: str | None
    started_at: str | None
    venue: str | None
    deals: int
    audited: int
    misdeals: int
    rejected: int
    violations: int
    discrepancies: int
    loos: int
    flushes: int
    partial: int  # deals recorded with hands left out
    unchecked: list[str]  # the checks their unknown cards prevented, in any deal
    pool_max: int | None
    players: int
    analysed: int  # deals the analysis looked at (solved, or skipped with its reason)
    solved: int  # deals it solved
    errors: int
    first_error: str | None


class PlayerTotals(TypedDict):
    """``queries.players``: a player of a session with his totals over it."""

    session_id: str
    seat: int
    player: str
    name: str | None
    chips: int | None
    deals: int
    played: int
    passed: int
    took_miss: int
    played_known: int
    looed: int
    loo_chips: int
    tricks: int
    net: int
    last_stack: int | None
    violations: int


class PoolStep(TypedDict):
    """``queries.pool_history``: an audited deal, its pool and who was looed."""

    session_id: str
    deal_index: int
    deal: int
    dealer: str
    status: str
    pool: str | None
    pool_start: int | None
    pool_next: int | None
    outcome: str | None
    violations: int
    discrepancies: int
    knowledge: str
    loos: int
    loo_chips: int
    looed: list[str] | None
    loo_amounts: list[int] | None
    revokes: int
    revokers: list[str] | None
    revoke_codes: list[str] | None


class RejectedDeal(TypedDict):
    """``queries.rejected_deals``: a deal kept in ``rejects`` and its first log error."""

    session_id: str
    deal_index: int
    deal: int | None
    dealer: str | None
    path: str
    message: str
    errors: int


class ListedReject(TypedDict):
    """``queries.listed_rejects``: a row of ``rejects`` in the index's list."""

    kind: str
    session_id: str | None
    deal: int | None
    file: str
    line: int | None
    path: str
    message: str


class SessionFinding(TypedDict):
    """``queries.findings``: a violation in a session."""

    session_id: str
    deal_index: int
    deal: int
    finding: int
    code: str
    player: str
    trick: int | None
    card: str | None
    penalized: bool
    penalty: int
    message: str


class ThrownTrick(TypedDict):
    """``queries.thrown_tricks``: a ``lost-trick`` or ``avoidable-loo`` note of the analysis."""

    session_id: str
    deal_index: int
    deal: int
    note: int
    code: str
    player: str
    trick: int | None
    card: str | None
    better: list[str] | None
    message: str


class SessionDiscrepancy(TypedDict):
    """``queries.discrepancies``: a recorded amount the audit disagrees with."""

    session_id: str
    deal_index: int
    deal: int
    field: str
    item: str
    player: str | None
    recorded: int
    expected: int
    difference: int


class Standing(TypedDict):
    """``queries.standings``: a player over every session."""

    player: str
    sessions: int
    deals: int
    net: int
    loos: int
    loo_chips: int
    violations: int


class ListedFinding(TypedDict):
    """``queries.all_findings``: a violation in the all-sessions list."""

    session_id: str
    deal_index: int
    deal: int
    code: str
    family: str
    player: str
    name: str | None
    penalized: bool
    penalty: int
    message: str


class ListedDiscrepancy(TypedDict):
    """``queries.all_discrepancies``: a discrepancy in the all-sessions list."""

    session_id: str
    deal_index: int
    deal: int
    field: str
    player: str | None
    name: str | None
    recorded: int
    expected: int


R = TypeVar("R")


def rows(frame: pl.DataFrame, kind: type[R]) -> list[R]:
    """``frame``'s rows as ``kind``, the query's declared row (checked by the tests)."""
    return cast(list[R], frame.to_dicts())

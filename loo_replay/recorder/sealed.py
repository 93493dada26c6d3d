"""The recorder's seals: each deal sealed as it is settled, and its code shown for the
paper score sheet (docs/evidence.md, docs/record.md).

The log the recorder writes is sealed up to its last settled deal: the session's seal and
each settled deal's; a deal still being played has none until it is settled.  The closing
entry of each deal keeps its deal's seal in the journal, so that ``--resume`` can check that
the journal still gives the seals the table noted.
"""

from __future__ import annotations

from typing import Any

import orjson

from loo_replay.evidence.codes import code
from loo_replay.evidence.seals import ALG, UNSEALABLE, check
from loo_replay.recorder.book import written
from loo_replay.recorder.journal import Entry


def encoded(entries: list[Entry], settled: int) -> bytes:
    """The hand log of ``entries`` as written to disk, its ``settled`` deals sealed."""
    return orjson.dumps(sealed_log(entries, settled), option=orjson.OPT_INDENT_2) + b"\n"


def sealed_log(entries: list[Entry], settled: int) -> dict[str, Any]:
    """The hand log of ``entries`` as written (``book.written``), its first ``settled``
    deals sealed."""
    doc = written(entries)
    found = check(doc)
    if found.status == UNSEALABLE:  # a value RFC 8785 cannot write: the log goes unsealed
        return doc
    doc["session"] = {**doc["session"], "seal": {"alg": ALG, "header": found.seals[0].hex()}}
    deals = doc["deals"]
    for i in range(min(settled, len(deals))):
        deals[i] = {**deals[i], "seal": found.seals[i + 1].hex()}
    return doc


def last_seal(entries: list[Entry], settled: int) -> str | None:
    """The seal (hex) of the last of the ``settled`` deals of ``entries``, or None."""
    deals = sealed_log(entries, settled)["deals"][:settled]
    return deals[-1].get("seal") if deals else None


def deal_codes(doc: dict[str, Any]) -> list[tuple[Any, str]]:
    """Each sealed deal's number and code, in log order."""
    return [
        (deal.get("deal"), code(bytes.fromhex(deal["seal"])))
        for deal in doc["deals"]
        if isinstance(deal.get("seal"), str)
    ]

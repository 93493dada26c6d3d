"""A session's seal chain: what each seal is taken over, and whether the stored ones hold.

``seal_0 = SHA-256("loo-seal-v1\\n" || JCS(header))``, the header being the whole
document but its deals and the session's own ``seal``; ``seal_n = SHA-256(seal_{n-1} ||
JCS(deal n))``, each deal as written without its ``seal``.  Each seal vouches for
everything before it, so the table's last code vouches for the night.  The log keeps each
seal in full, as hex (docs/evidence.md, docs/log-format.md); seals stored in a file prove
only that nobody changed it without computing them again, which the codes noted at the
table catch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from loo_replay.engine.records import record
from loo_replay.evidence.canonical import CanonicalError, canonical
from loo_replay.evidence.codes import code

ALG = "loo-seal-v1"
_PREFIX = ALG.encode() + b"\n"

UNSEALED = "unsealed"
SEALED = "sealed"
BROKEN = "broken"
UNSEALABLE = "unsealable"  # a value RFC 8785 cannot write: nothing can be computed


def header_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """What ``seal_0`` is taken over: the document without ``deals`` and without the
    session's ``seal``."""
    header = {key: value for key, value in document.items() if key != "deals"}
    session = header.get("session")
    if isinstance(session, dict) and "seal" in session:
        header["session"] = {key: value for key, value in session.items() if key != "seal"}
    return header


def first_seal(header: Mapping[str, Any]) -> bytes:
    """``seal_0`` of a header (``header_of``)."""
    return hashlib.sha256(_PREFIX + canonical(header)).digest()


def _unsealed(deal: Any) -> tuple[Any, Any]:
    """A deal without its ``seal``, and the seal it stored (None if none)."""
    if isinstance(deal, dict) and "seal" in deal:
        return {key: value for key, value in deal.items() if key != "seal"}, deal["seal"]
    return deal, None


def next_seal(before: bytes, deal: Any) -> bytes:
    """``seal_n`` of a deal (as written, without its ``seal``) after ``seal_{n-1}``."""
    return hashlib.sha256(before + canonical(_unsealed(deal)[0])).digest()


def deal_label(deal: Any, index: int) -> str:
    """How a deal is named to people: ``deal N`` by its number as logged, or by where it
    stands when it has no number."""
    number = deal.get("deal") if isinstance(deal, dict) else None
    if isinstance(number, int) and not isinstance(number, bool):
        return f"deal {number}"
    return f"the deal at /deals/{index}"


def stored_header_seal(document: Mapping[str, Any]) -> Any:
    """The session's stored ``seal`` object's header seal (None if the session has none)."""
    session = document.get("session")
    seal = session.get("seal") if isinstance(session, dict) else None
    if seal is None:
        return None
    if isinstance(seal, dict) and seal.get("alg") == ALG:
        return seal.get("header")
    return seal  # of another kind: it cannot equal a seal computed here


@record(slots=True)
class SealCheck:
    """A session's stored seals against the ones computed.

    ``status`` is ``unsealed``, ``sealed``, ``broken`` (``at`` names the header or the
    first deal whose stored seal differs or is missing) or ``unsealable`` (``at`` names
    the part RFC 8785 cannot write, ``reason`` says why).  ``seals`` holds the computed
    chain, ``seal_0`` first, as far as it could be computed."""

    status: str
    at: str | None = None
    seals: tuple[bytes, ...] = ()
    reason: str | None = None

    @property
    def last_code(self) -> str | None:
        """The code of the last deal's seal, when the seals hold (else None)."""
        return code(self.seals[-1]) if self.status == SEALED and len(self.seals) > 1 else None

    def line(self) -> str:
        """The check in words, for a line of ``validate`` or ``verify``."""
        if self.status == SEALED:
            last = self.last_code
            return "seals hold" + (f" (last code {last})" if last else "")
        if self.status == BROKEN:
            return f"seals broken at {self.at}: changed after it was sealed"
        if self.status == UNSEALABLE:
            return f"seals cannot be computed: {self.at} {self.reason}"
        return "no seals"


def check(document: Mapping[str, Any], deals: Sequence[Any] | None = None) -> SealCheck:
    """The seals of ``document`` checked, its ``deals`` (default: its own) in order.  A
    session with no seal at all is ``unsealed``; one whose header seal is missing while a
    deal keeps one is broken at the header."""
    if deals is None:
        found = document.get("deals")
        deals = found if isinstance(found, list) else []
    stored_header = stored_header_seal(document)
    try:
        seal = first_seal(header_of(document))
    except CanonicalError as exc:
        return SealCheck(UNSEALABLE, "the header", (), str(exc))
    seals = [seal]
    broken: str | None = None
    if stored_header is None or stored_header != seal.hex():
        broken = "the header"
    any_seal = stored_header is not None
    for index in range(len(deals)):
        deal, stored = _unsealed(deals[index])
        any_seal = any_seal or stored is not None
        try:
            seal = hashlib.sha256(seal + canonical(deal)).digest()
        except CanonicalError as exc:
            return SealCheck(UNSEALABLE, deal_label(deal, index), tuple(seals), str(exc))
        seals.append(seal)
        if broken is None and stored != seal.hex():
            broken = deal_label(deal, index)
    if not any_seal:
        return SealCheck(UNSEALED, None, tuple(seals))
    if broken is not None:
        return SealCheck(BROKEN, broken, tuple(seals))
    return SealCheck(SEALED, None, tuple(seals))


def sealed(document: Mapping[str, Any], seals: Sequence[bytes]) -> dict[str, Any]:
    """A copy of ``document`` with ``seals`` (``check``'s, one more than its deals) stored:
    the session's at the end of its object, each deal's at the end of its own.  No other
    value changes."""
    out = dict(document)
    session = dict(out["session"])
    session["seal"] = {"alg": ALG, "header": seals[0].hex()}
    out["session"] = session
    deals = out.get("deals")
    out["deals"] = [
        {**deal, "seal": seal.hex()} if isinstance(deal, dict) else deal
        for deal, seal in zip(deals if isinstance(deals, list) else [], seals[1:], strict=True)
    ]
    return out


def check_read(envelope: Mapping[str, Any] | None, deals: Sequence[Any], raw: bytes) -> SealCheck:
    """``check`` of a document as the readers leave it: its ``envelope`` (all but the
    deals), its deals' JSON (the plain reader's parse each from its bytes when asked) and
    its bytes, which say at a glance when no seal can be in it (nothing read again)."""
    if envelope is None or (raw and b'"seal"' not in raw and b"\\u" not in raw):
        return SealCheck(UNSEALED)
    return check(envelope, deals)


def same_but_seals(old: bytes, new: bytes) -> bool:
    """Whether two documents' bytes say the same but for their seals: the same session
    to ``ingest`` (its header and deals equal in canonical form, seals left out)."""
    try:
        a, b = orjson.loads(old), orjson.loads(new)
    except orjson.JSONDecodeError:
        return False
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return False
    try:
        return _unsealed_form(a) == _unsealed_form(b)
    except CanonicalError:
        return False


def _unsealed_form(document: dict[str, Any]) -> bytes:
    deals = document.get("deals")
    listed = deals if isinstance(deals, list) else [deals]
    return canonical([header_of(document), *(_unsealed(d)[0] for d in listed)])

"""The seal chain as docs/evidence.md defines it, written out with the ``rfc8785`` library
and ``hashlib`` alone: what loo-replay's own chain is checked against."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def reference_seals(doc: dict[str, Any]) -> list[bytes]:
    """``seal_0`` then each deal's seal, of an unsealed document."""
    header = {k: v for k, v in doc.items() if k != "deals"}
    seal = hashlib.sha256(b"loo-seal-v1\n" + rfc8785.dumps(header)).digest()
    seals = [seal]
    for deal in doc["deals"]:
        seal = hashlib.sha256(seal + rfc8785.dumps(deal)).digest()
        seals.append(seal)
    return seals

"""A seal as people read it: a code of its first 40 bits in Crockford's base32.

Eight characters in two groups of four (``K3F9-QX2M``): short enough to write on a paper
score sheet, and 40 bits is one chance in about a trillion that a changed log keeps a
code.  Codes are read back as Crockford wrote them to be: case-blind, with or without the
hyphen, ``O`` for ``0`` and ``I`` or ``L`` for ``1``.
"""

from __future__ import annotations

from loo_replay.errors import InputError

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ALIASES = str.maketrans({"O": "0", "I": "1", "L": "1"})
CODE_BITS = 40


class CodeError(InputError, ValueError):
    """Text that is not a code."""


def code(seal: bytes) -> str:
    """The code of a seal (its first 40 bits), as ``XXXX-XXXX``."""
    bits = int.from_bytes(seal[: CODE_BITS // 8], "big")
    chars = "".join(ALPHABET[(bits >> shift) & 31] for shift in range(35, -1, -5))
    return f"{chars[:4]}-{chars[4:]}"


def read_code(text: str) -> str:
    """A code as typed, in its written form ``XXXX-XXXX``; ``CodeError`` if it is not one."""
    plain = text.strip().upper().replace("-", "").translate(_ALIASES)
    if len(plain) != 8 or any(c not in ALPHABET for c in plain):
        raise CodeError(
            f"{text.strip()!r} is not a seal code (8 characters of 0-9 and A-Z but I L O U, "
            "as XXXX-XXXX)"
        )
    return f"{plain[:4]}-{plain[4:]}"

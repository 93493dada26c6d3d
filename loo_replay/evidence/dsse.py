"""DSSE envelopes signed with Ed25519: who vouches for a bundle's statement.

The envelope is the one of the DSSE specification (secure-systems-lab/dsse, v1.0):
``payload`` (base64), ``payloadType`` and ``signatures``, each signature over the
pre-authentication encoding ``PAE`` of the type and the payload, never the payload alone.
Keys are Ed25519, read by the ``cryptography`` library from an OpenSSH or a PEM file; a
key's ``keyid`` is its fingerprint as ``ssh-keygen -l`` prints it (``SHA256:`` and the
unpadded base64 of the SHA-256 of its OpenSSH public blob), so that a person can compare
it with the one they were given.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from loo_replay.errors import InputError

PAYLOAD_TYPE = "application/vnd.in-toto+json"
KEY_BYTES = 64 << 10  # a key file is a few hundred bytes


class KeyFileError(InputError):
    """A key file that cannot be used: unreadable, not Ed25519, or its passphrase wrong."""


class EnvelopeError(InputError):
    """An envelope that is not a DSSE envelope over the statement beside it."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body) SP body``,
    lengths as ASCII decimals of byte counts."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def fingerprint(key: Ed25519PublicKey) -> str:
    """``SHA256:…`` as ``ssh-keygen -l`` prints it."""
    line = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    blob = base64.b64decode(line.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def _read_key_file(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            data = f.read(KEY_BYTES + 1)
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    if len(data) > KEY_BYTES:
        raise KeyFileError(f"{path} is larger than a key file ({KEY_BYTES:,} bytes)")
    return data


def _private(data: bytes, password: bytes | None) -> object:
    if b"BEGIN OPENSSH PRIVATE KEY" in data:
        return serialization.load_ssh_private_key(data, password)
    return serialization.load_pem_private_key(data, password)


def load_private_key(path: Path, passphrase: Callable[[], bytes]) -> Ed25519PrivateKey:
    """The Ed25519 private key in ``path`` (OpenSSH or PEM); ``passphrase()`` is asked only
    when the key is encrypted."""
    data = _read_key_file(path)
    try:
        try:
            key = _private(data, None)
        except TypeError:  # encrypted: "Password was not given but private key is encrypted"
            key = _private(data, passphrase())
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        why = str(exc).split("\n")[0] or type(exc).__name__
        raise KeyFileError(
            f"{path} is not a private key loo-replay can read, or its passphrase is wrong ({why})"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path} is not an Ed25519 key (ssh-keygen -t ed25519 makes one)")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """The Ed25519 public key in ``path``: an OpenSSH line (``ssh-ed25519 AAAA…``, a ``.pub``
    file) or a PEM ``PUBLIC KEY``."""
    data = _read_key_file(path)
    try:
        if data.lstrip().startswith(b"-----BEGIN"):
            key: object = serialization.load_pem_public_key(data)
        else:
            key = serialization.load_ssh_public_key(data.strip())
    except (ValueError, UnsupportedAlgorithm) as exc:
        why = str(exc).split("\n")[0] or type(exc).__name__
        raise KeyFileError(f"{path} is not a public key loo-replay can read ({why})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path} is not an Ed25519 public key")
    return key


def sign(payload: bytes, key: Ed25519PrivateKey) -> bytes:
    """The DSSE envelope (JSON bytes) of ``payload`` signed by ``key``."""
    signature = key.sign(pae(PAYLOAD_TYPE, payload))
    envelope = {
        "payload": base64.b64encode(payload).decode(),
        "payloadType": PAYLOAD_TYPE,
        "signatures": [
            {"keyid": fingerprint(key.public_key()), "sig": base64.b64encode(signature).decode()}
        ],
    }
    return orjson.dumps(envelope, option=orjson.OPT_INDENT_2) + b"\n"


def _b64(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise EnvelopeError(f"the envelope's {what} is not a base64 string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise EnvelopeError(f"the envelope's {what} is not valid base64") from None


def read_envelope(data: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The envelope's payload and its signatures (keyid, signature bytes)."""
    try:
        envelope = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise EnvelopeError("statement.dsse.json is not JSON") from None
    if not isinstance(envelope, dict) or envelope.get("payloadType") != PAYLOAD_TYPE:
        raise EnvelopeError(f"statement.dsse.json is not a DSSE envelope of {PAYLOAD_TYPE}")
    payload = _b64(envelope.get("payload"), "payload")
    signatures = envelope.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        raise EnvelopeError("statement.dsse.json holds no signature")
    found = []
    for entry in signatures:
        if not isinstance(entry, dict):
            raise EnvelopeError("a signature of statement.dsse.json is not an object")
        found.append((str(entry.get("keyid", "")), _b64(entry.get("sig"), "signature")))
    return payload, found


def verified(payload: bytes, signature: bytes, key: Ed25519PublicKey) -> bool:
    """Whether ``signature`` is ``key``'s over the envelope's PAE of ``payload``."""
    try:
        key.verify(signature, pae(PAYLOAD_TYPE, payload))
    except InvalidSignature:
        return False
    return True

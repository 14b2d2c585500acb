# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The device key: an Ed25519 key that signs every payload the table publishes.

Mostly pure (signing and verifying); the key file's I/O is in :func:`create_key_file` and
:func:`load_key_file`. The contract (mqtt-api.md, "Signed messages"):

* ``kid``: the first 16 hex digits of SHA-256 over the raw 32-byte public key;
* ``sig``: the base64 Ed25519 signature over the payload's canonical JSON without ``sig``
  (:func:`canonical_bytes`: keys sorted at every level, separators ``,`` and ``:``, no spaces,
  non-ASCII unescaped, UTF-8). ``kid`` is part of the signed bytes.

The key file is PEM PKCS #8, unencrypted, mode 0600: created so (never wider, not even for a
moment), never overwritten, and refused when group or others may read it. The private key is
never logged nor printed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_controller.integrity.errors import KeyFileError

KID_HEX_DIGITS: Final = 16
KEY_FILE_MODE: Final = 0o600


def canonical_bytes(payload: Mapping[str, object]) -> bytes:
    """The signed bytes: ``payload`` without ``sig`` as canonical JSON, UTF-8."""
    unsigned = {key: value for key, value in payload.items() if key != "sig"}
    text = json.dumps(
        unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode()


def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Ed25519PublicKey) -> str:
    """``kid``: the first 16 hex digits of SHA-256 over the raw public key."""
    return hashlib.sha256(raw_public_key(public_key)).hexdigest()[:KID_HEX_DIGITS]


def public_key_text(public_key: Ed25519PublicKey) -> str:
    """The public key as the birth status carries it: base64 of the raw 32 bytes."""
    return base64.b64encode(raw_public_key(public_key)).decode("ascii")


def public_key_from_text(text: str) -> Ed25519PublicKey:
    """A public key from its base64 text (the birth status's ``public_key``).

    Raises:
        ValueError: not base64 of 32 bytes.
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a public key must be base64 text") from None
    if len(raw) != 32:
        raise ValueError(f"a public key has 32 bytes, this one {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


@dataclass(frozen=True, slots=True)
class DeviceKey:
    """The table's signing key, with its public key's ``kid`` and text."""

    private_key: Ed25519PrivateKey
    kid: str
    public_key: str

    @classmethod
    def of(cls, private_key: Ed25519PrivateKey) -> DeviceKey:
        public = private_key.public_key()
        return cls(private_key, key_id(public), public_key_text(public))

    def __repr__(self) -> str:  # never the private key, wherever it is printed
        return f"DeviceKey(kid={self.kid!r})"

    def sign(self, payload: Mapping[str, object]) -> dict[str, object]:
        """The payload with ``kid`` and ``sig`` added (any ``sig`` it had is replaced)."""
        signed: dict[str, object] = {k: v for k, v in payload.items() if k != "sig"}
        signed["kid"] = self.kid
        signature = self.private_key.sign(canonical_bytes(signed))
        signed["sig"] = base64.b64encode(signature).decode("ascii")
        return signed


def verify(payload: Mapping[str, object], public_key: Ed25519PublicKey) -> Literal[True] | str:
    """``True`` when ``payload``'s ``sig`` is the key's signature over it; else why not."""
    signature, kid = payload.get("sig"), payload.get("kid")
    if signature is None:
        return "no signature"
    if kid != key_id(public_key):
        return f"kid {kid!r} is not the table's key ({key_id(public_key)})"
    try:
        if not isinstance(signature, str):
            raise TypeError("sig is not text")  # noqa: TRY301 - one refusal path for all
        raw = base64.b64decode(signature, validate=True)
        public_key.verify(raw, canonical_bytes(payload))
    except (binascii.Error, TypeError, ValueError) as error:
        return f"unreadable: {error}"
    except InvalidSignature:
        return "signature does not match"
    return True


def create_key_file(path: Path) -> DeviceKey:
    """Create a new key in ``path`` (mode 0600, PEM PKCS #8); refuse an existing file.

    Written to a temporary file of the same directory (created 0600), synced, then linked to
    ``path``: the link fails if ``path`` exists, so a key is never overwritten, and ``path``
    never holds half a key.

    Raises:
        KeyFileError: ``path`` exists, or its directory cannot take the file.
    """
    if path.exists() or path.is_symlink():
        raise KeyFileError(f"{path}: already exists; a device key is never overwritten")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, KEY_FILE_MODE)
        try:
            os.fchmod(descriptor, KEY_FILE_MODE)  # whatever the umask
            os.write(descriptor, pem)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.link(temporary, path)
    except FileExistsError:
        raise KeyFileError(f"{path}: already exists; a device key is never overwritten") from None
    except OSError as error:
        raise KeyFileError(f"{path}: cannot create the key: {error.strerror or error}") from None
    finally:
        temporary.unlink(missing_ok=True)
    return DeviceKey.of(key)


def load_key_file(path: Path) -> DeviceKey:
    """Read the device key; refuse a file group or others may read or write.

    Raises:
        KeyFileError: missing, too open, unreadable, or not an unencrypted Ed25519 key.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise KeyFileError(
            f"{path}: no such key file (create it: table-controller keys init)"
        ) from None
    except OSError as error:
        raise KeyFileError(f"{path}: cannot read the key file: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise KeyFileError(f"{path}: not a regular file")
    if mode & 0o077:
        raise KeyFileError(
            f"{path}: mode {stat.S_IMODE(mode):04o} lets group or others read it; "
            f"a device key must be 0600 (chmod 600 {path})"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise KeyFileError(f"{path}: cannot read the key file: {error.strerror or error}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{path}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path}: not an Ed25519 key")
    return DeviceKey.of(key)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The device key: its file, kid, signatures, and the watch's checker."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.integrity.errors import KeyFileError
from table_controller.integrity.signing import (
    DeviceKey,
    canonical_bytes,
    create_key_file,
    load_key_file,
    public_key_from_text,
    verify,
)
from table_controller.integrity.verifier import SignatureChecker

MESSAGE = {
    "schema": "baccarat-table/1",
    "type": "card",
    "table_id": "T07",
    "seq": 12,
    "ts": "2026-11-29T12:00:00.123Z",
    "card": "QH",
    "operator": "Zoë",
    "payout": 0.95,
}


def test_a_key_file_is_created_0600_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "device.key"
    old_umask = os.umask(0)  # the widest umask: the file must still be 0600
    try:
        key = create_key_file(path)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert [p.name for p in tmp_path.iterdir()] == ["device.key"]  # no temporary file left
    with pytest.raises(KeyFileError, match="never overwritten"):
        create_key_file(path)
    assert load_key_file(path).kid == key.kid
    assert "PRIVATE" not in repr(key)
    assert key.kid in repr(key)


def test_a_key_file_others_may_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "device.key"
    create_key_file(path)
    path.chmod(0o640)
    with pytest.raises(KeyFileError, match="mode 0640"):
        load_key_file(path)


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"not a key", "not an unencrypted PEM"), (None, "no such key file")],
)
def test_an_unusable_key_file_is_refused_clearly(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "device.key"
    if content is not None:
        path.write_bytes(content)
        path.chmod(0o600)
    with pytest.raises(KeyFileError, match=reason):
        load_key_file(path)


def test_a_key_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "device.key"
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.write_bytes(pem)
    path.chmod(0o600)
    with pytest.raises(KeyFileError, match="not an Ed25519 key"):
        load_key_file(path)


def test_kid_and_signature_are_those_the_spec_defines() -> None:
    private = Ed25519PrivateKey.generate()
    key = DeviceKey.of(private)
    raw = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    assert key.kid == hashlib.sha256(raw).hexdigest()[:16]
    assert base64.b64decode(key.public_key) == raw
    signed = key.sign(MESSAGE)
    assert signed["kid"] == key.kid
    # Written out from the spec, not through the product's canonical_bytes.
    unsigned = {k: v for k, v in signed.items() if k != "sig"}
    body = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert "Zoë" in body
    private.public_key().verify(base64.b64decode(str(signed["sig"])), body.encode())
    assert canonical_bytes(signed) == body.encode()


def test_verify_accepts_the_signed_message_and_names_what_is_wrong_otherwise() -> None:
    key = DeviceKey.of(Ed25519PrivateKey.generate())
    public = public_key_from_text(key.public_key)
    signed = key.sign(MESSAGE)
    assert verify(signed, public) is True
    # a re-serialisation in another key order is the same payload
    assert verify(json.loads(json.dumps(dict(reversed(list(signed.items()))))), public) is True
    assert verify({**signed, "card": "KH"}, public) == "signature does not match"
    assert verify(MESSAGE, public) == "no signature"
    other = DeviceKey.of(Ed25519PrivateKey.generate()).sign(MESSAGE)
    assert "is not the table's key" in str(verify(other, public))
    assert str(verify({**signed, "sig": "***"}, public)).startswith("unreadable")
    assert str(verify({**signed, "sig": 7}, public)).startswith("unreadable")
    resigned = key.sign(signed)  # a signature is never signed over
    assert resigned["sig"] == signed["sig"]


def test_a_public_key_text_must_be_base64_of_32_bytes() -> None:
    with pytest.raises(ValueError, match="base64"):
        public_key_from_text("not base64!")
    with pytest.raises(ValueError, match="32 bytes"):
        public_key_from_text(base64.b64encode(b"short").decode())


def test_the_checker_learns_the_key_from_the_status_and_flags_what_fails() -> None:
    key = DeviceKey.of(Ed25519PrivateKey.generate())
    checker = SignatureChecker()
    early = key.sign(MESSAGE)
    assert checker.check("T07", "t/T07/events/card", early) == []  # waits for the key
    status = key.sign({"type": "status", "online": True, "public_key": key.public_key})
    assert checker.check("T07", "t/T07/status", status) == []
    assert checker.checked == 2
    tampered = {**early, "card": "KH"}
    (failure,) = checker.check("T07", "t/T07/events/card", tampered)
    assert (failure.seq, failure.type, failure.reason) == (12, "card", "signature does not match")
    impostor = DeviceKey.of(Ed25519PrivateKey.generate())
    forged = impostor.sign({"type": "status", "public_key": impostor.public_key})
    assert checker.check("T07", "t/T07/status", forged)[0].reason.startswith("kid")
    assert (checker.checked, checker.failed) == (4, 2)
    assert checker.finish() == []


def test_messages_of_a_table_whose_key_never_came_fail_at_the_end() -> None:
    checker = SignatureChecker()
    assert checker.check("T08", "t/T08/events/card", MESSAGE) == []
    (failure,) = checker.finish()
    assert failure.table_id == "T08"
    assert "no public key" in failure.reason
    assert checker.failed == 1


def test_a_pinned_key_is_used_for_every_table_and_the_status_key_is_ignored() -> None:
    key = DeviceKey.of(Ed25519PrivateKey.generate())
    impostor = DeviceKey.of(Ed25519PrivateKey.generate())
    checker = SignatureChecker(public_key_from_text(key.public_key))
    status = impostor.sign({"type": "status", "public_key": impostor.public_key})
    assert len(checker.check("T07", "t/T07/status", status)) == 1
    assert checker.check("T07", "t/T07/events/card", key.sign(MESSAGE)) == []

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Whom the ingest trusts: each table's public key, and the verdict on each message.

Pure: no I/O, no clock (the worker passes the time in), no logging. The keys come from a keys
file (``ingest --table-keys``), or else are pinned from a table's first ``status`` whose
signature verifies with the ``public_key`` it names (trust on first use; the worker keeps the
pins in ``table_keys``). A pinned key is never replaced. :meth:`TableKeys.verdict` judges a
message (docs/backend.md, "Trust"):

* **A table with a key**: a message must carry that key's signature, and a ``status`` that
  names a ``public_key`` must name that key. Anything else is quarantined, its reason given.
* **A table without a key**: an unsigned message is stored unverified (``verified`` null), and
  a signed one too (counted as ``unverified``); with ``require_signatures`` both are
  quarantined. A ``status`` whose signature does not verify with the ``public_key`` it names
  is quarantined in every case: it claims a key it is not signed by.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from table_controller.integrity import public_key_from_text, raw_public_key, verify

#: Seconds between two look-ups of a table's pinned key (another worker's pin) while signed
#: messages come for a table this worker has no key for.
KEY_LOOKUP_EVERY_S: Final = 10.0
#: The most tables whose last look-up is remembered (table ids come from the broker).
MAX_LOOKUPS_REMEMBERED: Final = 10_000
#: The reasons a message is quarantined for, besides a failed check's own (``verify``'s).
UNSIGNED: Final = "unsigned"
NO_KEY: Final = "signed, but no key is known for the table"
OTHER_KEY: Final = "names another public_key than the table's"
NOT_ITS_KEY: Final = "not signed by the public_key it names"


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What a message's signature says: ``verified`` as stored, and why it is kept apart."""

    #: True: signed by the table's key; None: not checked (no key, or unsigned).
    verified: bool | None
    #: Why the message is quarantined; None: it is stored.
    quarantine: str | None = None


#: The verdict on a message no key judged: stored unverified.
NOT_JUDGED: Final = Verdict(verified=None)


def named_key(message: Mapping[str, object]) -> Ed25519PublicKey | None:
    """The ``public_key`` a status names, when the status's signature verifies with it."""
    text = message.get("public_key")
    if not isinstance(text, str):
        return None
    try:
        key = public_key_from_text(text)
    except ValueError:
        return None
    return key if verify(message, key) is True else None


def _is_status(message: Mapping[str, object]) -> bool:
    return message.get("type") == "status"


@dataclass(slots=True, kw_only=True)
class TableKeys:
    """Each table's public key, and the verdict on each message (see the module)."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    #: The keys are a keys file's: no key is pinned from a status.
    from_file: bool = False
    #: An unsigned message, or a signed one of a table without a key, is quarantined.
    require_signatures: bool = False
    #: Messages of a table with a key that its key did not verify (unsigned ones included),
    #: and statuses not signed by the key they name.
    failed: int = 0
    #: Signed messages of a table without a key.
    unverified: int = 0
    _looked_up: dict[str, float] = field(default_factory=dict)

    def known(self, table_id: str) -> bool:
        return table_id in self.keys

    def pin_candidate(self, table_id: str, message: Mapping[str, object]) -> str | None:
        """The ``public_key`` to pin for ``table_id`` from ``message``, if any.

        A status of a table without a key, signed by the key it names, when keys are pinned
        (no keys file).
        """
        if self.from_file or self.known(table_id) or not _is_status(message):
            return None
        if named_key(message) is None:
            return None
        text = message["public_key"]
        assert isinstance(text, str)
        return text

    def pin(self, table_id: str, text: str) -> bool:
        """Keep ``text`` as the table's key unless one is known; False: not a public key."""
        if self.known(table_id):
            return True
        try:
            self.keys[table_id] = public_key_from_text(text)
        except ValueError:
            return False
        return True

    def should_look_up(self, table_id: str, message: Mapping[str, object], now: float) -> bool:
        """Whether to read the table's pin from the database now (another worker's pin).

        For a signed message of a table without a key, once per :data:`KEY_LOOKUP_EVERY_S`.
        """
        if self.from_file or self.known(table_id) or "sig" not in message:
            return False
        last = self._looked_up.get(table_id)
        if last is not None and now - last < KEY_LOOKUP_EVERY_S:
            return False
        if len(self._looked_up) >= MAX_LOOKUPS_REMEMBERED:
            self._looked_up.clear()
        self._looked_up[table_id] = now
        return True

    def verdict(self, table_id: str, message: Mapping[str, object]) -> Verdict:
        """The verdict on ``message`` of ``table_id`` (see the module)."""
        key = self.keys.get(table_id)
        if key is None:
            return self._without_key(message)
        checked = verify(message, key)
        if checked is not True:
            self.failed += 1
            return Verdict(verified=False, quarantine=checked if "sig" in message else UNSIGNED)
        named = message.get("public_key") if _is_status(message) else None
        if named is not None and not _same_key(named, key):
            self.failed += 1
            return Verdict(verified=False, quarantine=OTHER_KEY)
        return Verdict(verified=True)

    def _without_key(self, message: Mapping[str, object]) -> Verdict:
        named = message.get("public_key") if _is_status(message) else None
        if named is not None and named_key(message) is None:
            self.failed += 1
            return Verdict(verified=False, quarantine=NOT_ITS_KEY)
        if "sig" in message:
            self.unverified += 1
            return Verdict(verified=None, quarantine=NO_KEY if self.require_signatures else None)
        return (
            Verdict(verified=None, quarantine=UNSIGNED) if self.require_signatures else NOT_JUDGED
        )


def _same_key(text: object, key: Ed25519PublicKey) -> bool:
    if not isinstance(text, str):
        return False
    try:
        return raw_public_key(public_key_from_text(text)) == raw_public_key(key)
    except ValueError:
        return False

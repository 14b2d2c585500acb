# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Checking the signature of every message a consumer receives (``watch --verify``).

Pure: no I/O. Each table's public key is the one given (``--public-key``, pinned for every
table) or else the ``public_key`` of the first ``status`` received from the table (its retained
birth); every later message, statuses included, is checked against that key, so a status
carrying another key fails. A message that arrives before its table's key waits for it; one
still waiting when the consumer stops is a failure (:meth:`SignatureChecker.finish`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from table_controller.integrity.signing import public_key_from_text, verify

#: Messages kept per table while its key is unknown (older ones fail as unverifiable).
MAX_WAITING: Final = 1000


@dataclass(frozen=True, slots=True, kw_only=True)
class SignatureFailure:
    """A message whose signature did not check out, and why."""

    table_id: str
    topic: str
    seq: object
    type: object
    reason: str


@dataclass(slots=True)
class _Table:
    key: Ed25519PublicKey | None = None
    waiting: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)


class SignatureChecker:
    """Checks every message of every table against the table's public key; counts them."""

    def __init__(self, pinned: Ed25519PublicKey | None = None) -> None:
        self._pinned = pinned
        self._tables: dict[str, _Table] = {}
        self.checked = 0
        self.failed = 0

    def check(
        self, table_id: str, topic: str, message: Mapping[str, object]
    ) -> list[SignatureFailure]:
        """Check one message (and any that waited for its table's key); the failures."""
        table = self._tables.setdefault(table_id, _Table(key=self._pinned))
        failures: list[SignatureFailure] = []
        if table.key is None and message.get("type") == "status":
            text = message.get("public_key")
            try:
                table.key = public_key_from_text(text) if isinstance(text, str) else None
            except ValueError as error:
                failures.append(self._failed(table_id, topic, message, f"public_key: {error}"))
                return failures
        if table.key is None:
            table.waiting.append((topic, message))
            if len(table.waiting) > MAX_WAITING:
                old_topic, old = table.waiting.pop(0)
                failures.append(self._failed(table_id, old_topic, old, "no public key known"))
            return failures
        waiting, table.waiting = table.waiting, []
        for waited_topic, waited in [*waiting, (topic, message)]:
            failure = self._verify(table_id, waited_topic, waited, table.key)
            if failure is not None:
                failures.append(failure)
        return failures

    def finish(self) -> list[SignatureFailure]:
        """The messages still waiting for a key: failures, as nothing could check them."""
        failures = [
            self._failed(table_id, topic, message, "no public key known (no status received)")
            for table_id, table in self._tables.items()
            for topic, message in table.waiting
        ]
        for table in self._tables.values():
            table.waiting.clear()
        return failures

    def _verify(
        self, table_id: str, topic: str, message: Mapping[str, object], key: Ed25519PublicKey
    ) -> SignatureFailure | None:
        verdict = verify(message, key)
        if verdict is True:
            self.checked += 1
            return None
        return self._failed(table_id, topic, message, verdict)

    def _failed(
        self, table_id: str, topic: str, message: Mapping[str, object], reason: str
    ) -> SignatureFailure:
        self.checked += 1
        self.failed += 1
        return SignatureFailure(
            table_id=table_id,
            topic=topic,
            seq=message.get("seq"),
            type=message.get("type"),
            reason=reason,
        )

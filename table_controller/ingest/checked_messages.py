# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A message as the ingest received it, and the same message checked against the contract.

:func:`check` parses a payload and keeps what the projections will need of it (the envelope,
a status's row, a round's version, an alarm's row); a message that is not one of the
contract raises :class:`projections.BadMessage`. Nothing here touches the database. The
records are msgspec structs, frozen: made per message, at a tenth of a frozen dataclass's
cost, and left out of the garbage collector's rounds (``gc=False``: they are never part of a
reference cycle, what they hold never refers back to them).
"""

from __future__ import annotations

import msgspec

from table_controller.ingest import projections as p


class Received(msgspec.Struct, frozen=True, gc=False):
    """A message as the broker delivered it, and the verdict on its signature (or None).

    ``quarantine``: why the message is kept apart (``table_keys.py``); None: it is stored.
    ``data``: the payload as the worker parsed it (``projections.parse(exact=False)``), so that
    it is parsed once; None: :func:`check` parses it.
    """

    topic: str
    payload: bytes
    verified: bool | None
    quarantine: str | None = None
    data: dict[str, object] | None = None


class CheckedMessage(msgspec.Struct, frozen=True, gc=False):
    """A message checked against the contract, with what its projections need."""

    envelope: p.Envelope
    status: dict[str, object] | None = None
    version: p.RoundVersion | None = None
    alarm: dict[str, object] | None = None


class NumberedMessage(msgspec.Struct, frozen=True, gc=False):
    """A message with a ``seq`` to insert: where it stands in its batch, and its check."""

    index: int
    received: Received
    item: CheckedMessage

    @property
    def table_id(self) -> str:
        return self.item.envelope.table_id

    @property
    def seq(self) -> int:
        assert self.item.envelope.seq is not None
        return self.item.envelope.seq

    @property
    def key(self) -> tuple[str, int]:
        """``(table_id, seq)``: the message's key in ``messages``."""
        return self.item.envelope.table_id, self.seq


def check(received: Received) -> CheckedMessage:
    """Check one message (parsed here unless it was); raises :class:`projections.BadMessage`.

    A round's message and an alarm are read again with exact numbers, for their settlement and
    details.
    """
    data = received.data if received.data is not None else p.parse(received.payload)
    envelope = p.envelope(data, received.topic)
    kind = envelope.type
    if kind == "status":
        return CheckedMessage(envelope, status=p.status_row(data))
    if kind in p.ROUND_TYPES:
        exact = p.parse(received.payload)
        return CheckedMessage(envelope, version=p.round_version(exact, envelope.seq or 0, kind))
    if kind in p.SHOE_TYPES:
        p.shoe_fields(data, kind)
    elif kind == "alarm":
        return CheckedMessage(envelope, alarm=p.alarm_row(p.parse(received.payload)))
    return CheckedMessage(envelope)

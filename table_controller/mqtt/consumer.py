# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a backend does with the table's messages: deduplicate, find gaps, spot stale wills.

Pure: no I/O, no clock, no randomness. The reference consumer (``table-controller watch``)
feeds every received message to :class:`StreamTracker` and prints what it returns; a backend
can use the same rules (docs/mqtt-api.md, "`seq`: order, gaps and duplicates"):

* ``seq`` rises by one per message of a table. A ``seq`` seen before is a **duplicate**
  (normal with QoS 1: drop it). A ``seq`` above the next expected one opens a **gap** of the
  ``seq`` between; a message that arrives later inside a gap is **late** and closes that part
  of it (MQTT orders only per topic, so a small reordering is not a loss).
* The first live message of a table sets where counting starts: a consumer that joins late
  does not report the table's whole history as missing. Retained messages delivered on
  subscribing are snapshots, not the stream, and are not counted.
* ``<root>/status`` messages (birth, will, clean shutdown) carry no ``seq`` and are left out
  of the counting; their ``session`` counter orders them. An offline status whose session is
  older than the latest online one is a **stale will** (a session takeover or a will the
  broker delivered late) and is ignored.
* A current status's ``last_seq`` is the highest ``seq`` the table had given a message when
  the status was written. Above the highest ``seq`` received, it names messages that are
  **outstanding**: still in flight (a birth goes out before the messages left unacknowledged
  on connecting) or lost. A will's ``last_seq`` dates from its connection's start, so it may
  lag behind what that connection published; it is never too high.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

#: How many separate gap ranges are remembered per table; the oldest are forgotten beyond it.
MAX_OPEN_GAPS: Final = 1024

Verdict: TypeAlias = Literal["new", "duplicate", "late", "gap"]
StatusVerdict: TypeAlias = Literal["current", "stale"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeqObservation:
    """What one ``seq`` meant. ``missing`` lists the ranges newly found missing (for ``gap``)."""

    verdict: Verdict
    seq: int
    missing: tuple[tuple[int, int], ...] = ()


@dataclass(slots=True)
class _TableStream:
    #: The highest ``seq`` seen; ``None`` until the first live message (status aside).
    highest: int | None = None
    #: Disjoint, sorted inclusive ranges of ``seq`` not received yet.
    gaps: list[tuple[int, int]] = field(default_factory=list)
    online_session: int = 0
    latest_session: int = 0


def _remove_from_gaps(gaps: list[tuple[int, int]], seq: int) -> bool:
    """Take ``seq`` out of the ranges; ``True`` when it was missing."""
    for index, (low, high) in enumerate(gaps):
        if low <= seq <= high:
            replacement = [(a, b) for a, b in ((low, seq - 1), (seq + 1, high)) if a <= b]
            gaps[index : index + 1] = replacement
            return True
    return False


class StreamTracker:
    """Per-table ``seq`` and session bookkeeping for a consumer of many tables."""

    def __init__(self) -> None:
        self._tables: dict[str, _TableStream] = {}

    def observe(self, table_id: str, seq: int) -> SeqObservation:
        """Account for one live (not retained, not status) message of ``table_id``."""
        stream = self._tables.setdefault(table_id, _TableStream())
        if stream.highest is None or seq == stream.highest + 1:
            stream.highest = seq
            return SeqObservation(verdict="new", seq=seq)
        if seq > stream.highest:
            missing = (stream.highest + 1, seq - 1)
            stream.gaps.append(missing)
            del stream.gaps[:-MAX_OPEN_GAPS]
            stream.highest = seq
            return SeqObservation(verdict="gap", seq=seq, missing=(missing,))
        if _remove_from_gaps(stream.gaps, seq):
            return SeqObservation(verdict="late", seq=seq)
        return SeqObservation(verdict="duplicate", seq=seq)

    def open_gaps(self, table_id: str) -> tuple[tuple[int, int], ...]:
        """The ``seq`` ranges of ``table_id`` still missing."""
        stream = self._tables.get(table_id)
        return () if stream is None else tuple(stream.gaps)

    def highest(self, table_id: str) -> int | None:
        stream = self._tables.get(table_id)
        return None if stream is None else stream.highest

    def outstanding(self, table_id: str, last_seq: int) -> tuple[int, int] | None:
        """The ``seq`` range up to a current status's ``last_seq`` not received yet, if any.

        ``None`` as well before the first live message, where counting has not started.
        """
        stream = self._tables.get(table_id)
        if stream is None or stream.highest is None or last_seq <= stream.highest:
            return None
        return (stream.highest + 1, last_seq)

    def observe_status(self, table_id: str, *, online: bool, session: int) -> StatusVerdict:
        """Whether a status message is current or a stale will / stale birth."""
        stream = self._tables.setdefault(table_id, _TableStream())
        if session < stream.latest_session or (not online and session < stream.online_session):
            return "stale"
        stream.latest_session = session
        if online:
            stream.online_session = max(stream.online_session, session)
        return "current"


@dataclass(frozen=True, slots=True, kw_only=True)
class Incoming:
    """A received message as the consumer reads it; ``message`` is ``None`` when unreadable."""

    table_id: str
    channel: str
    message: dict[str, object] | None
    retained: bool


def read_message(topic: str, payload: bytes, *, prefix: str, retained: bool) -> Incoming | None:
    """Split ``<prefix>/<table>/<channel...>`` and decode the JSON; ``None`` if off-prefix."""
    head = prefix.rstrip("/") + "/"
    if not topic.startswith(head):
        return None
    table_id, _, channel = topic[len(head) :].partition("/")
    try:
        decoded = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError):
        decoded = None
    message = decoded if isinstance(decoded, dict) else None
    return Incoming(table_id=table_id, channel=channel, message=message, retained=retained)


def seq_of(message: dict[str, object], key: str = "seq") -> int | None:
    """The message's ``seq`` (or ``key``, such as ``last_seq``) when it is a usable integer."""
    seq = message.get(key)
    if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0:
        return seq
    return None

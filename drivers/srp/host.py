# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The host side of SRP/1: acknowledgements, duplicates, sequence gaps, liveness, lamp.

Pure: no I/O, no clock, no randomness, no logging. Time comes in as ``now`` (any monotonic
clock, in seconds); the adapter asks ``deadline()`` when to call ``on_deadline(now)``.

Theory of operation (shoe-protocol.md, "Delivery"):

* Every frame from the shoe carries ``seq``, +1 per new frame, wrapping at 65536. The shoe
  sends one acknowledged frame at a time and resends it with the same ``seq`` every 250 ms
  until it is acknowledged, queueing the next frames behind it. So a genuine resend always
  repeats the newest frame exactly.
* A new acknowledged frame (``HELLO``, ``CARD``, ``CUT``, ``MISREAD``) is delivered once, with
  a ``Delivery`` handle. Its ``ACK`` is queued only when the caller calls ``confirm(handle)``
  after recording it durably.
* A resend of the newest frame is never delivered again. If it was confirmed, it is
  acknowledged again at once (our ACK was lost); if not, its ACK still waits for ``confirm``.
* A ``seq`` more than one ahead means frames were lost: ``FramesLost`` comes first, then the
  frame. The session never guesses what was lost.
* ``HELLO`` starts a new epoch: its ``seq`` restarts (at 0) without a gap, handles of the old
  epoch are no longer acknowledged, and unsent ACKs of the old epoch are dropped, because the
  same numbers now name other frames.
* A frame reusing the newest ``seq`` with other content, or a ``seq`` behind it, is not a
  resend and not new: it is rejected (``seq_reused``, ``seq_behind``), never acted on.
* The first frame after the session starts sets the baseline (no gap can be known).
* Liveness: while connected, 3 s without a valid shoe frame (``OFFLINE_AFTER_S``) reports
  ``ReaderOffline`` and marks the connection ``silent``; a lost or unopenable connection
  reports it at once. Each is reported once; the next valid frame reports ``ReaderOnline``.
  Rejected bytes are not a sign of life.
* Lamp: ``set_lamp`` queues a ``LAMP`` frame. The last lamp state is sent again whenever the
  reader comes (back) online and after each ``HELLO``, since a restarted shoe lost it.
* ``STATUS`` and ``HB`` are never acknowledged; ``HB`` only shows the reader is alive.
"""

from __future__ import annotations

import collections
from typing import Final

from drivers.events import (
    CardMisread,
    CardSeen,
    CutCardSeen,
    Delivery,
    FramesLost,
    LineRejected,
    ReaderEvent,
    ReaderHello,
    ReaderOffline,
    ReaderOnline,
    ReaderStatus,
)
from drivers.srp.codec import FrameDecoder, FrameRejected
from drivers.srp.constants import OFFLINE_AFTER_S, SEQ_MODULUS, Lamp, ShoeState
from drivers.srp.frames import ACKNOWLEDGED_TYPES, Frame, FrameType, Talker

__all__ = ["SILENT_REASON", "HostSession", "SessionRejectReason"]

#: ``ReaderOffline.reason`` when the reader fell silent.
SILENT_REASON: Final = f"no frame for {OFFLINE_AFTER_S:g} s"
#: Deliveries awaiting ``confirm`` that are remembered; a caller that never confirms cannot
#: make the session grow without bound.
MAX_UNCONFIRMED: Final = 64
_HALF_SEQ_RANGE: Final = SEQ_MODULUS // 2


class SessionRejectReason:
    """Reasons the session itself (not the codec) drops a well-formed frame."""

    #: A host frame came back from the line: the port or a bridge echoes what we send.
    FROM_HOST: Final = "from_host"
    #: The newest ``seq`` again with other content: not a resend.
    SEQ_REUSED: Final = "seq_reused"
    #: A ``seq`` behind the newest one (other than a ``HELLO``).
    SEQ_BEHIND: Final = "seq_behind"


class HostSession:
    """The SRP/1 host session for one shoe, kept across reconnections of the port.

    Attributes:
        rejected: How many lines were rejected, by reason (codec and session reasons).
    """

    def __init__(self) -> None:
        self.rejected: collections.Counter[str] = collections.Counter()
        self._decoder = FrameDecoder()
        self._epoch = 0
        #: The newest new frame from the shoe, against which a resend is recognised.
        self._newest: Frame | None = None
        #: seq -> delivered in this epoch and waiting for ``confirm`` (insertion ordered).
        self._unconfirmed: dict[int, None] = {}
        #: None until first heard, then whether the reader is online.
        self._online: bool | None = None
        self._connected = False
        self._silent = False
        self._heard_at = 0.0
        self._host_seq = 0
        self._outgoing: list[tuple[FrameType, str]] = []
        self._lamp: Lamp | None = None

    @property
    def epoch(self) -> int:
        """The current epoch: 0 before any ``HELLO``, +1 at each."""
        return self._epoch

    @property
    def online(self) -> bool | None:
        """Whether the reader is online; None until it is first heard or lost."""
        return self._online

    @property
    def silent(self) -> bool:
        """Whether the current connection heard no valid frame for 3 s (reopen it)."""
        return self._silent

    @property
    def lamp(self) -> Lamp | None:
        """The lamp state last asked for, if any."""
        return self._lamp

    def connection_made(self, now: float) -> list[ReaderEvent]:
        """The port is open; the 3 s watchdog starts now. Online waits for a valid frame."""
        self._connected = True
        self._silent = False
        self._heard_at = now
        return []

    def connection_lost(self, now: float, reason: str) -> list[ReaderEvent]:  # noqa: ARG002
        """The port closed, failed, or could not be opened.

        Args:
            now: The adapter's monotonic time (kept for the common session shape).
            reason: Why, for ``ReaderOffline``.

        Returns:
            Rejections for a frame cut short, then ``ReaderOffline`` unless already reported.
        """
        self._connected = False
        self._silent = False
        events: list[ReaderEvent] = [self._rejection(item) for item in self._decoder.reset()]
        if self._online is not False:
            self._online = False
            events.append(ReaderOffline(reason=reason))
        return events

    def receive_data(self, data: bytes, now: float) -> list[ReaderEvent]:
        """Bytes from the shoe.

        Args:
            data: Whatever the port read, split anywhere.
            now: The adapter's monotonic time when they were read.

        Returns:
            Events in line order.
        """
        events: list[ReaderEvent] = []
        for item in self._decoder.feed(data):
            if isinstance(item, FrameRejected):
                events.append(self._rejection(item))
            elif item.talker is Talker.HOST:
                events.append(self._reject(SessionRejectReason.FROM_HOST, item))
            else:
                events.extend(self._on_shoe_frame(item, now))
        return events

    def confirm(self, delivery: Delivery | None) -> None:
        """The caller has durably recorded the event carrying ``delivery``: queue its ACK.

        A handle of an earlier epoch, one already confirmed, or None is ignored.
        """
        if delivery is None or delivery.epoch != self._epoch:
            return
        if delivery.seq in self._unconfirmed:
            del self._unconfirmed[delivery.seq]
            self._queue(FrameType.ACK, str(delivery.seq))

    def set_lamp(self, lamp: Lamp) -> None:
        """Light the shoe's indicator; the frame waits in ``data_to_send`` until written."""
        self._lamp = Lamp(lamp)
        self._queue_lamp()

    def data_to_send(self) -> bytes:
        """The host frames to write now, each with the next host ``seq``; empties the queue."""
        chunks = []
        for frame_type, field in self._outgoing:
            frame = Frame(talker=Talker.HOST, seq=self._host_seq, type=frame_type, fields=(field,))
            self._host_seq = (self._host_seq + 1) % SEQ_MODULUS
            chunks.append(frame.encode())
        self._outgoing.clear()
        return b"".join(chunks)

    def deadline(self) -> float | None:
        """When to call ``on_deadline``: 3 s after the last sign of life, while connected."""
        if not self._connected or self._silent:
            return None
        return self._heard_at + OFFLINE_AFTER_S

    def on_deadline(self, now: float) -> list[ReaderEvent]:
        """Check liveness at ``now`` (calling early, or more than once, is harmless)."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return []
        self._silent = True
        if self._online is not False:
            self._online = False
            return [ReaderOffline(reason=SILENT_REASON)]
        return []

    def _on_shoe_frame(self, frame: Frame, now: float) -> list[ReaderEvent]:
        events: list[ReaderEvent] = []
        self._heard_at = now
        self._silent = False
        if self._online is not True:
            self._online = True
            events.append(ReaderOnline())
            self._queue_lamp()
        newest = self._newest
        if frame == newest:
            if frame.type in ACKNOWLEDGED_TYPES and frame.seq not in self._unconfirmed:
                self._queue(FrameType.ACK, str(frame.seq))
            return events
        if frame.type is FrameType.HELLO:
            self._start_epoch()
        elif newest is not None:
            ahead = (frame.seq - newest.seq) % SEQ_MODULUS
            if ahead == 0:
                return [*events, self._reject(SessionRejectReason.SEQ_REUSED, frame)]
            if ahead > _HALF_SEQ_RANGE:
                return [*events, self._reject(SessionRejectReason.SEQ_BEHIND, frame)]
            if ahead > 1:
                expected = (newest.seq + 1) % SEQ_MODULUS
                events.append(
                    FramesLost(expected_seq=expected, received_seq=frame.seq, count=ahead - 1)
                )
        self._newest = frame
        delivered = self._event_for(frame)
        if delivered is not None:
            events.append(delivered)
        return events

    def _start_epoch(self) -> None:
        self._epoch += 1
        self._unconfirmed.clear()
        self._outgoing = [item for item in self._outgoing if item[0] is not FrameType.ACK]
        self._queue_lamp()

    def _event_for(self, frame: Frame) -> ReaderEvent | None:
        delivery = None
        if frame.type in ACKNOWLEDGED_TYPES:
            delivery = Delivery(epoch=self._epoch, seq=frame.seq)
            self._unconfirmed[frame.seq] = None
            while len(self._unconfirmed) > MAX_UNCONFIRMED:
                del self._unconfirmed[next(iter(self._unconfirmed))]
        match frame.type:
            case FrameType.HELLO:
                model, firmware, serial = frame.fields
                return ReaderHello(model=model, firmware=firmware, serial=serial, delivery=delivery)
            case FrameType.CARD:
                return CardSeen(card=frame.fields[0], burn_mode=False, delivery=delivery)
            case FrameType.CUT:
                return CutCardSeen(delivery=delivery)
            case FrameType.MISREAD:
                return CardMisread(delivery=delivery)
            case FrameType.STATUS:
                code = frame.fields[1] if len(frame.fields) > 1 else None
                return ReaderStatus(state=ShoeState(frame.fields[0]), code=code)
            case _:
                return None

    def _queue(self, frame_type: FrameType, field: str) -> None:
        self._outgoing.append((frame_type, field))

    def _queue_lamp(self) -> None:
        """Queue the current lamp state, replacing any lamp frame not yet sent."""
        if self._lamp is None:
            return
        self._outgoing = [item for item in self._outgoing if item[0] is not FrameType.LAMP]
        self._queue(FrameType.LAMP, self._lamp.value)

    def _rejection(self, rejected: FrameRejected) -> LineRejected:
        self.rejected[rejected.reason.value] += 1
        return LineRejected(reason=rejected.reason.value, raw=rejected.raw)

    def _reject(self, reason: str, frame: Frame) -> LineRejected:
        self.rejected[reason] += 1
        return LineRejected(reason=reason, raw=frame.encode())

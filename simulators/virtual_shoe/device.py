# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shoe side of SRP/1 (docs/shoe-protocol.md), as a session with time passed in.

Pure: no I/O, no clock, no randomness, no logging. The adapter feeds it what the host sent
(``receive_data``), what the dealer drew (``emit``), the state of the link and the passing
of time (``on_deadline`` at ``deadline()``); it writes out whatever ``data_to_send`` returns.

Theory of operation:

* On power-up (``start``) and after a power cycle the shoe sends ``HELLO`` with ``seq`` 0.
* ``HELLO``, ``CARD``, ``CUT`` and ``MISREAD`` wait for the host's ``ACK``. The frame in
  flight is resent with the same ``seq`` every 250 ms, at most 8 times; then it is abandoned
  (the host sees the gap in ``seq``). Frames behind it wait in order; a ``seq`` is given to a
  frame only when it is first sent, so ``seq`` order is line order.
* ``STATUS`` and ``HB`` are not acknowledged. ``HB`` goes out once a second while nothing
  else is being sent. ``seq`` wraps from 65535 to 0.
* While the link is down (port unplugged, no TCP client) or the shoe is stalled, nothing is
  sent and no resend is counted; when it comes back the frame in flight goes out again at
  once, same ``seq``, with a fresh budget of resends. Unplugging is not a power cycle: no
  ``HELLO``, and the host's duplicate detection by ``seq`` still holds across it.
* A power cycle strikes between frames: asked for while a frame is in flight, it waits until
  that frame is acknowledged or given up. (Restarting mid-frame would leave the host unable
  to tell a resend from a new card: ``HELLO`` restarts ``seq``.) Frames queued behind are
  kept, as in a shoe's non-volatile memory, and sent after the new ``HELLO`` with new
  ``seq`` values. The lamp goes out: the host lights it again.
* The line is first in, first out: a delayed or split transmission holds back what follows.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

from drivers.srp.codec import FrameDecoder, FrameRejected, RejectReason
from drivers.srp.constants import HEARTBEAT_INTERVAL_S, MAX_RESENDS, RESEND_INTERVAL_S, Lamp
from drivers.srp.frames import ACKNOWLEDGED_TYPES, SEQ_MODULUS, Frame, FrameType, Talker
from simulators.virtual_shoe.faults import (
    Dealt,
    DealtCard,
    DealtCutCard,
    DealtMisread,
    FaultPlan,
    FrameFault,
    Line,
    ShoeRanOut,
    apply_frame_faults,
)

# --- what a shoe session reports ----------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class LampLit:
    """The host lit the shoe's lamp."""

    lamp: Lamp


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameAcknowledged:
    """The host acknowledged the frame in flight (``card``: its draw number, if any)."""

    seq: int
    type: FrameType
    card: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameAbandoned:
    """A frame went unacknowledged through every resend and was given up."""

    seq: int
    type: FrameType
    card: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HostBytesRejected:
    """Bytes from the host that were not a valid host frame (counted, never acted on)."""

    reason: str
    raw: bytes


DeviceEvent: TypeAlias = LampLit | FrameAcknowledged | FrameAbandoned | HostBytesRejected


class ShoeSession(Protocol):
    """What the server needs of a shoe protocol: SRP/1 (``ShoeDevice``) or Bee-Tek."""

    @property
    def lamp(self) -> Lamp | None:
        """The lamp the host lit last; None for a protocol without a lamp."""

    @property
    def awaiting_ack(self) -> bool:
        """Whether a frame is still waiting for the host (queued or in flight)."""

    def start(self, now: float) -> None:
        """The shoe is switched on."""

    def power_cycle(self, now: float) -> None:
        """The shoe loses power and comes back."""

    def port_opened(self, now: float) -> None:
        """The port was plugged in (for TCP: a client connected)."""

    def port_closed(self, now: float) -> None:
        """The port was unplugged (for TCP: the client went)."""

    def stall(self, seconds: float, now: float) -> None:
        """The shoe sends nothing at all for ``seconds``."""

    def emit(self, dealt: Dealt, now: float) -> None:
        """Report what the dealer drew."""

    def receive_data(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Bytes from the host."""

    def data_to_send(self) -> bytes:
        """Bytes to write to the port now (and forget)."""

    def deadline(self) -> float | None:
        """When ``on_deadline`` must next be called; None if nothing is timed."""

    def on_deadline(self, now: float) -> list[DeviceEvent]:
        """Do what is due at ``now``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeIdentity:
    """What the shoe says in ``HELLO``."""

    model: str = "VirtualShoe"
    firmware: str = "1.0"
    serial: str = "VS-0001"


@dataclass(slots=True, kw_only=True)
class _Queued:
    type: FrameType
    fields: tuple[str, ...] = ()
    card: int | None = None


@dataclass(slots=True, kw_only=True)
class _InFlight:
    frame: Frame
    card: int | None
    #: Transmissions since the budget of resends was last renewed.
    transmissions: int = 0
    #: Transmissions ever, which the frame faults count (``times``).
    transmissions_ever: int = 0
    next_at: float = 0.0


@dataclass(slots=True, kw_only=True)
class DeviceCounters:
    """What the shoe did, for reports and tests."""

    frames_sent: int = 0
    resends: int = 0
    abandoned: int = 0
    acknowledged: int = 0
    stale_acks: int = 0
    heartbeats: int = 0
    host_rejected: collections.Counter[str] = field(default_factory=collections.Counter)


class ShoeDevice:
    """An SRP/1 shoe: frames out, ``ACK`` and ``LAMP`` in, resends and heartbeats on time.

    Args:
        identity: What ``HELLO`` says.
        faults: The plan whose frame faults (drop, corrupt, split, delay) this device applies
            to the frames of the draws they name.
    """

    def __init__(
        self, *, identity: ShoeIdentity | None = None, faults: FaultPlan | None = None
    ) -> None:
        self._identity = identity or ShoeIdentity()
        self._faults = faults or FaultPlan()
        self._decoder = FrameDecoder()
        self._next_seq = 0
        self._queue: collections.deque[_Queued] = collections.deque()
        self._in_flight: _InFlight | None = None
        self._line = Line()
        self._connected = False
        self._muted_until: float | None = None
        self._last_sent_at: float | None = None
        self._empty_reported = False
        self._restart_pending = False
        self._lamp = Lamp.OFF
        self.counters = DeviceCounters()

    # --- the session interface ---

    @property
    def lamp(self) -> Lamp:
        """The lamp the host lit last (``OFF`` after power-up)."""
        return self._lamp

    @property
    def awaiting_ack(self) -> bool:
        """Whether a frame is still waiting for the host (queued or in flight)."""
        return self._in_flight is not None or any(
            item.type in ACKNOWLEDGED_TYPES for item in self._queue
        )

    @property
    def next_seq(self) -> int:
        """The ``seq`` the next new frame will carry."""
        return self._next_seq

    def start(self, now: float) -> None:
        """Power up: ``HELLO`` with ``seq`` 0 goes first."""
        self._next_seq = 0
        self._queue.appendleft(_Queued(type=FrameType.HELLO, fields=self._hello_fields()))
        self._pump(now)

    @property
    def restart_pending(self) -> bool:
        """Whether a power cycle waits for the frame in flight."""
        return self._restart_pending

    def power_cycle(self, now: float) -> None:
        """Lose power and come back: a new ``HELLO``; frames not yet sent are kept.

        With a frame in flight the restart waits until it is acknowledged or given up.
        """
        if self._in_flight is not None:
            self._restart_pending = True
            return
        self._restart_pending = False
        self._queue = collections.deque(
            item for item in self._queue if item.type is not FrameType.HELLO
        )
        # Bytes already on the line (held back by a delay) still arrive: the line has no switch.
        self._decoder = FrameDecoder()
        self._muted_until = None
        self._last_sent_at = None
        self._empty_reported = False
        self._lamp = Lamp.OFF
        self.start(now)

    def port_opened(self, now: float) -> None:
        """The port was plugged in: the frame in flight goes again at once."""
        if not self._connected:
            self._connected = True
            self._resume(now)

    def port_closed(self, now: float) -> None:  # noqa: ARG002 - the session interface
        """The port was unplugged: bytes on the line are lost, frames wait in the queue."""
        self._connected = False
        self._line.cut()
        self._decoder.reset()

    def stall(self, seconds: float, now: float) -> None:
        """Send nothing at all, heartbeats included, for ``seconds``."""
        self._muted_until = max(self._muted_until or now, now + seconds)

    def emit(self, dealt: Dealt, now: float) -> None:
        """Queue the frame that reports what the dealer drew."""
        match dealt:
            case DealtCard(number=number, card=card):
                self._queue.append(_Queued(type=FrameType.CARD, fields=(card,), card=number))
            case DealtCutCard(number=number):
                self._queue.append(_Queued(type=FrameType.CUT, card=number))
            case DealtMisread(number=number):
                self._queue.append(_Queued(type=FrameType.MISREAD, card=number))
            case ShoeRanOut():
                if self._empty_reported:
                    return
                self._empty_reported = True
                self._queue.append(_Queued(type=FrameType.STATUS, fields=("EMPTY",)))
        self._pump(now)

    def receive_data(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Act on the host's ``ACK`` and ``LAMP`` frames; anything else is counted."""
        events: list[DeviceEvent] = []
        for item in self._decoder.feed(data):
            if isinstance(item, FrameRejected):
                events.append(self._rejected(item.reason, item.raw))
            elif item.talker is not Talker.HOST:
                events.append(self._rejected("not_from_host", item.body()))
            elif item.type is FrameType.LAMP:
                self._lamp = Lamp(item.fields[0])
                events.append(LampLit(lamp=self._lamp))
            elif item.type is FrameType.ACK:
                events.extend(self._acknowledge(int(item.fields[0]), now))
        return events

    def data_to_send(self) -> bytes:
        """Bytes due on the line now."""
        return self._line.take()

    def deadline(self) -> float | None:
        """When something is next due: a piece of a delayed frame, a resend, a heartbeat."""
        times: list[float] = []
        if self._line.next_at is not None:
            times.append(self._line.next_at)
        if self._connected:
            if self._muted_until is not None:
                times.append(self._muted_until)
            elif self._in_flight is not None:
                times.append(self._in_flight.next_at)
            elif not self._queue:
                times.append(self._heartbeat_due())
        return min(times) if times else None

    def on_deadline(self, now: float) -> list[DeviceEvent]:
        """Release due line bytes, resend or abandon the frame in flight, send a heartbeat."""
        events: list[DeviceEvent] = []
        self._line.release(now)
        if self._muted_until is not None and now >= self._muted_until:
            self._muted_until = None
            self._resume(now)
        if not self._can_send(now):
            return events
        flight = self._in_flight
        if flight is not None and now >= flight.next_at:
            if flight.transmissions <= MAX_RESENDS:
                self.counters.resends += 1
                self._transmit_in_flight(flight, now)
            else:
                self.counters.abandoned += 1
                events.append(
                    FrameAbandoned(seq=flight.frame.seq, type=flight.frame.type, card=flight.card)
                )
                self._in_flight = None
                self._flight_over(now)
        if self._in_flight is None and not self._queue and now >= self._heartbeat_due():
            self.counters.heartbeats += 1
            self._transmit(self._new_frame(FrameType.HB), (), now)
        return events

    # --- internals ---

    def _hello_fields(self) -> tuple[str, ...]:
        identity = self._identity
        return (identity.model, identity.firmware, identity.serial)

    def _rejected(self, reason: RejectReason | str, raw: bytes) -> HostBytesRejected:
        self.counters.host_rejected[str(reason)] += 1
        return HostBytesRejected(reason=str(reason), raw=raw)

    def _acknowledge(self, seq: int, now: float) -> list[DeviceEvent]:
        flight = self._in_flight
        if flight is None or flight.frame.seq != seq:
            self.counters.stale_acks += 1
            return []
        self.counters.acknowledged += 1
        self._in_flight = None
        self._flight_over(now)
        return [FrameAcknowledged(seq=seq, type=flight.frame.type, card=flight.card)]

    def _flight_over(self, now: float) -> None:
        """The frame in flight was acknowledged or given up: restart if asked, else go on."""
        if self._restart_pending:
            self.power_cycle(now)
        else:
            self._pump(now)

    def _can_send(self, now: float) -> bool:
        return self._connected and (self._muted_until is None or now >= self._muted_until)

    def _heartbeat_due(self) -> float:
        if self._last_sent_at is None:
            return float("-inf")
        return self._last_sent_at + HEARTBEAT_INTERVAL_S

    def _resume(self, now: float) -> None:
        """The line is usable again: the frame in flight goes at once, with a fresh budget."""
        self._last_sent_at = None
        if not self._can_send(now):
            return
        if self._in_flight is not None:
            self._in_flight.transmissions = 0
            self._transmit_in_flight(self._in_flight, now)
        self._pump(now)

    def _new_frame(self, frame_type: FrameType, fields: tuple[str, ...] = ()) -> Frame:
        seq = self._next_seq
        self._next_seq = (seq + 1) % SEQ_MODULUS
        return Frame(talker=Talker.SHOE, seq=seq, type=frame_type, fields=fields)

    def _pump(self, now: float) -> None:
        """Send queued frames while none is waiting for its ``ACK``."""
        while self._in_flight is None and self._queue and self._can_send(now):
            item = self._queue.popleft()
            frame = self._new_frame(item.type, item.fields)
            if frame.type in ACKNOWLEDGED_TYPES:
                self._in_flight = _InFlight(frame=frame, card=item.card)
                self._transmit_in_flight(self._in_flight, now)
            else:
                self._transmit(frame, (), now)

    def _transmit_in_flight(self, flight: _InFlight, now: float) -> None:
        faults = self._faults.frame_faults(flight.card) if flight.card is not None else ()
        self._transmit(flight.frame, faults, now, transmission=flight.transmissions_ever)
        flight.transmissions += 1
        flight.transmissions_ever += 1
        flight.next_at = now + RESEND_INTERVAL_S

    def _transmit(
        self, frame: Frame, faults: tuple[FrameFault, ...], now: float, *, transmission: int = 0
    ) -> None:
        self.counters.frames_sent += 1
        self._last_sent_at = now
        for chunk in apply_frame_faults(frame.encode(), faults, transmission=transmission, now=now):
            self._line.put(chunk, now)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1 frame decoder: bytes in, frames or counted rejections out (shoe-protocol.md, "Frames").

Pure: no I/O, no clock, no randomness, no logging. It never raises on any input and its
buffer is bounded: at most one frame (82 bytes) plus an 82-byte sample of skipped garbage.

Recovery from garbage, written down (the decoder is a small state machine over bytes):

* **Hunting.** Bytes before a ``$`` are garbage. A garbage run ends at a LF (included) or
  just before a ``$``, and is reported once as ``FrameRejected(reason=GARBAGE)`` with the
  run's first 82 bytes. A ``$`` starts a frame.
* **In a frame.** Bytes are collected up to and including LF. A complete frame is checked
  and becomes a ``Frame`` or one ``FrameRejected``. A ``$`` before the LF means the frame was
  cut short: it is rejected as ``TRUNCATED`` and the new ``$`` starts the next frame.
* **Too long.** A frame that reaches 82 bytes without ending in LF is rejected as
  ``TOO_LONG`` (its first 82 bytes as ``raw``); the rest of that line, up to a LF or the next
  ``$``, is skipped without a second report.

Every decision depends only on the bytes seen so far, never on how they were split into
``feed`` calls, so a stream gives the same frames and rejections whatever its chunking.
"""

from __future__ import annotations

import collections
import enum
from dataclasses import dataclass
from typing import Final, TypeAlias

from drivers.srp.constants import RANKS, SUITS, Lamp, ShoeState
from drivers.srp.frames import (
    CHECKSUM_MARK,
    MAX_FRAME_BYTES,
    SEQ_MODULUS,
    START,
    Frame,
    FrameType,
    Talker,
    checksum,
)

__all__ = ["Decoded", "FrameDecoder", "FrameRejected", "RejectReason", "parse_frame"]

_LF: Final = 0x0A
_DOLLAR: Final = START[0]
_HEX_UPPER: Final = frozenset(b"0123456789ABCDEF")
_FIRST_PRINTABLE: Final = 0x20
_LAST_PRINTABLE: Final = 0x7E
_DIGITS: Final = frozenset("0123456789")
_MAX_SEQ_DIGITS: Final = len(str(SEQ_MODULUS - 1))
#: The most bytes of a rejected frame or garbage run kept in ``FrameRejected.raw``.
MAX_REJECTED_RAW: Final = MAX_FRAME_BYTES

#: Which frame types each talker may send (the two frame tables of shoe-protocol.md).
TYPES_BY_TALKER: Final = {
    Talker.SHOE: frozenset(
        {
            FrameType.HELLO,
            FrameType.CARD,
            FrameType.CUT,
            FrameType.MISREAD,
            FrameType.STATUS,
            FrameType.HB,
        }
    ),
    Talker.HOST: frozenset({FrameType.ACK, FrameType.LAMP}),
}


class RejectReason(enum.StrEnum):
    """Why bytes on the line were dropped instead of becoming a frame."""

    #: Bytes outside any frame (before a ``$``).
    GARBAGE = "garbage"
    #: A ``$`` came before the frame's LF: the frame was cut short.
    TRUNCATED = "truncated"
    #: 82 bytes without the closing LF.
    TOO_LONG = "too_long"
    #: Framing or a field is wrong: no CR LF, no ``*HH``, a bad byte, wrong field count/value.
    MALFORMED = "malformed"
    #: The two hex digits do not match the XOR of the body.
    BAD_CHECKSUM = "bad_checksum"
    #: The talker is neither ``SH`` nor ``HO``.
    BAD_TALKER = "bad_talker"
    #: ``seq`` is not a decimal number from 0 to 65535.
    BAD_SEQ = "bad_seq"
    #: The type is not one the protocol defines.
    UNKNOWN_TYPE = "unknown_type"
    #: A known type from the wrong talker (e.g. ``HO`` sending ``CARD``).
    WRONG_DIRECTION = "wrong_direction"


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameRejected:
    """Bytes that were dropped and counted, never acted on.

    Attributes:
        reason: Why they were dropped.
        raw: The offending bytes, at most the first 82.
    """

    reason: RejectReason
    raw: bytes


Decoded: TypeAlias = Frame | FrameRejected


def _fields_are_valid(frame_type: FrameType, fields: list[str]) -> bool:  # noqa: PLR0911
    """Whether ``fields`` fit ``frame_type`` (the two frame tables of shoe-protocol.md)."""
    match frame_type:
        case FrameType.HELLO:
            return len(fields) == 3 and all(fields)
        case FrameType.CARD:
            return (
                len(fields) == 1
                and len(fields[0]) == 2
                and fields[0][0] in RANKS
                and fields[0][1] in SUITS
            )
        case FrameType.CUT | FrameType.MISREAD | FrameType.HB:
            return not fields
        case FrameType.STATUS:
            if fields in (["READY"], ["EMPTY"]):
                return True
            return len(fields) == 2 and fields[0] == ShoeState.FAULT and bool(fields[1])
        case FrameType.ACK:
            return len(fields) == 1 and _parse_seq(fields[0]) is not None
        case FrameType.LAMP:
            return len(fields) == 1 and fields[0] in Lamp.__members__
    return False  # pragma: no cover - every FrameType is matched above


def _parse_seq(text: str) -> int | None:
    """A decimal ``seq`` from 0 to 65535, or None."""
    if not text or len(text) > _MAX_SEQ_DIGITS or not set(text) <= _DIGITS:
        return None
    value = int(text)
    return value if value < SEQ_MODULUS else None


def parse_frame(raw: bytes) -> Decoded:
    """Check one complete frame, ``$`` through LF, and return it or the reason it is dropped.

    Args:
        raw: The frame's bytes, from ``$`` to the final LF inclusive.

    Returns:
        The decoded frame, or a ``FrameRejected`` naming the first problem found. Never raises.
    """
    body_or_reason = _checked_body(raw)
    if isinstance(body_or_reason, RejectReason):
        return FrameRejected(reason=body_or_reason, raw=raw[:MAX_REJECTED_RAW])
    frame_or_reason = _frame_from_body(body_or_reason)
    if isinstance(frame_or_reason, RejectReason):
        return FrameRejected(reason=frame_or_reason, raw=raw)
    return frame_or_reason


def _checked_body(raw: bytes) -> str | RejectReason:
    """The printable body between ``$`` and ``*`` once length, framing and checksum are right."""
    if len(raw) > MAX_FRAME_BYTES:
        return RejectReason.TOO_LONG
    if not raw.startswith(START) or not raw.endswith(b"\r\n"):
        return RejectReason.MALFORMED
    inner = raw[1:-2]
    star = inner.find(CHECKSUM_MARK)
    body, digits = inner[:star], inner[star + 1 :]
    if star < 0 or len(digits) != 2 or not set(digits) <= _HEX_UPPER:
        return RejectReason.MALFORMED
    if checksum(body) != int(digits, 16):
        return RejectReason.BAD_CHECKSUM
    if any(byte < _FIRST_PRINTABLE or byte > _LAST_PRINTABLE for byte in body):
        return RejectReason.MALFORMED
    return body.decode("ascii")


def _frame_from_body(body: str) -> Frame | RejectReason:  # noqa: PLR0911 - one return per check
    """The frame a checked body spells, or why it is not one."""
    parts = body.split(",")
    if len(parts) < 3:
        return RejectReason.MALFORMED
    talker_text, seq_text, type_text, *fields = parts
    if talker_text not in (Talker.SHOE, Talker.HOST):
        return RejectReason.BAD_TALKER
    talker = Talker(talker_text)
    seq = _parse_seq(seq_text)
    if seq is None:
        return RejectReason.BAD_SEQ
    if type_text not in FrameType.__members__:
        return RejectReason.UNKNOWN_TYPE
    frame_type = FrameType(type_text)
    if frame_type not in TYPES_BY_TALKER[talker]:
        return RejectReason.WRONG_DIRECTION
    if not _fields_are_valid(frame_type, fields):
        return RejectReason.MALFORMED
    return Frame(talker=talker, seq=seq, type=frame_type, fields=tuple(fields))


class FrameDecoder:
    """Turns a byte stream of either talker into frames and counted rejections.

    Attributes:
        rejected: How many times each reason was reported since the decoder was made.
        frames: How many frames were decoded since the decoder was made.
    """

    __slots__ = ("_frame", "_garbage", "_skipping", "frames", "rejected")

    def __init__(self) -> None:
        self.rejected: collections.Counter[RejectReason] = collections.Counter()
        self.frames = 0
        #: The frame being collected (starts with ``$``), or None while hunting.
        self._frame: bytearray | None = None
        #: The first bytes of the current garbage run (at most MAX_REJECTED_RAW).
        self._garbage = bytearray()
        #: True while skipping the tail of a frame already rejected as too long.
        self._skipping = False

    def buffered(self) -> int:
        """How many bytes the decoder holds (never more than two frames' worth)."""
        return len(self._frame or b"") + len(self._garbage)

    def feed(self, data: bytes) -> list[Decoded]:
        """Decode ``data``, continuing from the bytes fed before.

        Args:
            data: The next bytes from the line, split anywhere.

        Returns:
            Frames and rejections completed by these bytes, in line order. Never raises.
        """
        out: list[Decoded] = []
        position, end = 0, len(data)
        while position < end:
            if self._frame is None:
                position = self._hunt(data, position, out)
            else:
                position = self._collect(self._frame, data, position, out)
        return out

    def reset(self) -> list[FrameRejected]:
        """Forget a partial frame or garbage run (e.g. when the port is reopened).

        Returns:
            The rejections for whatever was pending: a partial frame is ``TRUNCATED``.
        """
        out: list[Decoded] = []
        if self._frame is not None:
            self._reject(RejectReason.TRUNCATED, bytes(self._frame), out)
        self._frame = None
        self._flush_garbage(out)
        self._skipping = False
        return [item for item in out if isinstance(item, FrameRejected)]

    def _hunt(self, data: bytes, position: int, out: list[Decoded]) -> int:
        """Skip to the next ``$``; returns where to continue."""
        dollar = data.find(START, position)
        stop = len(data) if dollar < 0 else dollar
        while position < stop:
            newline = data.find(b"\n", position, stop)
            upto = stop if newline < 0 else newline + 1
            if self._skipping:
                self._skipping = newline < 0
            else:
                room = MAX_REJECTED_RAW - len(self._garbage)
                self._garbage += data[position : min(upto, position + room)]
                if newline >= 0:
                    self._flush_garbage(out)
            position = upto
        if dollar >= 0:
            self._flush_garbage(out)
            self._skipping = False
            self._frame = bytearray(START)
            return dollar + 1
        return position

    def _collect(self, frame: bytearray, data: bytes, position: int, out: list[Decoded]) -> int:
        """Add bytes to the frame being collected; returns where to continue."""
        dollar = data.find(START, position)
        newline = data.find(b"\n", position, None if dollar < 0 else dollar)
        stop = newline if newline >= 0 else (dollar if dollar >= 0 else len(data))
        if len(frame) + (stop - position) >= MAX_FRAME_BYTES:
            # The 82nd byte is not the closing LF: too long, whatever follows.
            needed = MAX_FRAME_BYTES - len(frame)
            head = bytes(frame) + data[position : position + needed]
            self._reject(RejectReason.TOO_LONG, head, out)
            self._frame = None
            if newline >= 0:
                return newline + 1
            self._skipping = dollar < 0
            return len(data) if dollar < 0 else dollar
        if newline >= 0:
            frame += data[position : newline + 1]
            self._frame = None
            decoded = parse_frame(bytes(frame))
            if isinstance(decoded, FrameRejected):
                self._reject(decoded.reason, decoded.raw, out)
            else:
                self.frames += 1
                out.append(decoded)
            return newline + 1
        frame += data[position:stop]
        if dollar >= 0:
            self._reject(RejectReason.TRUNCATED, bytes(frame), out)
            self._frame = bytearray(START)
            return dollar + 1
        return stop

    def _flush_garbage(self, out: list[Decoded]) -> None:
        if self._garbage:
            self._reject(RejectReason.GARBAGE, bytes(self._garbage), out)
            self._garbage.clear()

    def _reject(self, reason: RejectReason, raw: bytes, out: list[Decoded]) -> None:
        self.rejected[reason] += 1
        out.append(FrameRejected(reason=reason, raw=raw[:MAX_REJECTED_RAW]))

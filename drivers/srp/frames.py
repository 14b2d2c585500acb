# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1 frames and their encoding (shoe-protocol.md, "Frames").

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import reduce
from operator import xor

#: A frame is at most 82 bytes including ``$`` and CR LF (shoe-protocol.md, "Frames").
MAX_FRAME_BYTES = 82
#: ``seq`` is decimal 0-65535 and wraps to 0.
SEQ_MODULUS = 65536
START = b"$"
CHECKSUM_MARK = b"*"
END = b"\r\n"
#: Bytes a field may never contain.
FORBIDDEN_IN_FIELD = frozenset("$*,\r\n")


class Talker(enum.StrEnum):
    """Who sent a frame."""

    SHOE = "SH"
    HOST = "HO"


class FrameType(enum.StrEnum):
    """Frame types of both directions (shoe-protocol.md, the two frame tables)."""

    HELLO = "HELLO"
    CARD = "CARD"
    CUT = "CUT"
    MISREAD = "MISREAD"
    STATUS = "STATUS"
    HB = "HB"
    ACK = "ACK"
    LAMP = "LAMP"


#: Shoe frames the host must acknowledge and the shoe resends until it does.
ACKNOWLEDGED_TYPES = frozenset({FrameType.HELLO, FrameType.CARD, FrameType.CUT, FrameType.MISREAD})


def checksum(body: bytes) -> int:
    """XOR of every byte between ``$`` and ``*``, both excluded."""
    return reduce(xor, body, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One SRP/1 frame, without its framing bytes and checksum."""

    talker: Talker
    seq: int
    type: FrameType
    fields: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.seq < SEQ_MODULUS:
            raise ValueError(f"seq {self.seq} outside 0-{SEQ_MODULUS - 1}")
        for field in self.fields:
            if not field.isascii() or not field.isprintable() or FORBIDDEN_IN_FIELD & set(field):
                raise ValueError(f"field {field!r} is not allowed in a frame")

    def body(self) -> bytes:
        """The bytes between ``$`` and ``*``."""
        return ",".join([self.talker.value, str(self.seq), self.type.value, *self.fields]).encode(
            "ascii"
        )

    def encode(self) -> bytes:
        """The frame as sent on the line: ``$`` body ``*`` checksum CR LF."""
        body = self.body()
        raw = START + body + CHECKSUM_MARK + f"{checksum(body):02X}".encode("ascii") + END
        if len(raw) > MAX_FRAME_BYTES:
            raise ValueError(f"frame of {len(raw)} bytes exceeds {MAX_FRAME_BYTES}")
        return raw

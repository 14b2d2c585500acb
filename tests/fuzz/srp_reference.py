# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""An independent reading of SRP/1 framing, written from docs/shoe-protocol.md, for oracles.

Test support, pure: no I/O. It imports nothing from ``drivers``: frames are built and checked
here by hand (own checksum, own tables), so a bug shared by the codec's encoder and decoder
cannot hide behind a round trip.

The reading of the spec ("Frames"): every ``$`` starts a candidate frame, which ends at the
first LF after it. The candidate is a frame only if it is at most 82 bytes long, contains no
other ``$``, ends in CR LF, is ``$`` body ``*`` two uppercase hex digits, its body is printable
ASCII whose XOR equals those digits, and the body spells a talker, a ``seq`` and a type of
that talker with the fields the type takes. ``seq`` is decimal digits (at most five, leading
zeros allowed: the spec says "decimal", and the codec reads ``007`` as 7) up to 65535.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

MAX_FRAME: Final = 82
RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
LAMPS: Final = ("PLAYER", "BANKER", "STAND", "HOLD", "OFF")
SHOE_TYPES: Final = ("HELLO", "CARD", "CUT", "MISREAD", "STATUS", "HB")
HOST_TYPES: Final = ("ACK", "LAMP")
ACKNOWLEDGED: Final = ("HELLO", "CARD", "CUT", "MISREAD")
_SHAPE: Final = re.compile(rb"\$([\x20-\x7e]*)\*([0-9A-F]{2})\r\n")
_SEQ: Final = re.compile(r"[0-9]{1,5}")


@dataclass(frozen=True, slots=True)
class RefFrame:
    """A frame as the reference reads it."""

    talker: str
    seq: int
    type: str
    fields: tuple[str, ...]
    #: Where its ``$`` is in the stream.
    offset: int


def xor_of(body: bytes) -> int:
    """The SRP/1 checksum, computed here rather than by the codec."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def build_frame(talker: str, seq: str, frame_type: str, fields: tuple[str, ...] = ()) -> bytes:
    """A frame on the wire, built by hand: ``$`` body ``*`` checksum CR LF."""
    body = ",".join([talker, seq, frame_type, *fields]).encode("ascii")
    return b"$" + body + b"*" + f"{xor_of(body):02X}".encode("ascii") + b"\r\n"


def _seq(text: str) -> int | None:
    if _SEQ.fullmatch(text) is None:
        return None
    value = int(text)
    return value if value <= 65535 else None


def _fields_fit(frame_type: str, fields: list[str]) -> bool:
    verdict = False
    if frame_type == "HELLO":
        verdict = len(fields) == 3 and all(fields)
    elif frame_type == "CARD":
        verdict = (
            len(fields) == 1
            and len(fields[0]) == 2
            and fields[0][0] in RANKS
            and fields[0][1] in SUITS
        )
    elif frame_type in {"CUT", "MISREAD", "HB"}:
        verdict = not fields
    elif frame_type == "STATUS":
        verdict = fields in (["READY"], ["EMPTY"]) or (
            len(fields) == 2 and fields[0] == "FAULT" and fields[1] != ""
        )
    elif frame_type == "ACK":
        verdict = len(fields) == 1 and _seq(fields[0]) is not None
    elif frame_type == "LAMP":
        verdict = len(fields) == 1 and fields[0] in LAMPS
    return verdict


def read_candidate(candidate: bytes, offset: int) -> RefFrame | None:
    """The frame a candidate (``$`` through LF) spells, or None."""
    shape = _SHAPE.fullmatch(candidate) if len(candidate) <= MAX_FRAME else None
    if shape is None or b"*" in shape[1] or xor_of(shape[1]) != int(shape[2], 16):
        return None
    parts = shape[1].decode("ascii").split(",")
    if len(parts) < 3:
        return None
    talker, seq_text, frame_type, *fields = parts
    types = {"SH": SHOE_TYPES, "HO": HOST_TYPES}.get(talker, ())
    seq = _seq(seq_text)
    if seq is None or frame_type not in types or not _fields_fit(frame_type, fields):
        return None
    return RefFrame(talker, seq, frame_type, tuple(fields), offset)


def reference_frames(stream: bytes) -> list[RefFrame]:
    """Every frame in ``stream``, in order, as the spec reads it."""
    frames = []
    start = stream.find(b"$")
    while start >= 0:
        following = stream.find(b"$", start + 1)
        newline = stream.find(b"\n", start)
        if newline >= 0 and (following < 0 or newline < following):
            frame = read_candidate(stream[start : newline + 1], start)
            if frame is not None:
                frames.append(frame)
        start = following
    return frames

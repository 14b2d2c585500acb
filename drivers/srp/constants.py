# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1 constants, each named as in docs/shoe-protocol.md and citing its section.

Pure: no I/O, no clock, no randomness. Shared by the host driver and the virtual shoe.
"""

from __future__ import annotations

import enum
from typing import Final

from drivers.srp.frames import MAX_FRAME_BYTES, SEQ_MODULUS

__all__ = [
    "ALLOWED_BAUDRATES",
    "DEFAULT_BAUDRATE",
    "HEARTBEAT_INTERVAL_S",
    "MAX_FRAME_BYTES",
    "MAX_RESENDS",
    "OFFLINE_AFTER_S",
    "RANKS",
    "RESEND_INTERVAL_S",
    "SEQ_MODULUS",
    "SUITS",
    "Lamp",
    "ShoeState",
]

#: Default line speed, 8N1, no flow control (SRP/1 "Physical layer").
DEFAULT_BAUDRATE: Final = 9600
#: Line speeds that must also work (SRP/1 "Physical layer").
ALLOWED_BAUDRATES: Final = (9600, 19200, 38400, 57600, 115200)

#: The shoe resends an unacknowledged frame this often (SRP/1 "Delivery").
RESEND_INTERVAL_S: Final = 0.25
#: ... at most this many times (SRP/1 "Delivery").
MAX_RESENDS: Final = 8
#: The shoe sends ``HB`` once a second while nothing else is sent (SRP/1 "Frames from the shoe").
HEARTBEAT_INTERVAL_S: Final = 1.0
#: No frame for this long means the reader is gone (SRP/1 "Delivery").
OFFLINE_AFTER_S: Final = 3.0

#: Card ranks, ten written ``T`` (SRP/1 "Frames from the shoe", ``CARD``).
RANKS: Final = "A23456789TJQK"
#: Card suits (SRP/1 "Frames from the shoe", ``CARD``).
SUITS: Final = "SHDC"


class Lamp(enum.StrEnum):
    """The shoe's indicator, set by a host ``LAMP`` frame (SRP/1 "Frames from the host")."""

    #: The player hand draws the next card.
    PLAYER = "PLAYER"
    #: The banker hand draws the next card.
    BANKER = "BANKER"
    #: Both hands stand: the coup is complete.
    STAND = "STAND"
    #: Stop dealing.
    HOLD = "HOLD"
    #: No card is expected.
    OFF = "OFF"


class ShoeState(enum.StrEnum):
    """The state field of a shoe ``STATUS`` frame (SRP/1 "Frames from the shoe")."""

    READY = "READY"
    EMPTY = "EMPTY"
    #: Followed by a code field.
    FAULT = "FAULT"

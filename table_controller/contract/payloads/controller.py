# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The payloads about the controller, not the game: its ``status`` and its replies to commands.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from table_controller.contract.codes import EventType, ReaderState, RefusalCode
from table_controller.contract.payloads.base import ABSENT, Absent, Count, Payload


@dataclass(frozen=True, slots=True, kw_only=True)
class Status(Payload):
    """``status`` (retained; also the last will): whether the controller and its reader run."""

    TYPE: ClassVar = EventType.STATUS
    RETAINED: ClassVar = True
    reader: ReaderState | Absent = ABSENT
    online: bool
    #: Raised on every connection; an offline status older than the last online one is stale.
    session: Count
    #: The highest seq the table had given a message when the status was written (0 before
    #: any): for the will, when it was registered on connecting. Every message up to it
    #: reaches the broker, before or after the status.
    last_seq: Count
    #: The controller's software version.
    version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandReply(Payload):
    """``commands/replies``: the answer to one command (a repeated id is answered again)."""

    TYPE: ClassVar = EventType.COMMAND_REPLY
    #: The command's id; ``None`` if none could be read.
    id: str | None
    ok: bool
    command: str | Absent = ABSENT
    #: When refused: why, as a code (the procedure's, or the edge's for a command refused as read).
    error: RefusalCode | str | Absent = ABSENT
    #: When refused: why, in words a person can read.
    message: str | Absent = ABSENT
    #: A supervisor command: the supervisor who authorised it.
    supervisor: str | Absent = ABSENT

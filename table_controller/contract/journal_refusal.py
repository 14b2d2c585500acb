# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's journal refusing writes, as the screens and the command replies tell it.

Pure: no I/O, no clock. While the journal cannot record (a full disk, say) the table is held:
nothing is acknowledged or acted on, and no command is taken, since none could be recorded
first. The runtime (``runtime/journal/writer.py``) notices it and hands a
:class:`JournalRefusal` to the screens (``screens/web/view_feed.py``) and to whoever answers
commands; this module says it in their words.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.contract.errors import CommandErrorCode
from table_controller.contract.payloads.base import ABSENT
from table_controller.contract.payloads.controller import CommandReply


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalRefusal:
    """The journal refuses writes: why, for the technician, and whether the disk is full."""

    #: SQLite's words and code and the room left on the disk, e.g.
    #: ``database or disk is full (SQLITE_FULL; 0 bytes free on its disk)``.
    cause: str
    #: The disk, or the room the journal file may take, is full (SQLite's ``SQLITE_FULL``).
    disk_full: bool

    @property
    def message(self) -> str:
        """A refused command's ``message``: what happened, and when to ask again."""
        return (
            f"the table's journal cannot record ({self.cause}): the table is held and takes"
            " no command until it records again"
        )


def refusal_reply(
    command_id: str | None, command: str | None, refusal: JournalRefusal
) -> CommandReply:
    """The reply to a command while the journal refuses writes: ``journal_unavailable``."""
    return CommandReply(
        id=command_id,
        ok=False,
        command=ABSENT if command is None else command,
        error=CommandErrorCode.JOURNAL_UNAVAILABLE,
        message=refusal.message,
    )

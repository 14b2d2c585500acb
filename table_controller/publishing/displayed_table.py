# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the dealer display needs of the table it shows: the runtime's table service has it.

A protocol, so that the publishing adapters depend on no runtime module: the runtime imports
publishing, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from table_controller.procedure.machine import TableProcedure
from table_controller.publishing.outgoing import OutgoingMessage


class DisplayedTable(Protocol):
    """The table whose state the display shows and to which its commands go."""

    @property
    def procedure(self) -> TableProcedure:
        """The table's procedure (its snapshot is the display's starting point)."""

    @property
    def virtual(self) -> bool:
        """Whether the table draws its own cards (no reader, a deal button)."""

    @property
    def listeners(self) -> list[Callable[[OutgoingMessage], None]]:
        """Called with each message the table publishes; the display adds itself here."""

    async def submit(self, record: Mapping[str, object]) -> dict[str, object]:
        """Carry out a command record (already authorised); its reply once handled."""

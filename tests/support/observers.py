# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A test's observer of the table service (``runtime/service_ports.py``, ``TableObserver``)."""

from __future__ import annotations

from collections.abc import Callable

from table_controller.contract.journal_refusal import JournalRefusal
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.runtime.service_ports import HandledInput


class Heard:
    """What the service told a test: given to it among its observers when it is built.

    ``messages`` holds the messages handed out live, ``handled`` counts the inputs carried out
    live, ``refusals`` the journal's refusals and recoveries (None) as told; ``each`` is
    called with every live message as it is told.
    """

    def __init__(self, each: Callable[[OutgoingMessage], None] | None = None) -> None:
        self.messages: list[OutgoingMessage] = []
        self.handled = 0
        self.refusals: list[JournalRefusal | None] = []
        self._each = each

    def on_message(self, message: OutgoingMessage, *, live: bool) -> None:
        if not live:
            return
        self.messages.append(message)
        if self._each is not None:
            self._each(message)

    def on_input(self, handled: HandledInput) -> None:
        if handled.live:
            self.handled += 1

    def on_journal(self, refusal: JournalRefusal | None) -> None:
        self.refusals.append(refusal)

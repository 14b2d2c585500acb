"""A message sink that stores every message in the durable MQTT outbox.

Adapter. The outbox numbers the messages (``seq``) and the MQTT link drains it in order; a key
already stored is skipped, so replaying the journal after a crash adds only what is missing.
It runs on the journal's writer thread (see ``TableService._publish``).
"""

from __future__ import annotations

from collections.abc import Callable

from table_controller.publishing.messages import envelope
from table_controller.publishing.outbox import Outbox, OutboxMessage
from table_controller.publishing.outgoing import OutgoingMessage
from table_controller.runtime.service import MessageSink


class OutboxSink:
    """Envelopes messages for ``<root>/<topic>`` and adds them to the outbox in one transaction."""

    def __init__(self, outbox: Outbox, *, table_id: str, topic_root: str) -> None:
        self._outbox = outbox
        self._table_id = table_id
        self._root = topic_root
        #: Wakes the drainer after an add (the MQTT link's ``notify``, once it exists).
        self.wake: Callable[[], None] = lambda: None

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Store the messages of one input; then wake the drainer."""
        if not messages:
            return
        self._outbox.add(
            [
                OutboxMessage(
                    key=message.key,
                    topic=f"{self._root}/{message.topic}",
                    message=envelope(
                        message.event_type,
                        message.payload,
                        table_id=self._table_id,
                        seq=0,  # the outbox writes the seq it assigns
                        ts=message.ts,
                    ),
                    retain=message.retain,
                )
                for message in messages
            ]
        )
        self.wake()


class FanOutSink:
    """Hands the same messages to several sinks (the outbox and a JSON-lines copy)."""

    def __init__(self, *sinks: MessageSink) -> None:
        self.sinks = sinks

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Each sink in turn."""
        for sink in self.sinks:
            sink.add(messages)

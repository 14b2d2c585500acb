# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The MQTT transport: settings and topics, the durable outbox, resend, and what consumers keep."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.mqtt.consumer import Incoming, StreamTracker, read_message, seq_of
    from table_controller.mqtt.outbox import Outbox, OutboxError, OutboxMessage, OutboxRow, stamp
    from table_controller.mqtt.resend import Republished, range_problem, resend_reply
    from table_controller.mqtt.settings import (
        BrokerEndpoint,
        MqttSettings,
        ProtocolName,
        topic_root,
    )

__all__ = [
    "BrokerEndpoint",
    "Incoming",
    "MqttSettings",
    "Outbox",
    "OutboxError",
    "OutboxMessage",
    "OutboxRow",
    "ProtocolName",
    "Republished",
    "StreamTracker",
    "range_problem",
    "read_message",
    "resend_reply",
    "seq_of",
    "stamp",
    "topic_root",
]

__getattr__ = lazy_face(
    __name__,
    {
        "consumer": ("Incoming", "StreamTracker", "read_message", "seq_of"),
        "outbox": ("Outbox", "OutboxError", "OutboxMessage", "OutboxRow", "stamp"),
        "resend": ("Republished", "range_problem", "resend_reply"),
        "settings": ("BrokerEndpoint", "MqttSettings", "ProtocolName", "topic_root"),
    },
)

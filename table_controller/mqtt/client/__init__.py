# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The connections to the broker: the table's link, its sending, republishing and subscribers.

Loads aiomqtt: the service imports this face only with a broker configured.
"""

from table_controller.mqtt.client.connect import error_text, new_client, payload_bytes
from table_controller.mqtt.client.link import MqttLink
from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once

__all__ = [
    "MqttLink",
    "Received",
    "Subscription",
    "error_text",
    "new_client",
    "payload_bytes",
    "publish_once",
]

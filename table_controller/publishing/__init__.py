# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Publishing: the MQTT messages of the table (mqtt-api.md) and the adapters that send them.

``messages`` is pure; the adapters (MQTT, the dealer display) live beside it.
"""

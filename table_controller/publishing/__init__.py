"""Publishing: the MQTT messages of the table (mqtt-api.md) and the adapters that send them.

``messages`` is pure; the adapters (MQTT, the dealer display) live beside it.
"""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Broker URLs, settings, backoff and the status payload (no broker needed)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from table_controller.contract.codes import ReaderState
from table_controller.contract.schema.models import MESSAGE_MODELS
from table_controller.mqtt.client.sending import status_message
from table_controller.mqtt.settings import BrokerEndpoint, MqttSettings


def test_plain_url_with_quoted_credentials() -> None:
    endpoint = BrokerEndpoint.from_url("mqtt://tab%40le:p%3Ass@broker.local:1999")
    assert (endpoint.host, endpoint.port, endpoint.tls) == ("broker.local", 1999, False)
    assert (endpoint.username, endpoint.password) == ("tab@le", "p:ss")
    assert "p:ss" not in repr(endpoint)


def test_default_ports_and_tls() -> None:
    assert BrokerEndpoint.from_url("mqtt://h").port == 1883
    tls = BrokerEndpoint.from_url(
        "mqtts://h", ca_file=Path("ca.pem"), cert_file=Path("c.pem"), key_file=Path("k.pem")
    )
    assert (tls.port, tls.tls, tls.username) == (8883, True, None)


@pytest.mark.parametrize(
    ("url", "kwargs", "fragment"),
    [
        ("http://h", {}, "scheme"),
        ("mqtt://", {}, "no host"),
        ("mqtt://h:99999", {}, "port"),
        ("mqtt://h/topic", {}, "only"),
        ("mqtt://h", {"ca_file": Path("ca.pem")}, "mqtts"),
        ("mqtts://h", {"cert_file": Path("c.pem")}, "key"),
        ("mqtt://h", {"protocol": "4"}, "protocol"),
        ("mqtt://h", {"keepalive_s": 1}, "keepalive"),
    ],
)
def test_bad_settings_are_refused_with_a_reason(
    url: str, kwargs: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError, match=fragment):
        BrokerEndpoint.from_url(url, **kwargs)


def test_table_settings_and_topics() -> None:
    settings = MqttSettings.from_url("mqtt://h", table_id="T07", topic_prefix="casino/tables/")
    assert settings.identifier == "table-T07"
    assert settings.root == "casino/tables/T07"
    assert settings.status_topic == "casino/tables/T07/status"
    assert settings.commands_topic == "casino/tables/T07/commands"
    assert settings.replies_topic == "casino/tables/T07/commands/replies"
    for bad in ("", "T/07", "T+", "#"):
        with pytest.raises(ValueError, match="table id"):
            MqttSettings.from_url("mqtt://h", table_id=bad)
    with pytest.raises(ValueError, match="prefix"):
        MqttSettings.from_url("mqtt://h", table_id="T07", topic_prefix="a/+/b")


def test_the_links_backoff_doubles_up_to_the_cap_with_jitter_in_the_upper_half() -> None:
    backoff = MqttSettings.from_url("mqtt://h", table_id="T07").backoff
    rng = random.Random(7)
    steps = [backoff.delay(n, rng) for n in range(12)]
    for attempt, delay in enumerate(steps):
        step = min(30.0, 0.5 * 2**attempt)
        assert step / 2 <= delay <= step


def test_status_payload_matches_the_contract_model() -> None:
    text = status_message(
        table_id="T07",
        online=False,
        session=4,
        last_seq=812,
        ts="2026-11-29T12:00:00.123Z",
        reader=ReaderState.CONNECTED,
    )
    data = json.loads(text)
    model: Any = MESSAGE_MODELS["status"].model_validate(data)
    assert (model.online, model.session, model.last_seq, model.reader) == (
        False,
        4,
        812,
        "connected",
    )
    assert "seq" not in data, "a status takes no seq of its own"
    assert data["version"]

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The AsyncAPI 3.0 document and the JSON Schemas of the MQTT API, generated from the types.

Edge layer, but pure: no I/O, no clock, no randomness; the ``schema`` sub-command writes what
this module returns. ``components.schemas`` comes from pydantic in serialization mode (what
the table sends), over the models ``contract/schema/models.py`` generates from the core's payload
types and the command model of ``contract/commands/message.py``; channels and operations
come from :data:`CHANNELS`, one row per topic of mqtt-api.md with its model, direction, QoS
and retain flag. The output is deterministic, so the documents committed under ``docs/api``
can be checked against the types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.envelope import SCHEMA
from table_controller.contract.outgoing import DEFAULT_TOPIC_PREFIX
from table_controller.contract.schema.models import EVENT_MODELS, MESSAGE_MODELS

ASYNCAPI_VERSION: Final = "3.0.0"
MQTT_BINDING_VERSION: Final = "0.2.0"
_SCHEMA_REF: Final = "#/components/schemas/{model}"
JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, slots=True, kw_only=True)
class Channel:
    """One topic of mqtt-api.md: where, what, which way, and how it is delivered."""

    #: The channel's key in the document and the stem of its JSON Schema file.
    name: str
    #: The topic below ``<root>`` (``<prefix>/<table_id>``).
    topic: str
    model: type[BaseModel]
    #: ``send``: the table publishes; ``receive``: the table subscribes.
    action: Literal["send", "receive"]
    retain: bool
    qos: int = 1
    summary: str


def _summary(model: type[BaseModel]) -> str:
    """A model docstring's first line without its leading ``topic``: name."""
    line = (model.__doc__ or model.__name__).strip().splitlines()[0]
    if line.startswith("``") and "``: " in line:
        line = line.split("``: ", 1)[1]
    return line[:1].upper() + line[1:]


def _published(name: str, *, retain: bool, summary: str, topic: str | None = None) -> Channel:
    """A topic the table publishes the message ``name`` on (below ``<root>/name`` by default)."""
    return Channel(
        name=name,
        topic=name if topic is None else topic,
        model=MESSAGE_MODELS[name],
        action="send",
        retain=retain,
        summary=summary,
    )


CHANNELS: Final[tuple[Channel, ...]] = (
    _published(
        "status",
        retain=True,
        summary="Whether the controller and its reader are online; also the last will.",
    ),
    _published("state", retain=True, summary="The table's full snapshot."),
    *(
        Channel(
            name=event_type,
            topic=f"events/{event_type}",
            model=model,
            action="send",
            retain=False,
            summary=_summary(model),
        )
        for event_type, model in EVENT_MODELS.items()
    ),
    _published("roads", retain=True, summary="The scoreboards of the current shoe."),
    _published(
        "odds", retain=True, summary="Exact odds and house edge of every bet for the next round."
    ),
    _published(
        "stats",
        retain=True,
        summary="Game pace for the shoe, the dealer's stint and the last hour.",
    ),
    _published(
        "limits",
        retain=True,
        summary="Each bet's minimum and maximum stake, in the table's currency.",
    ),
    _published(
        "command_reply",
        topic="commands/replies",
        retain=False,
        summary="The answer to each command.",
    ),
    Channel(
        name="command",
        topic="commands",
        model=CommandMessage,
        action="receive",
        retain=False,
        summary="Commands from the backend or the pit; each is answered on commands/replies.",
    ),
)


def component_schemas() -> dict[str, Any]:
    """Every model's JSON Schema, by model name, referring to each other in the document."""
    _, top = models_json_schema(
        [(channel.model, "serialization") for channel in CHANNELS], ref_template=_SCHEMA_REF
    )
    schemas: dict[str, Any] = top["$defs"]
    return schemas


def asyncapi_document(*, prefix: str = DEFAULT_TOPIC_PREFIX) -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the table's MQTT API."""
    root = f"{prefix}/{{table_id}}"
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for channel in CHANNELS:
        delivery = f"QoS {channel.qos}, {'retained' if channel.retain else 'not retained'}."
        messages[channel.name] = {
            "name": channel.name,
            "title": channel.model.__name__,
            "summary": channel.summary,
            "contentType": "application/json",
            "payload": {"$ref": _SCHEMA_REF.format(model=channel.model.__name__)},
        }
        channels[channel.name] = {
            "address": f"{root}/{channel.topic}",
            "summary": channel.summary,
            "description": delivery,
            "parameters": {"table_id": {"$ref": "#/components/parameters/table_id"}},
            "messages": {channel.name: {"$ref": f"#/components/messages/{channel.name}"}},
        }
        verb = "publish" if channel.action == "send" else "receive"
        operations[f"{verb}_{channel.name}"] = {
            "action": channel.action,
            "channel": {"$ref": f"#/channels/{channel.name}"},
            "summary": channel.summary,
            "description": delivery,
            "messages": [{"$ref": f"#/channels/{channel.name}/messages/{channel.name}"}],
            "bindings": {
                "mqtt": {
                    "qos": channel.qos,
                    "retain": channel.retain,
                    "bindingVersion": MQTT_BINDING_VERSION,
                }
            },
        }
    operations["receive_command"]["reply"] = {
        "channel": {"$ref": "#/channels/command_reply"},
        "messages": [{"$ref": "#/channels/command_reply/messages/command_reply"}],
    }
    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {
            "title": "Baccarat table controller MQTT API",
            "version": SCHEMA.rsplit("/", 1)[1],  # the API's, not the software's
            "description": (
                f"Schema {SCHEMA}: what one table controller publishes and the commands "
                f"it takes. Every payload starts with the envelope schema, type, table_id, seq, "
                f"ts; seq rises by one for every message across restarts, so a backend detects "
                f"gaps and duplicates. The one exception is status, also the last will: it "
                f"carries no seq but last_seq, the seq of the last message before it, beside its "
                f"session counter. Topics live under <prefix>/<table_id>, the prefix being a "
                f"setting ({DEFAULT_TOPIC_PREFIX} by default). Payloads may carry more fields "
                f"than described."
            ),
            "license": {
                "name": "Apache-2.0",
                "url": "https://www.apache.org/licenses/LICENSE-2.0",
            },
        },
        "defaultContentType": "application/json",
        "servers": {
            "broker": _server("mqtt", "{host}:1883", prefix),
            "broker_tls": _server("secure-mqtt", "{host}:8883", prefix),
        },
        "channels": channels,
        "operations": operations,
        "components": {
            "schemas": component_schemas(),
            "messages": messages,
            "parameters": {
                "table_id": {
                    "description": "The table's id (the setting table_id), e.g. T07.",
                    "examples": ["T07"],
                }
            },
        },
    }


def _server(protocol: str, host: str, prefix: str) -> dict[str, Any]:
    return {
        "host": host,
        "protocol": protocol,
        "protocolVersion": "3.1.1",
        "description": (
            "The casino's broker (MQTT 3.1.1 or 5). Each table connects as table-<table_id> "
            "with a persistent session and a retained last will on its status topic."
        ),
        "variables": {"host": {"description": "The broker's host name.", "default": "localhost"}},
        "bindings": {
            "mqtt": {
                "cleanSession": False,
                "lastWill": {
                    "topic": f"{prefix}/{{table_id}}/status",
                    "qos": 1,
                    "retain": True,
                    "message": '{"online": false, "session": <n>, "last_seq": <s>, ...}',
                },
                "bindingVersion": MQTT_BINDING_VERSION,
            }
        },
    }


def payload_schemas() -> dict[str, dict[str, Any]]:
    """One standalone JSON Schema per payload, by channel name."""
    schemas: dict[str, dict[str, Any]] = {}
    for channel in CHANNELS:
        schema = channel.model.model_json_schema(mode="serialization")
        schemas[channel.name] = {"$schema": JSON_SCHEMA_DIALECT, **schema}
    return schemas


def render(document: dict[str, Any]) -> str:
    """A document as the text committed to the repository: indented JSON, one final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def generated_files(*, prefix: str = DEFAULT_TOPIC_PREFIX) -> dict[str, str]:
    """Every file ``table-controller schema`` writes, by path relative to its output directory."""
    files = {"asyncapi.json": render(asyncapi_document(prefix=prefix))}
    for name, schema in payload_schemas().items():
        files[f"schemas/{name}.json"] = render(schema)
    return files

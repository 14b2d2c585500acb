# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The procedure's decisions read as the messages they publish, as wire data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table_controller.contract.envelope import to_wire
from table_controller.contract.payloads.base import Payload
from table_controller.procedure.decisions import Announce, Decision, Publish, RaiseAlarm


def payloads(decisions: Iterable[Decision]) -> list[Payload]:
    """Every payload the decisions publish, in order: prompts and alarms publish themselves."""
    found: list[Payload] = []
    for decision in decisions:
        if isinstance(decision, Publish):
            found.append(decision.payload)
        elif isinstance(decision, Announce):
            found.append(decision.prompt)
        elif isinstance(decision, RaiseAlarm):
            found.append(decision.alarm)
    return found


def wire(payload: Payload) -> dict[str, Any]:
    """One payload as the JSON object it is published as, with its ``type``."""
    data = to_wire(payload)
    assert isinstance(data, dict)
    return data | {"type": payload.TYPE.value}


def published(decisions: Iterable[Decision], event_type: str | None = None) -> list[dict[str, Any]]:
    """The payloads published as wire data, of one type or of every type (with ``type``)."""
    return [
        wire(payload)
        for payload in payloads(decisions)
        if event_type is None or payload.TYPE.value == event_type
    ]


def types(decisions: Iterable[Decision]) -> list[str]:
    """The ``type`` of every message published, in order."""
    return [payload.TYPE.value for payload in payloads(decisions)]

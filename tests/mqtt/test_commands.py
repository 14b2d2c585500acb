# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress over a real broker: hostile payloads refused, repeated ids answered again.

The desk below is the smallest ingress a runtime needs: the link hands it raw bytes,
``parse_command`` and ``authorise`` decide, and every reply goes out through the outbox like
any other message. What it executes is only recorded, so "changes nothing" is checkable.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.envelope import JsonValue, envelope
from table_controller.contract.schema.models import MESSAGE_MODELS
from table_controller.ingress.authorisation import (
    AuthorisationPolicy,
    Refused,
    authorise,
    sign,
)
from table_controller.ingress.parsing import parse_command
from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.outbox import OutboxMessage
from table_controller.mqtt.settings import MqttSettings
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import backend, running_link
from tests.support.subscriptions import collect

pytestmark = pytest.mark.broker

SECRET = b"table-T07-secret-0123456789abcdef"
POLICY = AuthorisationPolicy(supervisors={"sup-1": frozenset({"pit"})}, shared_secret=SECRET)
COMMANDS = "baccarat/tables/T07/commands"
REPLIES = "baccarat/tables/T07/commands/replies"


@dataclass
class Desk:
    """Parse, authorise, execute at most once per id, reply through the outbox."""

    add: object = None
    executed: list[str] = field(default_factory=list)
    answers: dict[str, dict[str, JsonValue]] = field(default_factory=dict)
    receipts: int = 0

    def receive(self, raw: bytes) -> None:
        self.receipts += 1
        parsed = parse_command(raw)
        if not isinstance(parsed, CommandMessage):
            reply: dict[str, JsonValue] = {
                "id": parsed.id,
                "ok": False,
                "error": parsed.code,
                "message": parsed.message,
            }
        elif parsed.id in self.answers:
            reply = self.answers[parsed.id]  # answered again, not carried out twice
        else:
            verdict = authorise(parsed, POLICY)
            if isinstance(verdict, Refused):
                reply = {
                    "id": parsed.id,
                    "ok": False,
                    "command": parsed.command,
                    "error": verdict.code,
                    "message": verdict.message,
                }
            else:
                self.executed.append(parsed.id)
                reply = {"id": parsed.id, "ok": True, "command": parsed.command}
            self.answers[parsed.id] = reply
        body = envelope(
            "command_reply", reply, table_id="T07", seq=0, ts="2026-11-29T12:00:00.000Z"
        )
        assert callable(self.add)
        self.add(OutboxMessage(key=f"reply:{self.receipts}", topic=REPLIES, message=body))


def cmd(command_id: str, name: str, operator: str = "pit-1", **args: object) -> dict[str, object]:
    return {"id": command_id, "command": name, "operator": operator, "args": args}


def signed(document: dict[str, object]) -> bytes:
    parsed = parse_command(json.dumps(document).encode())
    assert isinstance(parsed, CommandMessage)
    return sign(parsed, SECRET).model_dump_json(exclude_none=True).encode()


HOSTILE: list[tuple[bytes, str]] = [
    (b"", "malformed_json"),
    (b"\xff\xfe\x00garbage", "malformed_json"),
    (b"{not json", "malformed_json"),
    (b"[1, 2, 3]", "malformed_json"),
    (b"[" * 50_000 + b"]" * 50_000, "oversized"),
    (
        b'{"id": "x", "command": "close_betting", "operator": "p", "args": {}, "pad": "'
        + b"A" * 5000
        + b'"}',
        "oversized",
    ),
    (b'{"id": "' + b"[" * 3000 + b'"}', "invalid_message"),
    (json.dumps(cmd("h1", "explode")).encode(), "unknown_command"),
    (json.dumps(cmd("h2", "void_round")).encode(), "invalid_args"),
    (json.dumps(cmd("h3", "manual_card", card="ZZ")).encode(), "invalid_args"),
    (json.dumps({**cmd("h4", "deal"), "extra": 1}).encode(), "invalid_message"),
    (json.dumps({"id": 7, "command": "deal", "operator": "p"}).encode(), "invalid_message"),
    (json.dumps(cmd("h5", "void_shoe", operator="dealer-3")).encode(), "not_authorised"),
    (json.dumps(cmd("h6", "void_shoe", operator="sup-1")).encode(), "bad_signature"),
    (
        json.dumps({**cmd("h7", "void_shoe", operator="sup-1"), "signature": "0" * 64}).encode(),
        "bad_signature",
    ),
]


async def replies_from_table(
    broker: Mosquitto, tmp_path: Path, desk: Desk, payloads: list[bytes]
) -> list[Any]:
    """The pit sends ``payloads`` to table T07, whose commands go to ``desk``: its replies.

    The table's link must stay connected throughout, whatever the payloads.
    """
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    pit = backend(broker.url("pit"))
    async with Subscription(backend(broker.url()), [REPLIES]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, tmp_path / "t.db", on_command=desk.receive) as table:
            desk.add = table.add
            for payload in payloads:
                await publish_once(pit, COMMANDS, payload)
            got = await collect(sub, until=lambda got: len(got) >= len(payloads))
            await asyncio.sleep(0)  # the desk carries out what it was handed
            assert table.link.connected, "a payload broke the link"
    reply_model = MESSAGE_MODELS["command_reply"]
    return [reply_model.model_validate_json(m.payload) for m in got]


async def test_hostile_payloads_are_refused_and_change_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    desk = Desk()
    replies = await replies_from_table(broker, tmp_path, desk, [p for p, _ in HOSTILE])
    assert [(r.ok, r.error) for r in replies] == [(False, code) for _, code in HOSTILE]
    assert all(r.message for r in replies)
    assert desk.executed == []
    assert [r.seq for r in replies] == list(range(1, len(HOSTILE) + 1))


async def test_a_repeated_id_is_answered_again_not_carried_out_twice(
    broker: Mosquitto, tmp_path: Path
) -> None:
    desk = Desk()
    void = signed(cmd("v1", "void_round", operator="sup-1", round_id="S-1-3"))
    close = json.dumps(cmd("c1", "close_betting")).encode()
    replies = await replies_from_table(broker, tmp_path, desk, [close, void, close, void])
    assert [(r.id, r.ok) for r in replies] == [
        ("c1", True),
        ("v1", True),
        ("c1", True),
        ("v1", True),
    ]
    assert desk.executed == ["c1", "v1"]
    assert len({r.seq for r in replies}) == 4  # each answer is a message of its own

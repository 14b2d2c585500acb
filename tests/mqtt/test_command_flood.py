# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A flood of commands over a real broker: every payload gets exactly one reply.

``table-controller run`` runs a virtual table against a real mosquitto; one backend client
publishes thousands of commands as fast as the broker takes them, far more than the table
carries out meanwhile. Those that find the ingress's queue full are answered ``overloaded``
(with their id), the others as usual: no payload goes unanswered, none is answered twice, and
the table takes commands again afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any, Final

import pytest

from table_controller.contract.errors import CommandErrorCode
from table_controller.runtime.command_intake import MAX_WAITING
from tests.mosquitto import Mosquitto
from tests.reliability.harness import commander
from tests.support.command_table import COMMANDS, running_table
from tests.support.subscriptions import quiet

pytestmark = pytest.mark.broker

#: Commands in the flood: the ingress holds ``MAX_WAITING`` and carries out far fewer meanwhile.
FLOOD: Final = MAX_WAITING + 2000
#: Payloads of the flood without a usable id: answered with ``id: null``.
GARBAGE: Final = [b"not json", b"[1, 2]", b'{"id": "no\\u0000nul", "command": "deal"}']
#: Seconds with no further reply after the last expected one: nothing is answered twice.
AFTERWARDS_S: Final = 1.0


def flood_command(number: int) -> bytes:
    """``close_betting`` with no betting open: each is refused by the procedure, journaled."""
    command = {"id": f"f-{number}", "command": "close_betting", "operator": "pit-1"}
    return json.dumps(command).encode()


@pytest.mark.timeout(240)
async def test_every_command_of_a_flood_gets_exactly_one_reply(
    broker: Mosquitto, tmp_path: Path
) -> None:
    ids = [f"f-{number}" for number in range(FLOOD)]
    payloads = [flood_command(number) for number in range(FLOOD)]
    for place, garbage in enumerate(GARBAGE):  # spread through the flood
        payloads.insert((place + 1) * FLOOD // (len(GARBAGE) + 1), garbage)
    async with running_table(broker, tmp_path) as table:
        async with commander(broker, "backend") as client:
            for payload in payloads:
                await client.publish(COMMANDS, payload, qos=1)
        replies: dict[str | None, list[dict[str, Any]]] = {None: []}
        async with asyncio.timeout(180):
            while len(replies) <= FLOOD or len(replies[None]) < len(GARBAGE):
                reply = await table.reply()
                replies.setdefault(reply["id"], []).append(reply)
        late = [m for m in await quiet(table.replies, AFTERWARDS_S) if "/replies" in m.topic]
        assert not late, [m.payload for m in late[:3]]
        assert sorted(key for key in replies if key is not None) == sorted(ids)
        twice = [key for key, given in replies.items() if key is not None and len(given) > 1]
        assert not twice, twice
        assert len(replies[None]) == len(GARBAGE)
        errors = Counter(given[0]["error"] for key, given in replies.items() if key is not None)
        assert set(errors) == {"wrong_phase", CommandErrorCode.OVERLOADED}, errors
        assert errors["wrong_phase"] >= MAX_WAITING  # every command that waited was taken
        overloaded = next(
            given[0] for given in replies.values() if given[0]["error"] == "overloaded"
        )
        assert overloaded["ok"] is False
        assert overloaded["message"].endswith("send it again later")
        after = await table.over_mqtt({"id": "n-1", "command": "new_shoe", "operator": "pit-1"})
        assert (after["id"], after["ok"]) == ("n-1", True)  # taking commands again
    log = (tmp_path / "run.log").read_text()
    assert "command ingress overloaded" in log
    assert "command ingress takes commands again" in log

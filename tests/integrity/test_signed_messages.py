# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real table with a device key, through a real mosquitto: every message verified.

The test checks each signature with its own code, written from mqtt-api.md ("Signed messages"):
its own canonical JSON and ``cryptography``'s Ed25519 verify, never the product's ``verify``.
Then ``watch --verify`` must catch a tampered copy of a real message.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from table_controller.cli.watch import SIGNATURE_FAILED
from table_controller.mqtt.client.subscriber import publish_once
from tests.mosquitto import Mosquitto
from tests.support.backend import listening
from tests.support.subscriptions import quiet
from tests.support.table_process import device_key_file, table_run

pytestmark = [pytest.mark.broker, pytest.mark.timeout(300)]

ROOT = "baccarat/tables/V1"


def spec_bytes(message: dict[str, Any]) -> bytes:
    """mqtt-api.md: the payload without ``sig``; keys sorted, ``,`` ``:``, UTF-8, unescaped."""
    body = {key: value for key, value in message.items() if key != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def spec_kid(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()[:16]


@contextlib.asynccontextmanager
async def signed_table(tmp_path: Path, broker: Mosquitto) -> AsyncIterator[dict[str, str]]:
    """Table V1 (commission, RNG cards, no betting phase) with a device key; the key's show."""
    key, shown = await device_key_file(tmp_path)
    async with table_run(
        tmp_path / "run.log",
        "--table-id", "V1", "--variant", "commission", "--card-source", "rng", "--no-betting-phase",
        "--broker", broker.url("backend"),
        "--journal", str(tmp_path / "V1.journal"),
        "--display", "off",
        env={**os.environ, "TABLE_CONTROLLER_DEVICE_KEY": str(key)},
    ) as process:  # fmt: skip
        yield shown
        process.kill()  # no clean stop: the broker publishes the last will
        await process.wait()


@pytest.mark.slow  # a whole eight-deck shoe, about a minute; the tampered copy below is default
async def test_every_message_of_a_whole_shoe_is_signed_by_the_device_key(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-s") as backend:
        async with signed_table(tmp_path, broker) as shown:
            await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id="S-1"))["ok"]
            await backend.until_event("burn", done=True)  # the table burns by itself
            for round_no in range(1, 120):
                reply = await backend.command("deal")
                assert reply["ok"], (reply["error"], reply["message"])
                # The cut card may be the round's first card: then the shoe ends instead.
                async with asyncio.timeout(15):
                    while not (
                        backend.messages("shoe_ended")
                        or any(
                            e["round_id"] == f"S-1-{round_no}"
                            for e in backend.messages("round_result")
                        )
                    ):
                        backend.received.append(await backend.feed.get())
                if backend.messages("last_round"):
                    await backend.until_event("shoe_ended")
                    break
            backend.received += await quiet(backend.feed, 0.5)
        backend.received += await quiet(backend.feed, 1.0)  # the will

    public = base64.b64decode(shown["public_key"])
    assert len(public) == 32
    assert shown["kid"] == spec_kid(public)
    key = Ed25519PublicKey.from_public_bytes(public)
    kinds: Counter[str] = Counter()
    statuses: list[dict[str, Any]] = []
    for received in backend.received:
        if received.topic == f"{ROOT}/commands":
            continue  # the backend's own commands
        message = json.loads(received.payload)
        assert message["kid"] == shown["kid"], received.topic
        key.verify(base64.b64decode(message["sig"]), spec_bytes(message))  # raises if not
        kinds[message["type"]] += 1
        if message["type"] == "status":
            statuses.append(message)
    births = [s for s in statuses if s["online"]]
    assert births, "no birth status"
    assert {s["public_key"] for s in statuses} == {shown["public_key"]}
    assert any(not s["online"] for s in statuses), "no last will"
    software = births[0]["software"]
    assert set(software) == {"version", "sha256"}
    (started,) = backend.messages("shoe_started")
    assert started["software"] == software
    rounds = kinds["round_result"]
    assert rounds > 40  # a whole eight-deck shoe
    for kind in ("card", "state", "roads", "command_reply", "shoe_ended", "last_round"):
        assert kinds[kind] > 0, (kind, kinds)


async def read_until(stream: asyncio.StreamReader, text: str) -> list[str]:
    lines: list[str] = []
    async with asyncio.timeout(20):
        while not lines or text not in lines[-1]:
            line = await stream.readline()
            assert line, f"ended before {text!r}: {lines}"
            lines.append(line.decode())
    return lines


async def test_watch_verify_catches_a_tampered_copy_of_a_real_message(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-t") as backend, signed_table(tmp_path, broker):
        await backend.wait_online()
        watch = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_controller", "watch", "--broker",
            broker.url("backend"), "--table", "V1", "--verify", "--count", "2",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            assert watch.stdout is not None
            await read_until(watch.stdout, "status ONLINE")  # the retained birth: its key
            assert (await backend.command("new_shoe", shoe_id="S-1"))["ok"]
            await backend.until_event("burn", done=True)
            assert (await backend.command("deal"))["ok"]
            await backend.until_result("S-1-1")
            (result,) = backend.messages("round_result")
            forged = {**result, "winner": "tie" if result["winner"] != "tie" else "banker"}
            await publish_once(backend.endpoint, f"{ROOT}/events/round_result", json.dumps(forged))
            flagged = await read_until(watch.stdout, "SIGNATURE FAILED")
            assert f"round_result seq {result['seq']}" in flagged[-1]
            assert "signature does not match" in flagged[-1]
            assert (await backend.command("deal"))["ok"]
            async with asyncio.timeout(20):
                out, err = await watch.communicate()
        finally:
            if watch.returncode is None:
                watch.kill()
                await watch.wait()
    assert watch.returncode == SIGNATURE_FAILED, err.decode()
    assert "SIGNATURE FAILED" not in out.decode()  # the real messages all checked out
    assert "1 failed" in err.decode()

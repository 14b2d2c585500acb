# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The journal's disk fills up in the middle of a round.

Through the real ``table-controller run``: the virtual shoe on a pseudo-terminal, a real
mosquitto and a backend. The journal (and with it the MQTT outbox, which lives in the same
SQLite file) is on a disk that really fills:

* ``tmpfs``: a 16 MB tmpfs mounted on a temp directory, filled to the last byte by a filler
  file (needs root and a mount that is permitted: so in CI, which runs as root on Debian);
* ``rlimit`` (the fallback, said in the test id): the service runs with ``SIGXFSZ``
  ignored, and its ``RLIMIT_FSIZE`` is lowered with ``prlimit`` to the size of the
  journal's write-ahead log at that moment, so no file of the service can grow; a file that
  must grow fails with ``EFBIG``, as it would with ``ENOSPC``. Raising the limit again is
  "space returns". The service's standard error goes nowhere then, or its log could not grow.

Stated outcome: while the disk is full the table holds (the shoe's lamp shows ``HOLD``), the
card dealt then is not acknowledged (the shoe resends it, or gives up on it after its
resends), nothing is acted on unrecorded; once space returns the card is recorded once and
acknowledged, play goes on to the end of the shoe, every card is recorded and reported
exactly once, the backend has every ``seq`` with no unmarked duplicate, ``journal verify``
passes and ``replay`` of the journal prints exactly the events the backend received.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import aiohttp
import pytest

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import FrameAbandoned, FrameAcknowledged
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.runtime.journal.journal import Journal, check_file
from table_controller.runtime.journal.writer import OUTAGE_KEY
from tests.mosquitto import Mosquitto
from tests.reliability import harness
from tests.support.event_stream import EventStream
from tests.support.ports import free_port
from tests.support.small_disk import SmallDisk, ignore_sigxfsz, pin_the_log, small_disk

pytestmark = pytest.mark.broker

SHOE_ID: Final = "D-1"


async def play_until_dealing(hand: harness.MqttTable, round_no: int) -> None:
    """Play until the table asks for the first card of round ``round_no``."""
    for _ in range(500):
        state = await hand.barrier()
        prompt = state.get("prompt") or {}
        if state.get("round_no") == round_no and prompt.get("action") == "deal":
            return
        await hand.step()
    pytest.fail(f"round {round_no} never came: {state}")


async def deal_on_full_disk(hand: harness.MqttTable, disk: SmallDisk, *, outage_s: float) -> None:
    """Fill the disk, deal a card, check it is held unacknowledged, free the disk."""
    shoe = hand.shoe
    disk.fill()
    events_before = len(shoe.events)
    resends_before = shoe.session.counters.resends  # type: ignore[attr-defined]
    dealt = shoe.deal()
    await asyncio.sleep(outage_s)
    during = shoe.events[events_before:]
    # Nothing acknowledged while the disk is full: the shoe resent its frame (and may have
    # given up on it), and the table lit HOLD.
    assert not any(isinstance(event, FrameAcknowledged) for event in during), during
    assert shoe.session.counters.resends > resends_before  # type: ignore[attr-defined]
    assert shoe.lamp is Lamp.HOLD
    disk.free()
    async with asyncio.timeout(15):
        while not any(
            isinstance(event, FrameAcknowledged | FrameAbandoned)
            and event.card == getattr(dealt, "number", None)
            for event in shoe.events[events_before:]
        ):
            await shoe.changed()
    state = await hand.barrier()
    assert state["holds"] == [], state
    assert shoe.lamp is not Lamp.HOLD, (state, shoe.events[events_before:])


async def check_disk_full(tmp_path: Path, broker: Mosquitto, disk: SmallDisk) -> None:
    link = tmp_path / "shoe"
    journal = disk.path / "T07.journal"
    args = harness.run_args(journal=journal, port=link, broker_url=broker.url("T07"))
    log = tmp_path / "run.log" if disk.mechanism == "tmpfs" else None
    preexec = ignore_sigxfsz if disk.mechanism == "rlimit" else None
    cards = seeded_order(1, 7)
    async with (
        harness.backend(broker) as feed,
        harness.mqtt_table(broker, feed, link) as hand,
        harness.service(args, log, preexec_fn=preexec) as table,
    ):
        assert table.process is not None
        disk.pid, disk.limited_by = table.process.pid, disk.path / "T07.journal-wal"
        await hand.online()
        hand.shoe.shoe = Shoe(cards=cards, cut_depth=36)  # cards before the cut card
        await hand.command("new_shoe", shoe_id=SHOE_ID)
        with pin_the_log(journal):  # the full disk refuses the very next input
            # A short outage (within the shoe's resends) at the first card of round 2, a long
            # one (the shoe gives the frame up) at the first card of round 3.
            await play_until_dealing(hand, 2)
            await deal_on_full_disk(hand, disk, outage_s=0.8)
            await play_until_dealing(hand, 3)
            await deal_on_full_disk(hand, disk, outage_s=3.5)
        for _ in range(1000):
            if await hand.step() == "shoe_over":
                break
        state = await hand.barrier()
        assert await table.stop() == 0, table.log_tail()
        await harness.everything_received(feed, journal)
    assert state["prompt"]["action"] == "shoe_over"
    assert hand.entered == []  # no card had to be entered by hand
    await harness.check_each_card_kept_once(
        feed, journal, harness.dealt_cards(hand.shoe.dealt), SHOE_ID
    )


@pytest.mark.timeout(180)
async def test_disk_full_holds_and_resumes(
    tmp_path: Path, broker: Mosquitto, record_property: Callable[[str, object], None]
) -> None:
    """A real tmpfs where it can be mounted (CI: root), else the ``rlimit`` mechanism."""
    with small_disk("auto") as disk:
        record_property("disk_full_mechanism", disk.mechanism)
        await check_disk_full(tmp_path, broker, disk)


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_disk_full_holds_and_resumes_with_a_file_size_limit(
    tmp_path: Path, broker: Mosquitto
) -> None:
    """The fallback mechanism, run on its own: ``RLIMIT_FSIZE`` lowered under the service."""
    with small_disk("rlimit") as disk:
        await check_disk_full(tmp_path, broker, disk)


@pytest.mark.timeout(30)
async def test_the_filled_tmpfs_refuses_a_sqlite_commit() -> None:
    """The mechanism itself: a commit on the filled disk fails; after freeing, it succeeds."""
    with small_disk("tmpfs") as disk:
        connection = sqlite3.connect(disk.path / "probe.sqlite", isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("CREATE TABLE t (x TEXT)")
            disk.fill()
            with pytest.raises(sqlite3.OperationalError) as raised:
                connection.executemany("INSERT INTO t VALUES (?)", [("x" * 4000,)] * 100)
            assert "full" in str(raised.value)
            disk.free()
            connection.execute("INSERT INTO t VALUES ('after')")
        finally:
            connection.close()


def refusals_logged(log: Path) -> list[dict[str, Any]]:
    """The service's JSON log lines (``--log-format json``) that say the journal refuses writes.

    None says a rollback failed: that would be the journal hiding the cause.
    """
    text = log.read_text(errors="replace")
    assert "cannot rollback" not in text
    lines = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            lines.append(json.loads(line))
    return [line for line in lines if str(line.get("event")).startswith("journal refuses")]


async def next_table(stream: EventStream, name: str, test: Callable[[Any], bool]) -> Any:
    """The data of the next ``name`` event (``table``, ``board``) that passes ``test``."""
    while True:
        data = (await stream.until(name))["data"]
        if test(data):
            return data


@pytest.mark.timeout(120)
async def test_a_full_disk_is_named_shown_on_both_screens_and_refuses_commands_at_once(
    tmp_path: Path, broker: Mosquitto, record_property: Callable[[str, object], None]
) -> None:
    """A real full disk (tmpfs: ``ENOSPC``, as on the table's own disk) under a table dealing.

    The ``rlimit`` mechanism makes SQLite report an I/O error, not a full disk, and leaves
    the service no log to read: this test needs the real thing.
    """
    with small_disk("tmpfs") as disk:
        journal = disk.path / "T07.journal"
        log = tmp_path / "run.log"
        display_port, health_port = free_port(), free_port()
        screens = f"http://127.0.0.1:{display_port}"
        extra = ["--display", f"127.0.0.1:{display_port}", "--metrics", f"127.0.0.1:{health_port}"]
        args = harness.run_args(
            journal=journal, port=tmp_path / "shoe", broker_url=broker.url("T07"), extra=extra
        )
        async with (
            harness.backend(broker) as feed,
            harness.mqtt_table(broker, feed, tmp_path / "shoe") as hand,
            harness.service(args, log) as table,
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as http,
        ):
            await hand.online()
            hand.shoe.shoe = Shoe(cards=seeded_order(1, 7), cut_depth=36)
            with pin_the_log(journal):  # the full disk will refuse the very next input
                await hand.command("new_shoe", shoe_id=SHOE_ID)
                await play_until_dealing(hand, 2)
                dealt, elapsed = await through_the_outage(
                    hand,
                    http,
                    disk,
                    screens=screens,
                    health=f"http://127.0.0.1:{health_port}/health",
                    log=log,
                )
            record_property("seconds_to_the_refusals", elapsed)
            # Recovery as before: the card dealt on the full disk is recorded once and
            # acknowledged, and the table takes commands again.
            async with asyncio.timeout(15):
                while not any(
                    isinstance(event, FrameAcknowledged | FrameAbandoned)
                    and event.card == getattr(dealt, "number", None)
                    for event in hand.shoe.events
                ):
                    await hand.shoe.changed()
            assert (await hand.barrier())["holds"] == []
            await play_until_dealing(hand, 3)  # commands are carried out again
            assert await table.stop() == 0, table.log_tail()
        check = check_file(journal)
        assert check.fault is None, check.reason
        with Journal.open_read_only(journal) as recorded:
            outages = [row for row in recorded.rows() if OUTAGE_KEY in row.payload]
        assert len(outages) == 1, outages
        outage = outages[0].payload[OUTAGE_KEY]
        assert outage["cause"] == "database or disk is full"
        assert outage["code"] == "SQLITE_FULL"
        assert outage["commands_refused"] == 2  # one over MQTT, one from the display


async def through_the_outage(
    hand: harness.MqttTable,
    http: aiohttp.ClientSession,
    disk: SmallDisk,
    *,
    screens: str,
    health: str,
    log: Path,
) -> tuple[object, dict[str, float]]:
    """Fill the disk, deal a card, check the hold from each side, free the disk, see it end.

    Returns what was dealt, and the seconds each command took to be answered.
    """
    async with (
        http.get(f"{screens}/api/events") as dealer_page,
        http.get(f"{screens}/board/api/events") as board_page,
    ):
        dealer, board = EventStream(dealer_page), EventStream(board_page)
        dealing = (await dealer.until("view"))["data"]["table"]
        assert dealing["journal"] == {"ok": True}
        assert (await board.until("view"))["data"]["board"]["status"]["kind"] == "dealing"
        disk.fill()
        dealt = hand.shoe.deal()
        elapsed = await check_the_hold(
            hand, http, screens=(dealer, board, screens), health=health, log=log
        )
        disk.free()
        resumed = await next_table(dealer, "table", lambda t: t["journal"]["ok"])
        assert resumed["prompt"]["tone"] != "hold"
        assert resumed["commands"]
        shown = await next_table(board, "board", lambda b: b["status"]["kind"] != "wait")
        assert shown["status"]["kind"] == "dealing"
    return dealt, elapsed


async def check_the_hold(
    hand: harness.MqttTable,
    http: aiohttp.ClientSession,
    *,
    screens: tuple[EventStream, EventStream, str],
    health: str,
    log: Path,
) -> dict[str, float]:
    """While the disk is full: both screens, the health check, the log and the commands.

    ``screens``: the dealer's and the board's event streams and the screens' address. Returns
    the seconds each command took to be answered.
    """
    dealer, board, url = screens
    held = await next_table(dealer, "table", lambda t: not t["journal"]["ok"])
    assert held["prompt"] == {
        "text": {"key": "display.prompt.hold"},
        "detail": {"key": "display.hold.journal_full"},
        "tone": "hold",
    }
    assert held["commands"] == []  # the page offers nothing: nothing would be taken
    assert held["journal"]["disk_full"] is True
    assert held["journal"]["cause"].startswith("database or disk is full (SQLITE_FULL")
    waiting = await next_table(board, "board", lambda b: b["status"]["kind"] == "wait")
    assert waiting["hands"]["player"]["cards"] == []  # a neutral "please wait" for players
    async with http.get(f"{url}/api/state") as response:
        assert (await response.json())["table"]["prompt"] == held["prompt"]
    async with http.get(f"{url}/board/api/state") as response:
        assert (await response.json())["board"]["status"]["kind"] == "wait"
    async with http.get(health) as response:
        assert response.status == 503
        checked = await response.json()
    assert "database or disk is full" in checked["problems"][0]
    assert checked["journal"]["ok"] is False
    # The log names the cause, the code and the journal, not a failed rollback.
    refusals = refusals_logged(log)
    assert len(refusals) == 1, refusals
    assert refusals[0]["cause"].startswith("database or disk is full (SQLITE_FULL")
    assert refusals[0]["code"] == "SQLITE_FULL"
    assert refusals[0]["journal"].endswith("T07.journal")
    assert refusals[0]["free_bytes"] == 0
    # A command over MQTT is answered while the disk is still full: at once, not recorded.
    started = time.monotonic()
    command_id = await hand.send({"id": "full-1", "command": "misdeal", "operator": "backend"})
    key = (harness.TABLE_ID, command_id)
    await hand.feed.until(lambda: key in hand.feed.unrecorded, "the reply to full-1", 10)
    arrived, reply = hand.feed.unrecorded[key]
    assert reply["error"] == "journal_unavailable", reply
    assert reply["ok"] is False
    assert "seq" not in reply  # a number never recorded could be given again after a restart
    assert "database or disk is full" in reply["message"]
    assert hand.feed.reply(command_id) is None
    elapsed_mqtt = arrived - started
    # And one from the dealer's display.
    started = time.monotonic()
    async with http.post(f"{url}/api/commands", json={"command": "misdeal"}) as response:
        assert response.status == 503
        refused = await response.json()
    elapsed_display = time.monotonic() - started
    assert refused["error"] == "journal_unavailable", refused
    return {"mqtt": round(elapsed_mqtt, 3), "display": round(elapsed_display, 3)}

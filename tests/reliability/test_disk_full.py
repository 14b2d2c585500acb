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
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import FrameAbandoned, FrameAcknowledged
from simulators.virtual_shoe.shuffle import seeded_order
from tests.mosquitto import Mosquitto
from tests.reliability import harness

pytestmark = pytest.mark.broker

DISK_MB: Final = 16
SHOE_ID: Final = "D-1"


@dataclass
class SmallDisk:
    """A directory whose disk the test can fill and free again."""

    path: Path
    mechanism: str
    pid: int | None = None
    _filler: Path | None = None

    def fill(self) -> None:
        if self.mechanism == "tmpfs":
            self._filler = self.path / "filler"
            descriptor = os.open(self._filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                for size in (1 << 20, 1 << 12, 1):
                    with contextlib.suppress(OSError):
                        while os.write(descriptor, b"\0" * size):
                            pass
            finally:
                os.close(descriptor)
            with contextlib.suppress(OSError):
                (self.path / "probe").write_bytes(b"x" * 4096)
                pytest.fail("the disk is not full")
        else:
            assert self.pid is not None
            wal = self.path / "T07.journal-wal"
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (wal.stat().st_size, -1))

    def free(self) -> None:
        if self.mechanism == "tmpfs":
            assert self._filler is not None
            self._filler.unlink()
        else:
            assert self.pid is not None
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (-1, -1))


def _mount_tmpfs(target: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m,mode=0755", "tmpfs", str(target)],
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


@contextlib.contextmanager
def small_disk(mechanism: str) -> Iterator[SmallDisk]:
    """``tmpfs``, ``rlimit``, or ``auto``: ``tmpfs`` where it can be mounted, else ``rlimit``."""
    directory = Path(tempfile.mkdtemp(prefix="tc-small-disk-"))
    mounted = False
    try:
        if mechanism in {"tmpfs", "auto"}:
            mounted = _mount_tmpfs(directory)
            if not mounted and mechanism == "tmpfs":
                pytest.skip("tmpfs cannot be mounted here (not root, or mount not permitted)")
        chosen = "tmpfs" if mounted else "rlimit"
        yield SmallDisk(path=directory, mechanism=chosen)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(directory)], check=False, capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


def _ignore_sigxfsz() -> None:
    """In the service's child process: a file that may not grow fails, it does not kill."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


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
    preexec = _ignore_sigxfsz if disk.mechanism == "rlimit" else None
    cards = seeded_order(1, 7)
    async with (
        harness.backend(broker) as feed,
        harness.mqtt_table(broker, feed, link) as hand,
        harness.service(args, log, preexec_fn=preexec) as table,
    ):
        assert table.process is not None
        disk.pid = table.process.pid
        await hand.online()
        # The journal reuses its write-ahead log after each checkpoint, so a full disk can
        # still take an input or two in the room the log already has. A reader's snapshot
        # keeps the log from restarting: every write then extends the file, and a full disk
        # refuses the very next input, as the test needs. It also shows that a reader (a
        # ``journal verify`` while the table plays, say) never holds the table up.
        pin = sqlite3.connect(journal, isolation_level=None)
        pin.execute("BEGIN")
        pin.execute("SELECT count(*) FROM events").fetchone()
        hand.shoe.shoe = Shoe(cards=cards, cut_depth=36)  # cards before the cut card
        await hand.command("new_shoe", shoe_id=SHOE_ID)
        # A short outage (within the shoe's resends) at the first card of round 2, a long one
        # (the shoe gives the frame up) at the first card of round 3.
        await play_until_dealing(hand, 2)
        await deal_on_full_disk(hand, disk, outage_s=0.8)
        await play_until_dealing(hand, 3)
        await deal_on_full_disk(hand, disk, outage_s=3.5)
        pin.close()
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

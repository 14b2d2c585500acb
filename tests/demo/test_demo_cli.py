# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller demo`` end to end: a real broker, pseudo-terminal, table and display.

Each test runs the command as a user does, in a process of its own, and checks that it
stops by itself after ``--rounds`` (or at SIGINT) with status 0, having printed the display's
URL and the results, and that nothing it started is left: no child process (by the pids it
printed and by any command line naming its temporary directory), no temporary directory.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from table_controller.cli import build_parser, main
from table_controller.cli.demo import demo_settings
from table_controller.demo.runner import DEMO_LIMITS, DEMO_SIDE_BET_LIMITS
from table_controller.rules.variants import VARIANTS
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port

RESULT = re.compile(r"^(?P<table>\S+) (?P<round>\S+-\d+)  (?P<winner>BANKER|PLAYER|TIE) +\d-\d  ")
PID = re.compile(r"pid (\d+)")
WORKDIR = re.compile(r"(/\S*/table-controller-demo-[^/\s]+)/")
RUN_TIMEOUT_S = 60
SETTINGS = "TABLE_CONTROLLER_"


@dataclass
class Demo:
    process: asyncio.subprocess.Process
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def results(self) -> list[re.Match[str]]:
        return [match for line in self.lines if (match := RESULT.match(line))]

    async def read_until(self, pattern: re.Pattern[str], count: int = 1) -> None:
        assert self.process.stdout is not None
        async with asyncio.timeout(RUN_TIMEOUT_S):
            while sum(1 for line in self.lines if pattern.search(line)) < count:
                line = await self.process.stdout.readline()
                if not line:
                    return
                self.lines.append(line.decode().rstrip("\n"))

    async def finish(self) -> tuple[int, str]:
        """Its exit status and standard error, once it stopped (within the timeout)."""
        async with asyncio.timeout(RUN_TIMEOUT_S):
            out, err = await self.process.communicate()
        self.lines += out.decode().splitlines()
        assert self.process.returncode is not None
        return self.process.returncode, err.decode()


async def start_demo(*flags: str) -> Demo:
    env = {name: value for name, value in os.environ.items() if not name.startswith(SETTINGS)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", "demo", *flags,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )  # fmt: skip
    return Demo(process=process, lines=[])


def processes_naming(text: str) -> list[str]:
    """Command lines of running processes that contain ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in command:
            found.append(f"{entry.name}: {command}")
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, state ``Z``, does not).

    A child that exited is a zombie until reaped; the demo's, once the demo is killed, are
    orphans, reaped by whatever init the machine has, in its own time.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def assert_nothing_left(demo: Demo) -> None:
    header = "\n".join(line for line in demo.lines if line.startswith("  "))
    pids = [int(pid) for pid in PID.findall(header)]
    assert pids, header
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), f"process {pid} is still there"
    workdir = WORKDIR.search(header)
    assert workdir is not None, header
    assert not processes_naming(workdir[1])
    assert not Path(workdir[1]).exists()


@pytest.mark.usefixtures("no_leaks")
async def test_the_demo_plays_its_rounds_and_stops_by_itself() -> None:
    display = free_port()
    demo = await start_demo("--rounds", "5", "--speed", "50", "--display", f"127.0.0.1:{display}")
    await demo.read_until(re.compile("table service +pid"))
    async with aiohttp.ClientSession() as http:
        await demo.read_until(RESULT)  # the display is up long before the first result
        async with http.get(f"http://127.0.0.1:{display}/api/state") as response:
            assert response.status == 200
            snapshot = await response.json()
        async with http.get(f"http://127.0.0.1:{display}/board/api/state") as response:
            assert response.status == 200
            board = (await response.json())["board"]
    assert snapshot["table"]["state"]["shoe_id"] == "DEMO-S0001"
    # The players' board shows the demo's stake limits: every bet the variant offers has some.
    assert board["currency"] == "USD"
    limits = {bet["bet"]: (bet["min"], bet["max"]) for bet in board["bets"]}
    assert limits == {bet: DEMO_LIMITS.get(bet, DEMO_SIDE_BET_LIMITS)
                      for bet in VARIANTS["commission"].bet_ids}  # fmt: skip
    assert all(0 < low < high for low, high in limits.values())
    status, err = await demo.finish()
    assert status == 0, err
    assert f"dealer display  http://127.0.0.1:{display}/" in demo.text
    results = demo.results()
    assert [match["round"] for match in results] == [f"DEMO-S0001-{n}" for n in range(1, 6)]
    assert {match["table"] for match in results} == {"DEMO"}
    assert "DEMO OFFLINE" in demo.lines[-1]
    assert "GAP" not in demo.text
    assert "DUPLICATE" not in demo.text
    assert "ALARM" not in demo.text
    assert "5 results, 0 duplicates, 0 gaps" in err
    assert "DEMO dealer D-01 signed in" in demo.text
    assert "DEMO supervisor S-01 signed in" in demo.text
    assert all("dealer D-01" in demo.lines[i] for i in range(len(demo.lines))
               if RESULT.match(demo.lines[i]))  # fmt: skip
    assert_nothing_left(demo)


@pytest.mark.usefixtures("no_leaks")
async def test_the_demo_deals_ez_baccarat_and_settles_its_dragon_and_panda(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    # Seed 4552 deals, in its first four rounds, a Dragon 7 (a Banker win with a three-card 7),
    # another Banker win, a Panda 8 (a Player win with a three-card 8) and a tie: each way
    # ez settles its Banker bet and its two side bets.
    demo = await start_demo(
        "--variant", "ez", "--rounds", "4", "--speed", "50", "--seed", "4552",
        "--events-log", str(events), "--journal", str(tmp_path / "ez.journal"),
        "--display", f"127.0.0.1:{free_port()}",  # not the default 8080 another run may hold
    )  # fmt: skip
    status, err = await demo.finish()
    assert status == 0, err
    assert "4 results, 0 duplicates, 0 gaps" in err
    results = [
        entry["message"]
        for entry in map(json.loads, events.read_text().splitlines())
        if entry["message"]["type"] == "round_result"
    ]
    assert len(results) == 4
    dragons = 0
    settled_as: set[str] = set()
    for result in results:
        settlement, winner = result["settlement"], result["winner"]
        banker, player = result["banker"], result["player"]
        assert list(settlement) == list(VARIANTS["ez"].bet_ids)
        dragon = winner == "banker" and len(banker["cards"]) == 3 and banker["total"] == 7
        panda = winner == "player" and len(player["cards"]) == 3 and player["total"] == 8
        dragons += dragon
        settled_as.add("dragon_7" if dragon else "panda_8" if panda else winner)
        assert settlement["dragon_7"] == (40 if dragon else -1)
        assert settlement["panda_8"] == (25 if panda else -1)
        expected_banker = {"banker": 0 if dragon else 1, "player": -1, "tie": 0}[winner]
        assert settlement["banker"] == expected_banker  # no commission; a Dragon 7 pushes
    assert dragons >= 1
    assert settled_as == {"dragon_7", "banker", "panda_8", "tie"}
    assert_nothing_left(demo)


async def test_ctrl_c_in_the_middle_stops_everything_cleanly(tmp_path: Path) -> None:
    journal = tmp_path / "kept.journal"
    demo = await start_demo(
        "--speed", "50", "--display", f"127.0.0.1:{free_port()}", "--journal", str(journal),
        "--seed", "9", "--variant", "super_six", "--table-id", "T09",
    )  # fmt: skip
    await demo.read_until(RESULT, count=2)
    demo.process.send_signal(signal.SIGINT)
    status, err = await demo.finish()
    assert status == 0, err
    assert "stopping" in err
    assert len(demo.results()) >= 2
    assert "T09 OFFLINE" in demo.text
    assert "(temporary)" not in demo.text
    assert_nothing_left(demo)
    assert journal.exists()  # a journal given is the user's: kept
    played = max(int(match["round"].rpartition("-")[2]) for match in demo.results())

    # Again on the same journal: the table resumes its shoe, the pit finds out where it is
    # (the embedded broker is new, so no retained state tells it), and play goes on.
    again = await start_demo(
        "--speed", "50", "--display", "off", "--journal", str(journal),
        "--seed", "9", "--variant", "super_six", "--table-id", "T09", "--rounds", "2",
    )  # fmt: skip
    status, err = await again.finish()
    assert status == 0, err
    resumed = [int(match["round"].rpartition("-")[2]) for match in again.results()]
    assert len(resumed) == 2
    assert min(resumed) > played
    assert {match["round"].rpartition("-")[0] for match in again.results()} == {"T09-S0001"}
    assert_nothing_left(again)


async def test_killing_the_demo_outright_stops_its_children_too() -> None:
    demo = await start_demo("--speed", "50", "--display", "off")
    await demo.read_until(RESULT)
    header = "\n".join(line for line in demo.lines if line.startswith("  "))
    children = [int(pid) for pid in PID.findall(header)]
    assert len(children) == 2, header  # the broker and the table service
    demo.process.kill()  # SIGKILL: the demo cannot stop anything itself
    await demo.process.wait()
    async with asyncio.timeout(RUN_TIMEOUT_S):
        while any(alive(pid) for pid in children):  # noqa: ASYNC110 - polling /proc
            await asyncio.sleep(0.1)
    workdir = WORKDIR.search(header)
    assert workdir is not None
    assert not processes_naming(workdir[1])


async def test_a_table_that_stops_by_itself_ends_the_demo_with_its_log(tmp_path: Path) -> None:
    demo = await start_demo("--journal", str(tmp_path), "--display", "off")  # not a file
    status, err = await demo.finish()
    assert status == 1
    assert "the table service stopped by itself (exit status 3)" in err
    assert "journal unusable" in err
    assert_nothing_left(demo)


async def test_sigterm_before_the_table_is_up_stops_everything_cleanly() -> None:
    demo = await start_demo("--display", "off", "--speed", "50")
    await demo.read_until(re.compile("backend "))
    demo.process.send_signal(signal.SIGTERM)
    status, err = await demo.finish()
    assert status == 0, err
    assert "dealer display  off" in demo.text
    assert_nothing_left(demo)


@pytest.mark.broker
@pytest.mark.slow  # a second demo start; the embedded broker's runs are default
async def test_an_external_broker_is_used_instead_of_the_embedded_one(broker: Mosquitto) -> None:
    demo = await start_demo(
        "--broker", broker.url("backend"), "--rounds", "3", "--speed", "50",
        "--display", "off", "--table-id", "T07",
    )  # fmt: skip
    status, err = await demo.finish()
    assert status == 0, err
    assert f"broker          mqtt://127.0.0.1:{broker.port} (external)" in demo.text
    assert "embedded" not in demo.text
    assert "backend-secret" not in demo.text
    assert len(demo.results()) == 3
    assert "New client connected" in broker.log()
    assert_nothing_left(demo)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--port", "/dev/ttyUSB0"], "--port: the demo's shoe is its own pseudo-terminal"),
        (["--protocol", "beetek"], "--protocol: the demo's virtual shoe speaks SRP/1"),
        (["--card-source", "rng"], "--card-source: the demo deals from its virtual shoe"),
        (["--no-betting-phase"], "--no-betting-phase: the demo's pit opens and closes betting"),
        (["--variant", "baccarat"], "variant = 'baccarat'"),
        (["--speed", "0"], "argument --speed: must be more than 0"),
        (["--speed", "nan"], "argument --speed: must be more than 0"),
        (["--rounds", "0"], "argument --rounds: must be 1 or more"),
        (["--seed", "x"], "argument --seed: not a whole number"),
        (["--table-id", "a/b"], "table_id = 'a/b'"),
    ],
)
@pytest.mark.usefixtures("no_settings_in_environment")
def test_a_flag_the_demo_cannot_use_stops_it_with_status_2(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["demo", *flags])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert message in err
    assert out == ""


@pytest.mark.usefixtures("no_settings_in_environment")
def test_a_display_address_in_use_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(SystemExit) as stopped:
            main(["demo", "--display", f"127.0.0.1:{port}"])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert f"--display 127.0.0.1:{port}:" in err
    assert "choose another" in err
    assert out == ""


@pytest.mark.parametrize(
    ("settings", "variant_file", "demo_gives_limits"),
    [
        ("", "", True),
        ("[limits]\nbanker = { min = 25, max = 2500 }\n", "", False),
        ("", "[lucky.bets.tie]\nlimits = { min = 1, max = 100 }\n", False),
        ("", "[commission.bets.tie]\nlimits = { min = 1, max = 100 }\n", True),  # another's
    ],
)
@pytest.mark.usefixtures("no_settings_in_environment")
def test_the_demo_gives_its_table_limits_only_when_its_configuration_has_none(
    tmp_path: Path, settings: str, variant_file: str, demo_gives_limits: bool
) -> None:
    (tmp_path / "table.toml").write_text(settings, encoding="utf-8")
    (tmp_path / "variants.toml").write_text(variant_file, encoding="utf-8")
    args = build_parser("demo").parse_args([
        "demo", "--variant", "lucky", "--config", str(tmp_path / "table.toml"),
        "--paytable", str(tmp_path / "variants.toml"),
    ])  # fmt: skip
    given = demo_settings(args).limits
    if not demo_gives_limits:
        assert given == {}
        return
    assert list(given) == list(VARIANTS["lucky"].bet_ids)  # every bet, side bets too
    assert given["player"] == {"min": DEMO_LIMITS["player"][0], "max": DEMO_LIMITS["player"][1]}
    assert given["lucky_6"] == dict(zip(("min", "max"), DEMO_SIDE_BET_LIMITS, strict=True))

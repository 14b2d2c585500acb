# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller staff``: the PIN asked without echo on a real terminal, never an argument."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from table_controller.contract.codes import StaffRole
from table_controller.staff.register import StaffRegister


def staff(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "table_controller", "staff", *args],
        input=stdin, capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def on_a_terminal(args: list[str], answers: list[str]) -> tuple[int, str]:
    """Run the command on a new pseudo-terminal, typing each answer at each ``PIN`` prompt."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal, as a technician's shell is
        os.execv(sys.executable, [sys.executable, "-m", "table_controller", "staff", *args])
    seen = b""
    pending = list(answers)
    answered = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(terminal, 1024)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            # Each answer once its own prompt is there: getpass flushes what was typed ahead.
            if pending and seen.count(b"PIN") > answered and seen.endswith(b": "):
                os.write(terminal, pending.pop(0).encode() + b"\n")
                answered += 1
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")


def test_add_asks_the_pin_twice_without_echo_and_saves_only_its_hash(tmp_path: Path) -> None:
    register = tmp_path / "staff.json"
    status, screen = on_a_terminal(
        ["--register", str(register), "add", "D-104", "--name", "Mai Tran", "--role", "dealer"],
        ["480516", "480516"],
    )
    assert status == 0, screen
    assert "PIN: " in screen
    assert "PIN again: " in screen
    assert "480516" not in screen  # never echoed
    assert "480516" not in register.read_text()
    member = StaffRegister.load(register).verify("D-104", "480516")
    assert member is not None
    assert (member.name, member.role) == ("Mai Tran", StaffRole.DEALER)


def test_two_different_pins_save_nothing(tmp_path: Path) -> None:
    register = tmp_path / "staff.json"
    status, screen = on_a_terminal(
        ["--register", str(register), "add", "D-1", "--name", "Ann", "--role", "dealer"],
        ["1111", "2222"],
    )
    assert status == 1
    assert "the two PINs differ; nothing saved" in screen
    assert not register.exists()


def test_a_script_gives_the_pin_on_standard_input_and_list_and_remove_follow(
    tmp_path: Path,
) -> None:
    register = tmp_path / "staff.json"
    env = {"TABLE_CONTROLLER_STAFF_REGISTER": str(register)}
    assert staff("add", "S-9", "--name", "Chan", "--role", "supervisor", stdin="9999\n",
                 env=env)[0] == 0  # fmt: skip
    assert staff("add", "D-1", "--name", "Ann", "--role", "dealer", stdin="1234\n", env=env)[0] == 0
    status, out, _ = staff("list", env=env)
    assert (status, out) == (0, "D-1\tdealer\tAnn\nS-9\tsupervisor\tChan\n")
    status, out, _ = staff("list", "--json", env=env)
    assert [json.loads(line) for line in out.splitlines()] == [
        {"id": "D-1", "name": "Ann", "role": "dealer"},
        {"id": "S-9", "name": "Chan", "role": "supervisor"},
    ]
    assert "1234" not in out
    assert staff("remove", "D-1", env=env)[:2] == (0, f"D-1 (Ann) removed from {register}\n")
    status, _, err = staff("remove", "D-1", env=env)
    assert (status, err) == (1, "table-controller staff: no staff member 'D-1' in the register\n")


def test_wrong_words_are_refused_in_one_line(tmp_path: Path) -> None:
    register = str(tmp_path / "staff.json")
    status, _, err = staff("--register", register, "add", "D-1", "--name", "Ann",
                           "--role", "dealer", stdin="12\n")  # fmt: skip
    assert (status, err) == (1, "table-controller staff: a PIN is 4 to 12 digits\n")
    status, _, err = staff("--register", register, "add", "D 1", "--name", "A", "--role",
                           "dealer", stdin="1234\n")  # fmt: skip
    assert status == 1
    assert "staff id" in err
    status, _, err = staff("list", env={"TABLE_CONTROLLER_STAFF_REGISTER": ""})
    assert status == 2
    assert "--register FILE or $TABLE_CONTROLLER_STAFF_REGISTER" in err
    status, _, err = staff("--register", register, "list")
    assert status == 1
    assert err == f"table-controller staff: {register}: no staff register there\n"
    status, _, _ = staff("--register", register, "add", "D-1", "--name", "A", "--role", "boss")
    assert status == 2

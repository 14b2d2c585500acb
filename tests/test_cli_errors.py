# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a person sees when a start cannot go ahead: one line naming the fault, no traceback.

Each case runs the real console script (``python -m table_controller``) against the real
thing at fault: a port another socket holds, a missing directory, a directory root cannot
write (``/sys``: root may write to a ``chmod 555`` directory, not to sysfs), a pseudo-terminal
a first ``shoe-sim`` serves. Exit statuses are docs/operations.md's: 2 for a wrong setting or
flag, 1 for an address that cannot be bound (a restart may cure it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.cli.run import ADDRESS_UNUSABLE

USAGE_ERROR = 2
#: A virtual table whose every start would succeed but for the fault a test adds.
TABLE = ["run", "--table-id", "T1", "--card-source", "rng", "--display", "off"]


def _environment(**variables: str) -> dict[str, str]:
    """This environment without settings of its own, plus ``variables``."""
    kept = {k: v for k, v in os.environ.items() if not k.upper().startswith("TABLE_CONTROLLER_")}
    return {**kept, **variables}


def console(
    cwd: Path, *args: str, variables: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table_controller", *args],
        cwd=cwd,
        env=_environment(**(variables or {})),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def one_line(result: subprocess.CompletedProcess[str], status: int, *named: str) -> str:
    """The one line on stderr, checked: the exit status, no traceback, what it names."""
    assert "Traceback" not in result.stderr
    assert result.returncode == status, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    for name in named:
        assert name in result.stderr
    return result.stderr


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize(
    ("flag", "server"), [("--display", "dealer display"), ("--metrics", "health and metrics")]
)
def test_an_address_in_use_stops_the_start_with_status_1_naming_it(
    tmp_path: Path, taken_port: int, flag: str, server: str
) -> None:
    address = f"127.0.0.1:{taken_port}"
    args = [*TABLE, "--log-level", "error", flag, address]
    line = one_line(console(tmp_path, *args), ADDRESS_UNUSABLE, address, "Address already in use")
    assert f"{server} address unusable" in line


@pytest.mark.parametrize(
    ("journal", "named"),
    [
        ("missing/t.journal", "its directory missing does not exist"),
        ("/sys/t.journal", "its directory /sys is not writable"),
        ("a-file/t.journal", "a-file is not a directory"),
    ],
)
def test_a_journal_directory_that_cannot_hold_it_is_named(
    tmp_path: Path, journal: str, named: str
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    result = console(tmp_path, *TABLE, "--journal", journal)
    line = one_line(result, USAGE_ERROR, f"journal: {journal}: {named}")
    assert line.startswith("table-controller run: error: ")


def test_config_naming_a_directory_says_so(tmp_path: Path) -> None:
    result = console(tmp_path, *TABLE, "--config", str(tmp_path))
    one_line(result, USAGE_ERROR, f"config: {tmp_path}: a directory, not a TOML file")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TABLE_CONTROLLER_BAUD", "fast", "TABLE_CONTROLLER_BAUD = 'fast': "),
        ("TABLE_CONTROLLER_SUPERVISORS", "{not json", "TABLE_CONTROLLER_SUPERVISORS: not valid"),
        ("TABLE_CONTROLLER_DISPLAY_PIN", "12ab", "TABLE_CONTROLLER_DISPLAY_PIN = (hidden): "),
    ],
)
def test_a_malformed_variable_is_named(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    result = console(tmp_path, *TABLE, variables={variable: value})
    one_line(result, USAGE_ERROR, message)
    assert value not in result.stderr or variable != "TABLE_CONTROLLER_DISPLAY_PIN"


def test_a_flag_wins_over_a_malformed_variable_and_is_named_as_the_setting(
    tmp_path: Path,
) -> None:
    result = console(tmp_path, *TABLE, "--baud", "12", variables={"TABLE_CONTROLLER_BAUD": "x"})
    one_line(result, USAGE_ERROR, "baud = 12: must be one of")
    assert "TABLE_CONTROLLER_BAUD" not in result.stderr


def test_a_misspelled_variable_is_warned_about_and_the_start_goes_on(tmp_path: Path) -> None:
    variables = {"TABLE_CONTROLLER_BAUDD": "9600", "TABLE_CONTROLLER_VARIANT": "mini"}
    process = subprocess.Popen(
        [sys.executable, "-m", "table_controller", *TABLE, "--log-level", "error"],
        cwd=tmp_path,
        env=_environment(**variables),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    warning = process.stderr.readline()
    assert warning == (
        "table-controller run: warning: TABLE_CONTROLLER_BAUDD: names no setting; ignored"
        " (did you mean TABLE_CONTROLLER_BAUD?)\n"
    )
    journal = tmp_path / "table-T1.journal"
    deadline = time.monotonic() + 30
    while not journal.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the start goes on: the journal appears
    assert journal.exists()
    time.sleep(1.0)
    assert process.poll() is None, "the table stopped after the warning"
    process.terminate()
    process.wait(30)
    rest = process.stderr.read()
    process.stderr.close()
    assert "TABLE_CONTROLLER_VARIANT" not in rest  # a setting's own variable is no warning
    assert "Traceback" not in rest


def test_an_unknown_flag_after_run_prints_runs_usage(tmp_path: Path) -> None:
    result = console(tmp_path, "run", "--tabel-id", "T1")
    assert result.returncode == USAGE_ERROR
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("usage: table-controller run ")
    assert "--table-id ID" in result.stderr  # run's own flags, not the list of sub-commands
    assert result.stderr.endswith(
        "table-controller run: error: unrecognized arguments: --tabel-id T1\n"
    )


def test_shoe_sim_in_a_missing_directory_says_so(tmp_path: Path) -> None:
    link = tmp_path / "missing" / "shoe"
    result = console(tmp_path, "shoe-sim", "--pty", str(link))
    one_line(result, USAGE_ERROR, f"--pty {link}: the directory {link.parent} does not exist")


@contextlib.contextmanager
def _shoe_sim(link: Path) -> Iterator[subprocess.Popen[str]]:
    """``shoe-sim --pty link``, checked ready on a pseudo-terminal; stopped by SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "shoe-sim", "--pty", str(link)],
        env=_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith(f"virtual shoe ready on {link} -> /dev/pts/")
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


def test_shoe_sim_refuses_a_link_another_simulator_serves(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    with _shoe_sim(link) as first:
        served = link.readlink()
        result = console(tmp_path, "shoe-sim", "--pty", str(link))
        one_line(result, USAGE_ERROR, f"--pty {link}: already links to {served}")
        assert "another simulator" in result.stderr
        assert link.readlink() == served  # not taken over
        assert first.poll() is None
    assert not link.exists()


def test_shoe_sim_replaces_a_link_left_by_a_simulator_that_is_gone(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    link.symlink_to("/dev/pts/no-such-terminal")
    with _shoe_sim(link):
        assert link.readlink().exists()

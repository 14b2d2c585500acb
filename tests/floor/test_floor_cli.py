# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller floor``: a wrong flag or file is one line and status 2; a taken address 1."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support.staff import write_register
from tests.support.table_process import table_controller


def floor_args(tmp_path: Path, *more: str) -> list[str]:
    return [
        "floor", "--database", f"sqlite:///{tmp_path / 'db.sqlite'}",
        "--broker", "mqtt://127.0.0.1:1", "--staff-register", str(tmp_path / "staff.json"),
        *more,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("files", "more", "named"),
    [
        ({}, [], "--staff-register"),
        (
            {"staff.json": None, "floor.toml": "[[areas]]\nname = 'A'\ntables = ['T 1']\n"},
            ["--settings", "{dir}/floor.toml"],
            "--settings",
        ),
        (
            {"staff.json": None, "secrets.toml": "T1 = 'short'\n"},
            ["--command-secrets", "{dir}/secrets.toml"],
            "--command-secrets",
        ),
        ({"staff.json": None}, ["--language", "fr"], "--language"),
        ({"staff.json": None}, ["--listen", "nowhere"], "--listen"),
    ],
)
async def test_a_wrong_flag_or_file_is_one_line_and_status_2(
    tmp_path: Path, files: dict[str, str | None], more: list[str], named: str
) -> None:
    for name, text in files.items():
        if text is None:
            write_register(tmp_path / name)
        else:
            (tmp_path / name).write_text(text, encoding="utf-8")
    args = [arg.replace("{dir}", str(tmp_path)) for arg in more]
    code, out, err = await table_controller(*floor_args(tmp_path, *args), timeout=60)
    assert code == 2, err
    assert out == ""
    last = err.strip().splitlines()[-1]  # after argparse's usage, for a flag it refused itself
    assert last.startswith("table-controller floor: error: "), err
    assert named in last


async def test_an_address_in_use_is_one_line_and_status_1(tmp_path: Path) -> None:
    write_register(tmp_path / "staff.json")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = await table_controller(
            *floor_args(tmp_path, "--listen", f"127.0.0.1:{port}", "--log-level", "error"),
            timeout=60,
        )
    assert code == 1
    assert f"cannot serve at 127.0.0.1:{port}" in err

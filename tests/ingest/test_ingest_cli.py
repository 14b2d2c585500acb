# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller ingest``'s refusals: one line on stderr and the exit status of the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.cli import UsageError
from table_controller.cli.ingest import read_command_secrets
from tests.support.ports import free_port
from tests.support.table_process import table_controller


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--broker", "http://h"], "the scheme must be mqtt:// or mqtts://"),
        (["--broker", "mqtt://h", "--database", "mysql://u@h/db"], "--database: 'mysql'"),
        (["--broker", "mqtt://h", "--database", "sqlite://"], "sqlite needs a file"),
        (["--broker", "mqtt://h", "--group", "a/b"], "--group 'a/b'"),
        (["--broker", "mqtt://h", "--gap-wait", "0"], "--gap-wait: must be above 0"),
        (["--broker", "mqtt://h", "--ca", "ca.pem"], "needs an mqtts:// broker URL"),
    ],
)
async def test_a_wrong_flag_is_one_line_and_status_2(args: list[str], says: str) -> None:
    code, out, err = await table_controller("ingest", *args)
    assert code == 2
    assert says in err
    assert "Traceback" not in err
    assert out == ""


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('T1 = "too-short"', "'T1': a command_secret has at least 16 bytes"),
        ("T1 = 12345678901234567890", "'T1': the table's command_secret, as a string"),
        ('"a/b" = "0123456789abcdef"', "'a/b': not a table id"),
        ("", "names no table"),
        ("T1 = ", "not valid TOML"),
    ],
)
def test_a_bad_command_secrets_file_is_named_with_its_problem(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "secrets.toml"
    path.write_text(content)
    with pytest.raises(UsageError, match=re.escape(says)):
        read_command_secrets(path)


def test_the_deploy_kits_command_secrets_example_reads() -> None:
    path = Path(__file__).parents[2] / "deploy" / "ingest-command-secrets.example.toml"
    assert read_command_secrets(path) == {
        "T01": b"T01's command_secret, 16+ bytes",
        "*": b"every other table's command_secret",
    }


async def test_a_missing_command_secrets_file_stops_the_start(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    code, _, err = await table_controller(
        "ingest", "--broker", "mqtt://h", "--command-secrets", str(missing)
    )
    assert (code, err.count("\n")) == (2, 1), err
    assert f"--command-secrets {missing}: cannot read" in err


async def test_a_database_that_cannot_be_opened_is_one_line_and_status_1(tmp_path: Path) -> None:
    unreachable = f"postgresql://ingest:secret-pw@127.0.0.1:{free_port()}/casino"
    missing = f"sqlite:///{tmp_path / 'no-such-dir' / 'ingest.sqlite'}"
    for database in (unreachable, missing):
        code, _, err = await table_controller(
            "ingest", "--broker", "mqtt://127.0.0.1:1", "--database", database
        )
        assert code == 1, err
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("table-controller ingest: database ")
        assert "cannot be opened" in lines[0]
        assert "secret-pw" not in err  # the password is never printed

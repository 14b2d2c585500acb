# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller ingest``'s refusals: one line on stderr and the exit status of the CLI."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.cli import UsageError
from table_controller.cli.ingest import (
    EXTRA_INSTALL,
    EXTRA_MODULES,
    read_command_secrets,
    read_table_keys,
)
from table_controller.integrity.signing import DeviceKey
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


#: A fixed key: the test ids name it, and both test processes must collect the same ids.
PUBLIC_KEY = DeviceKey.of(Ed25519PrivateKey.from_private_bytes(bytes(range(32)))).public_key


def test_a_keys_file_names_each_tables_public_key(tmp_path: Path) -> None:
    path = tmp_path / "table-keys.toml"
    path.write_text(f'T1 = "{PUBLIC_KEY}"\n"T-2.b" = "{PUBLIC_KEY}"\n')
    assert read_table_keys(path) == {"T1": PUBLIC_KEY, "T-2.b": PUBLIC_KEY}
    example = Path(__file__).parents[2] / "deploy" / "ingest-table-keys.example.toml"
    assert set(read_table_keys(example)) == {"T01", "T02"}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('T1 = "not base64!"', "'T1': a public key must be base64 text"),
        ('T1 = "AAAA"', "'T1': a public key has 32 bytes, this one 3"),
        ("T1 = 12", "'T1': the table's public key, as a string"),
        (f'"a/b" = "{PUBLIC_KEY}"', "'a/b': not a table id"),
        (f'"*" = "{PUBLIC_KEY}"', "'*': not a table id"),
        ("", "names no table"),
        ("T1 = ", "not valid TOML"),
    ],
)
def test_a_bad_table_keys_file_is_named_with_its_problem(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "table-keys.toml"
    path.write_text(content)
    with pytest.raises(UsageError, match=re.escape(says)):
        read_table_keys(path)


async def test_a_broken_table_keys_file_stops_the_start_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "table-keys.toml"
    broken.write_text('T1 = "AAAA"\n')
    for path in (broken, tmp_path / "none.toml"):
        code, out, err = await table_controller(
            "ingest", "--broker", "mqtt://h", "--table-keys", str(path)
        )
        assert (code, out, err.count("\n")) == (2, "", 1), err
        assert f"--table-keys {path}: " in err


@pytest.mark.parametrize("module", EXTRA_MODULES)
async def test_without_the_ingest_extra_the_start_is_one_line_naming_it(module: str) -> None:
    """The extra not installed: each of its modules made unimportable in a real process."""
    run_without = (
        "import sys; sys.modules[sys.argv.pop(1)] = None;"
        " from table_controller.cli import main; sys.exit(main())"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", run_without, module, "ingest", "--broker", "mqtt://h",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert (process.returncode, out) == (2, b""), err
    (line,) = err.decode().splitlines()
    assert line.startswith("table-controller ingest: error: needs the ingest extra"), line
    assert f"({module} is not installed)" in line
    assert line.endswith(EXTRA_INSTALL)
    assert EXTRA_INSTALL == "pip install 'table-controller[ingest]'"

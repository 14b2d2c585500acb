# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The example table configuration: it loads, it documents every setting, it starts a table.

The last test runs ``table-controller run --config deploy/table.example.toml`` as the unit
does, with only the machine-specific paths moved by ``TABLE_CONTROLLER_*`` variables (which
win over the file, as on a real device with table.env): a pseudo-terminal for the shoe, a
temporary journal and staff register, a free port for the display.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import aiohttp
import pytest

from table_controller.runtime.config import ENV_PREFIX, Settings, SettingsError, load_settings
from tests.deploy.conftest import EXAMPLE_ENV, EXAMPLE_TOML, UDEV_RULE
from tests.support.ports import free_port
from tests.support.staff import STAFF, write_register
from tests.support.table_process import table_run, wait_for_display

#: A commented-out setting in the example: ``# key = value``.
COMMENTED_SETTING = "# {key} = "


def example_env() -> dict[str, str]:
    """The ``NAME=value`` lines of table.env.example."""
    pairs = {}
    for line in EXAMPLE_ENV.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            pairs[name] = value
    return pairs


@pytest.mark.usefixtures("clean_environment")
def test_the_example_loads_with_every_key_valid() -> None:
    settings = load_settings({}, EXAMPLE_TOML)
    assert settings.table_id == "T07"
    assert settings.port == "/dev/shoe"
    assert settings.card_source == "reader"
    assert settings.journal_path == Path("/var/lib/table-controller/T07.journal")
    assert settings.broker is None  # the broker URL holds a password: it lives in table.env
    assert settings.display_pin is None
    assert settings.command_secret is None
    # The supervisors' logins are the ones acl.example lets write commands.
    assert settings.supervisors == {"pit-1": ["pit"], "pit-2": ["pit"]}
    assert settings.staff_register == Path("/etc/table-controller/staff.json")
    assert settings.require_dealer


def test_the_example_documents_every_setting_there_is() -> None:
    text = EXAMPLE_TOML.read_text(encoding="utf-8")
    active = set(tomllib.loads(text))
    commented = {key for key in Settings.model_fields if COMMENTED_SETTING.format(key=key) in text}
    assert active | commented == set(Settings.model_fields)
    assert not active & commented


@pytest.mark.usefixtures("clean_environment")
def test_each_commented_setting_is_valid_when_uncommented(tmp_path: Path) -> None:
    """Files the settings must find (TLS material) are made, under tmp_path, for the check."""
    text = EXAMPLE_TOML.read_text(encoding="utf-8")
    for key in Settings.model_fields:
        marker = COMMENTED_SETTING.format(key=key)
        if marker not in text:
            continue
        enabled_text = text.replace(marker, f"{key} = ")
        value = tomllib.loads(enabled_text)[key]
        if isinstance(value, str) and value.startswith("/etc/"):
            stand_in = tmp_path / Path(value).name
            stand_in.write_text("stand-in\n")
            enabled_text = enabled_text.replace(f'"{value}"', f'"{stand_in}"')
        enabled = tmp_path / f"{key}.toml"
        enabled.write_text(enabled_text, encoding="utf-8")
        settings = load_settings({}, enabled)
        assert getattr(settings, key) is not None


@pytest.mark.usefixtures("clean_environment")
def test_the_secrets_of_the_env_example_load_over_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secrets = example_env()
    assert set(secrets) == {f"{ENV_PREFIX}BROKER", f"{ENV_PREFIX}DISPLAY_PIN"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    settings = load_settings({}, EXAMPLE_TOML)
    assert settings.broker is not None
    assert settings.broker.startswith("mqtts://T07:")  # the table's login is its id
    assert settings.display_pin is not None


@pytest.mark.usefixtures("clean_environment")
def test_a_wrong_key_in_a_copy_of_the_example_stops_the_start(tmp_path: Path) -> None:
    """The positive control of the first test: the loader does refuse unknown keys."""
    wrong = tmp_path / "table.toml"
    wrong.write_text(EXAMPLE_TOML.read_text(encoding="utf-8") + "\nbaudrate = 9600\n")
    with pytest.raises(SettingsError, match="baudrate: unknown setting"):
        load_settings({}, wrong)


def test_the_example_port_is_the_name_the_udev_rule_gives_the_shoe() -> None:
    rule = UDEV_RULE.read_text(encoding="utf-8")
    port = tomllib.loads(EXAMPLE_TOML.read_text(encoding="utf-8"))["port"]
    assert f'SYMLINK+="{port.removeprefix("/dev/")}"' in rule


async def test_the_example_starts_a_table(tmp_path: Path) -> None:
    controller, shoe = os.openpty()
    display = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith(ENV_PREFIX)}
    env |= {
        f"{ENV_PREFIX}PORT": os.ttyname(shoe),
        f"{ENV_PREFIX}JOURNAL": str(tmp_path / "T07.journal"),
        f"{ENV_PREFIX}EVENTS_LOG": str(tmp_path / "T07.events.jsonl"),
        f"{ENV_PREFIX}DISPLAY": f"127.0.0.1:{display}",
        f"{ENV_PREFIX}DISPLAY_PIN": example_env()[f"{ENV_PREFIX}DISPLAY_PIN"],
        f"{ENV_PREFIX}STAFF_REGISTER": str(write_register(tmp_path / "staff.json")),
    }
    dealer_pin = STAFF["D-104"][2]
    sign_in = {"command": "sign_in", "args": {"staff_id": "D-104", "pin": dealer_pin}}
    new_shoe = {"command": "new_shoe", "args": {"shoe_id": "S-1"}}
    try:
        async with (
            table_run(tmp_path / "run.log", "--config", str(EXAMPLE_TOML), env=env) as process,
            aiohttp.ClientSession() as http,
        ):
            url = f"http://127.0.0.1:{display}"
            await wait_for_display(http, url)
            replies = []
            for command in (new_shoe, sign_in, new_shoe):
                async with http.post(f"{url}/api/commands", json=command) as response:
                    replies.append(await response.json())
        refused, signed_in, started = replies
        assert refused["error"] == "no_dealer", refused  # the example requires a dealer
        assert signed_in["ok"], signed_in
        assert started["ok"], started
    finally:
        os.close(controller)
        os.close(shoe)
    assert process.returncode == 0, (tmp_path / "run.log").read_text()
    logged = [json.loads(line) for line in (tmp_path / "run.log").read_text().splitlines()]
    started = next(entry for entry in logged if entry.get("event") == "table service starting")
    assert started["table_id"] == "T07"
    assert started["variant"] == "commission"
    assert (tmp_path / "T07.journal").stat().st_size > 0

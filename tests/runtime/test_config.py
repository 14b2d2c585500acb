# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
import os
import re
from pathlib import Path

import pytest

from table_controller.runtime.config import (
    Settings,
    SettingsError,
    load_settings,
    reference_table,
    unknown_variables,
)
from table_controller.screens.http_limits import ListenerLimits


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("TABLE_CONTROLLER_"):
            monkeypatch.delenv(name)


def test_flags_win_over_environment_over_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        'table_id = "T07"\nport = "/dev/shoe"\nbaud = 19200\n'
        'variant = "lucky"\nprotocol = "beetek"\n'
    )
    monkeypatch.setenv("TABLE_CONTROLLER_BAUD", "38400")
    monkeypatch.setenv("TABLE_CONTROLLER_VARIANT", "mini")
    settings = load_settings({"variant": "super_six", "baud": None}, config)
    assert (settings.table_id, settings.port, settings.protocol) == ("T07", "/dev/shoe", "beetek")
    assert settings.baud == 38400  # environment over file
    assert settings.variant == "super_six"  # flag over environment
    assert settings.journal_path == Path("table-T07.journal")
    assert settings.display_address == ("127.0.0.1", 8080)


def test_environment_booleans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_CONTROLLER_BETTING_PHASE", "false")
    assert not load_settings({"table_id": "T1", "port": "/dev/x"}).betting_phase


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"port": "/dev/x"}, "table_id: required"),
        ({"table_id": "T/1", "port": "/dev/x"}, "table_id = 'T/1'"),
        ({"table_id": "T1"}, "port: required when card_source is 'reader'"),
        ({"table_id": "T1", "card_source": "rng", "port": "/dev/x"}, "has no reader port"),
        ({"table_id": "T1", "port": "/dev/x", "baud": 1234}, "baud = 1234: must be one of 9600"),
        ({"table_id": "T1", "port": "/dev/x", "variant": "poker"}, "variant = 'poker'"),
        (
            {"table_id": "T1", "port": "/dev/x", "broker": "http://h"},
            "broker = 'http://h': must be mqtt://",
        ),
        (
            {"table_id": "T1", "port": "/dev/x", "broker": "mqtt://h:99999"},
            "port that is not a number",
        ),
        (
            {"table_id": "T1", "port": "/dev/x", "display": "8080"},
            "display = '8080': must be HOST:PORT",
        ),
        ({"table_id": "T1", "port": "/dev/x", "topic_prefix": "a/#"}, "topic_prefix = 'a/#'"),
    ],
)
def test_a_wrong_setting_names_key_value_and_why(flags: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        load_settings(flags)


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="no such file"):
        load_settings({}, tmp_path / "absent.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('table_id = "T1"\nport = "/dev/x"\nbogus = 1\n')
    with pytest.raises(SettingsError, match="bogus: unknown setting"):
        load_settings({}, bad)
    broken = tmp_path / "broken.toml"
    broken.write_text("table_id = \n")
    with pytest.raises(SettingsError, match=r"broken\.toml"):
        load_settings({}, broken)


def test_display_off_and_ipv6() -> None:
    assert load_settings({"table_id": "T1", "port": "x", "display": "off"}).display_address is None
    assert load_settings(
        {"table_id": "T1", "port": "x", "display": "[::1]:9000"}
    ).display_address == ("::1", 9000)


def test_a_wrong_pin_is_refused_without_echoing_it() -> None:
    with pytest.raises(
        SettingsError, match=r"display_pin = \(hidden\): must be 4 to 12 digits"
    ) as caught:
        load_settings({"table_id": "T1", "port": "x", "display_pin": "12a"})
    assert "12a" not in str(caught.value)
    pin = load_settings({"table_id": "T1", "port": "x", "display_pin": "2468"}).display_pin
    assert pin is not None
    assert pin.get_secret_value() == "2468"
    assert "2468" not in repr(pin)


def test_the_configuration_reference_is_the_settings_model() -> None:
    document = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    assert reference_table() in document


def test_unknown_variables_are_named_with_the_closest_setting() -> None:
    environ = {
        "TABLE_CONTROLLER_BAUDD": "9600",
        "table_controller_varient": "mini",
        "TABLE_CONTROLLER_XYZZY": "1",
        "TABLE_CONTROLLER_BAUD": "9600",
        "TABLE_CONTROLLER_DISPLAY_PIN": "1234",
        "PATH": "/usr/bin",
    }
    assert unknown_variables(environ) == [
        "TABLE_CONTROLLER_BAUDD: names no setting; ignored (did you mean TABLE_CONTROLLER_BAUD?)",
        "TABLE_CONTROLLER_XYZZY: names no setting; ignored",
        (
            "table_controller_varient: names no setting; ignored"
            " (did you mean TABLE_CONTROLLER_VARIANT?)"
        ),
    ]


def test_every_setting_has_a_variable_that_is_not_warned_about() -> None:
    environ = {f"TABLE_CONTROLLER_{name.upper()}": "x" for name in Settings.model_fields}
    assert unknown_variables(environ) == []


def test_a_value_from_the_environment_is_named_by_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TABLE_CONTROLLER_BAUD", "fast")
    monkeypatch.setenv("TABLE_CONTROLLER_DISPLAY_PIN", "12ab")
    with pytest.raises(SettingsError) as refused:
        load_settings({"table_id": "T1", "port": "/dev/x"})
    message = str(refused.value)
    assert "TABLE_CONTROLLER_BAUD = 'fast': " in message
    assert "TABLE_CONTROLLER_DISPLAY_PIN = (hidden): must be 4 to 12 digits" in message
    assert "12ab" not in message
    with pytest.raises(SettingsError, match=r"^baud = 12: must be one of"):
        load_settings({"table_id": "T1", "port": "/dev/x", "baud": 12, "display_pin": "1234"})


def test_undecodable_json_in_a_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_CONTROLLER_SUPERVISORS", "{not json")
    with pytest.raises(SettingsError, match=r"^TABLE_CONTROLLER_SUPERVISORS: not valid JSON$"):
        load_settings({"table_id": "T1", "port": "/dev/x"})


def test_a_config_directory_is_refused_as_one(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="a directory, not a TOML file"):
        load_settings({"table_id": "T1", "port": "/dev/x"}, tmp_path)


def test_screen_languages_are_named_by_their_tags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_CONTROLLER_BOARD_LANGUAGE", "zh-TW")
    settings = load_settings({"table_id": "T1", "port": "x"})
    assert (settings.display_language, settings.board_language) == ("en", "zh-Hant")
    monkeypatch.setenv("TABLE_CONTROLLER_DISPLAY_LANGUAGE", "fr")
    with pytest.raises(SettingsError, match=r"DISPLAY_LANGUAGE = 'fr': must be one of en, zh-Hans"):
        load_settings({"table_id": "T1", "port": "x"})


def test_the_web_addresses_names_caps_and_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"table_id": "T1", "port": "/dev/x"}
    defaults = load_settings(base)
    assert defaults.allowed_hosts == []
    assert defaults.web_limits == ListenerLimits()
    monkeypatch.setenv("TABLE_CONTROLLER_ALLOWED_HOSTS", '["Table07", "table07.floor.example."]')
    monkeypatch.setenv("TABLE_CONTROLLER_HTTP_MAX_CONNECTIONS", "40")
    monkeypatch.setenv("TABLE_CONTROLLER_HTTP_REQUEST_TIMEOUT_SECONDS", "2.5")
    settings = load_settings(base)
    assert settings.allowed_hosts == ["table07", "table07.floor.example."]
    assert settings.web_limits == ListenerLimits(request_timeout_s=2.5, max_connections=40)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"allowed_hosts": ["http://table07"]}, "allowed_hosts = ['http://table07']: 'http"),
        ({"allowed_hosts": ["table07:8080"]}, "is not a host name or address"),
        ({"allowed_hosts": ["-table07"]}, "is not a host name or address"),
        ({"allowed_hosts": ["*"]}, "is not a host name or address"),
        ({"http_max_connections": 0}, "http_max_connections = 0: Input should be greater"),
        ({"http_request_timeout_seconds": 0}, "http_request_timeout_seconds = 0"),
    ],
)
def test_a_wrong_web_setting_is_named(flags: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        load_settings({"table_id": "T1", "port": "/dev/x", **flags})


def test_an_address_is_an_allowed_host() -> None:
    hosts = ["10.20.0.17", "::1"]
    settings = load_settings({"table_id": "T1", "port": "/dev/x", "allowed_hosts": hosts})
    assert settings.allowed_hosts == hosts

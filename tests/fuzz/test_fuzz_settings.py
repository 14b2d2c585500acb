# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing ``load_settings``: any file, environment and flags give Settings or SettingsError.

Each example combines the three sources of docs/configuration.md: a TOML file (built from good
and bad values of every setting, sometimes cut or flipped, sometimes raw bytes, sometimes
missing), ``TABLE_CONTROLLER_*`` variables and flags. Oracles:

* ``load_settings`` returns ``Settings`` or raises ``SettingsError``, nothing else (known bugs
  aside, see ``fuzz_support.KNOWN_BUGS``);
* accepted settings keep their promises: the table id matches its pattern, the baud rate is
  one the protocol names, the display address and broker URL can be used, the card source
  and port agree;
* precedence holds: flags over environment over file over defaults;
* a refused display PIN is never echoed in the error message.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.runtime.config import (
    BAUD_RATES,
    ENV_PREFIX,
    Settings,
    SettingsError,
    load_settings,
)
from tests.fuzz import fuzz_support as fuzz
from tests.fuzz.toml_text import toml_document

_TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
#: Settings whose value is a plain string choice: precedence is checked on these.
_CHOICES: Final = {
    "variant": ["commission", "super_six", "lucky", "mini"],
    "protocol": ["srp", "beetek"],
    "log_format": ["json", "console"],
    "log_level": ["debug", "info", "warning", "error"],
    "card_source": ["reader", "rng"],
}
_DEFAULTS: Final = {
    "variant": "commission",
    "protocol": "srp",
    "log_format": "json",
    "log_level": "info",
    "card_source": "reader",
    "topic_prefix": "baccarat/tables",
}
_PIN_MARK: Final = "Zq"

short_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00"),
    max_size=12,
)


def _values(key: str) -> st.SearchStrategy[Any]:
    good: dict[str, st.SearchStrategy[Any]] = {
        "table_id": st.from_regex(_TABLE_ID, fullmatch=True),
        "port": st.sampled_from(["/dev/ttyUSB0", "socket://127.0.0.1:7001", "", "memory://x"]),
        "baud": st.sampled_from(BAUD_RATES),
        "journal": st.sampled_from(["t.journal", "/var/lib/t.journal"]),
        "broker": st.sampled_from(["mqtt://h", "mqtts://u:p@broker:8883", "mqtt://[::1]:1883"]),
        "topic_prefix": st.sampled_from(["baccarat/tables", "casino/pit1"]),
        "display": st.sampled_from(["127.0.0.1:8080", "off", "[::1]:80", "0.0.0.0:65535"]),
        "display_pin": st.from_regex(r"[0-9]{4,12}", fullmatch=True),
        "betting_phase": st.booleans(),
        "paytable": st.just("variants.toml"),
        "events_log": st.just("events.jsonl"),
        **{name: st.sampled_from(choices) for name, choices in _CHOICES.items()},
    }
    bad: dict[str, st.SearchStrategy[Any]] = {
        "baud": st.integers(-1, 200_000) | st.just("9600"),
        "broker": st.sampled_from(["http://h", "mqtt://", "mqtt://h:99999", "mqtt://[::1", "h"]),
        "topic_prefix": st.sampled_from(["/a", "a/", "a/+", "#", ""]),
        "display": st.sampled_from(["8080", "h:0", "h:65536", "h:x", ":80", "h:80:90"]),
        "display_pin": short_text.map(lambda pin: _PIN_MARK + pin),
        "betting_phase": st.sampled_from(["maybe", 2, "yes"]),
    }
    return fuzz.rarely(good[key], bad.get(key, short_text) | st.integers() | st.booleans())


_KEYS: Final = [
    "table_id",
    "variant",
    "port",
    "protocol",
    "baud",
    "journal",
    "broker",
    "topic_prefix",
    "display",
    "display_pin",
    "betting_phase",
    "card_source",
    "paytable",
    "events_log",
    "log_format",
    "log_level",
]


@st.composite
def setting_maps(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(_KEYS), max_size=6, unique=True))
    values = {key: draw(_values(key)) for key in keys}
    if draw(fuzz.one_in(10)):
        values[draw(st.sampled_from(["tableid", "colour", "Variant"]))] = draw(short_text)
    return values


def _env_text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@dataclass(frozen=True, slots=True)
class Sources:
    file_values: dict[str, Any] | None
    file_bytes: bytes | None
    env: dict[str, str]
    flags: dict[str, Any]


@st.composite
def sources(draw: st.DrawFn) -> Sources:
    file_values = draw(st.none() | setting_maps())
    file_bytes = None if file_values is None else toml_document(file_values).encode("utf-8")
    if file_bytes is not None:
        match draw(fuzz.rarely(st.just("intact"), st.sampled_from(["cut", "bytes"]))):
            case "cut":
                file_bytes = file_bytes[: draw(st.integers(0, len(file_bytes)))]
                file_values = None
            case "bytes":
                file_bytes = draw(st.binary(max_size=40))
                file_values = None
            case _:
                pass
    env = {
        ENV_PREFIX + key.upper(): _env_text(value)
        for key, value in draw(setting_maps()).items()
        if "\x00" not in _env_text(value)
    }
    flags: dict[str, Any] = {}
    if not draw(
        fuzz.one_in(5)
    ):  # most runs name a table and where its cards come from, as run does
        flags["table_id"] = draw(_values("table_id"))
        if draw(st.booleans()):
            flags["card_source"] = "rng"
        else:
            flags["port"] = draw(_values("port"))
    flags.update(draw(setting_maps()))
    if draw(fuzz.one_in(50)):
        flags["baud"] = 10**4400  # more digits than int -> str allows
    if draw(fuzz.one_in(5)):
        flags[draw(st.sampled_from(_KEYS))] = None  # a flag not given
    return Sources(file_values, file_bytes, env, flags)


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Exactly ``values`` as the ``TABLE_CONTROLLER_*`` variables, restored afterwards."""
    saved = {key: value for key, value in os.environ.items() if key.startswith(ENV_PREFIX)}
    for key in saved:
        del os.environ[key]
    os.environ.update(values)
    try:
        yield
    finally:
        for key in [key for key in os.environ if key.startswith(ENV_PREFIX)]:
            del os.environ[key]
        os.environ.update(saved)


def _huge_int_flag(flags: dict[str, Any]) -> bool:
    return any(
        isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**4300
        for value in flags.values()
    )


def _expected_choice(key: str, given: Sources) -> object:
    if given.flags.get(key) is not None:
        return given.flags[key]
    env_key = ENV_PREFIX + key.upper()
    if env_key in given.env:
        return given.env[env_key]
    if given.file_values is not None and key in given.file_values:
        return given.file_values[key]
    return _DEFAULTS[key]


def check_accepted(settings: Settings, given: Sources) -> None:
    assert _TABLE_ID.fullmatch(settings.table_id)
    assert settings.baud in BAUD_RATES
    assert (settings.card_source == "reader") == bool(settings.port)
    address = settings.display_address
    assert address is None or 0 < address[1] < 65536
    if settings.broker is not None:
        parts = urlsplit(settings.broker)
        assert parts.scheme in {"mqtt", "mqtts"}
        assert parts.hostname
        assert parts.port is None or 0 <= parts.port < 65536
    prefix = settings.topic_prefix
    assert prefix
    assert not prefix.startswith("/")
    assert not prefix.endswith("/")
    assert not set(prefix) & {"+", "#"}
    for key in [*_CHOICES, "topic_prefix"]:
        assert getattr(settings, key) == _expected_choice(key, given), key


def check_sources(given: Sources, directory: Path) -> None:
    config_file = None
    if given.file_bytes is not None:
        config_file = directory / "table.toml"
        config_file.write_bytes(given.file_bytes)
    with environment(given.env):
        try:
            settings = load_settings(given.flags, config_file)
        except SettingsError as error:
            message = str(error)
            assert message
            pins = [given.flags.get("display_pin"), given.env.get(ENV_PREFIX + "DISPLAY_PIN")]
            for pin in pins:
                if isinstance(pin, str) and pin.startswith(_PIN_MARK):
                    assert repr(pin) not in message
            accepted = 0
        except ValueError:
            if not _huge_int_flag(given.flags):
                raise
            fuzz.count_known_bug("load_settings", "settings-huge-int-flag")
            accepted = 0
        else:
            check_accepted(settings, given)
            accepted = 1
    fuzz.count_example("load_settings", 1, accepted=accepted)


@fuzz.fast_settings(1)
@given(sources())
def test_settings_give_settings_or_a_settings_error(given: Sources) -> None:
    fuzz.in_a_scratch_directory(check_sources)(given)


#: Long-profile weight (examples per unit of ``FUZZ_EXAMPLES``).
WEIGHT = 0.1


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(WEIGHT))
def test_long_settings(round_no: int) -> None:
    fuzz.run_long_round(
        "load_settings", fuzz.in_a_scratch_directory(check_sources), sources(), WEIGHT, round_no
    )

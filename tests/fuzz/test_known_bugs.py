# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The bugs the fuzzers found, each pinned to its smallest input (strict xfail until fixed).

Each test states what the contract promises; today the target breaks it in the way named by
``raises``. When the bug is fixed the test passes, strict xfail turns that into a failure, and
the marker (and the matching entry of ``fuzz_support.KNOWN_BUGS``) comes out.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.procedure.records import RecordRejected, input_from_record
from table_controller.runtime.config import SettingsError, load_settings
from table_controller.variant_file import (
    VariantFileError,
    load_variants,
    parse_variant_overrides,
)

#: Deeper than the interpreter's recursion limit, as tomllib nests one call per level.
DEEP = 5000


def _record(record: object) -> object:
    return input_from_record(record, default_at=0.0, default_command_id="c", default_operator="o")


def test_an_infinite_payout_is_a_variant_file_error() -> None:
    document = {"commission": {"bets": {"tie": {"payouts": {"win": math.inf}}}}}
    with pytest.raises(VariantFileError):
        parse_variant_overrides(document)


def test_an_infinite_payout_in_toml_is_a_variant_file_error(tmp_path: Path) -> None:
    path = tmp_path / "variants.toml"
    path.write_text("[commission.bets.tie]\npayouts = { win = inf }\n", encoding="utf-8")
    with pytest.raises(VariantFileError):
        load_variants(path)


def test_an_integer_too_long_to_read_is_a_variant_file_error(tmp_path: Path) -> None:
    path = tmp_path / "variants.toml"
    path.write_text("[commission.bets.tie]\npayouts = { win = " + "9" * 5000 + " }\n")
    with pytest.raises(VariantFileError):
        load_variants(path)


def test_a_deeply_nested_variant_file_is_a_variant_file_error(tmp_path: Path) -> None:
    path = tmp_path / "variants.toml"
    path.write_text("x = " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    with pytest.raises(VariantFileError):
        load_variants(path)


def test_a_deeply_nested_config_file_is_a_settings_error(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("table_id = " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    with pytest.raises(SettingsError):
        load_settings({"card_source": "rng"}, path)


def test_an_enormous_integer_flag_is_a_settings_error() -> None:
    with pytest.raises(SettingsError):
        load_settings({"table_id": "T1", "card_source": "rng", "baud": 10**4400})


def test_an_at_beyond_float_range_is_a_rejected_record() -> None:
    assert isinstance(_record({"card": "QH", "at": 10**400}), RecordRejected)


def test_a_long_s_is_not_read_as_spades() -> None:
    # "\u017f".upper() == "S": a parser that upper-cased the text would read it as spades.
    assert isinstance(_record({"card": "Q\u017f"}), RecordRejected)


@pytest.mark.slow
def test_a_payout_with_a_huge_exponent_is_refused_quickly() -> None:
    # Fraction("1e999999999") builds 10**999999999 before anything checks the size.
    program = (
        "from table_controller.variant_file import parse_variant_overrides, VariantFileError\n"
        "try:\n"
        "    parse_variant_overrides("
        "{'commission': {'bets': {'tie': {'payouts': {'win': '1e999999999'}}}}})\n"
        "except VariantFileError:\n"
        "    pass\n"
    )
    subprocess.run([sys.executable, "-c", program], check=True, timeout=10)

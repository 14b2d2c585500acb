# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Scenario files: a run's faults, and how a Bee-Tek firmware writes its lines, in TOML.

Pure: no I/O, no clock, no randomness. The caller reads the file; this module reads its text.

A scenario file::

    # Unplug the shoe mid-round and lose a card frame outright.
    [[fault]]
    kind = "unplug"     # any kind of the --faults grammar (faults.py)
    card = 7            # the draw it is aimed at
    seconds = 2.5       # the kind's other parameters, as in --faults

    [[fault]]
    kind = "drop"
    card = 12
    times = "all"

    [beetek]            # only used with --protocol beetek
    ten = "10"          # "T" (default) or "10"
    suit_first = true   # <Card:S4> instead of <Card:4S>
    padded = true       # a space before and after each line (default)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Final

from simulators.virtual_shoe.beetek import BeeTekStyle
from simulators.virtual_shoe.faults import Fault, FaultPlan, FaultSyntaxError, make_fault

_TOP_LEVEL: Final = frozenset({"fault", "beetek"})
_BEETEK_KEYS: Final = frozenset({"ten", "suit_first", "padded"})


class ScenarioError(ValueError):
    """A scenario that cannot be read; the message names the offending entry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """What a scenario file asks for."""

    faults: FaultPlan = field(default_factory=FaultPlan)
    beetek: BeeTekStyle = field(default_factory=BeeTekStyle)


def _parameter_text(where: str, name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ScenarioError(f"{where}: {name} = {value!r} is not a number or a text")
    return str(value)


def _fault(where: str, table: object) -> Fault:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}: not a table")
    kind = table.get("kind")
    if not isinstance(kind, str):
        raise ScenarioError(f'{where}: needs kind = "..."')
    params = {
        name: _parameter_text(where, name, value) for name, value in table.items() if name != "kind"
    }
    try:
        return make_fault(kind, params)
    except FaultSyntaxError as error:
        raise ScenarioError(f"{where}: {error}") from error


def _beetek(table: object) -> BeeTekStyle:
    if not isinstance(table, dict):
        raise ScenarioError("[beetek] is not a table")
    unknown = sorted(set(table) - _BEETEK_KEYS)
    if unknown:
        raise ScenarioError(f"[beetek]: unknown key {unknown[0]!r}")
    ten = table.get("ten", "T")
    if ten not in ("T", "10"):
        raise ScenarioError(f'[beetek]: ten = {ten!r} (expected "T" or "10")')
    flags: dict[str, bool] = {}
    for name in ("suit_first", "padded"):
        value = table.get(name, name == "padded")
        if not isinstance(value, bool):
            raise ScenarioError(f"[beetek]: {name} = {value!r} (expected true or false)")
        flags[name] = value
    return BeeTekStyle(ten="10" if ten == "10" else "T", **flags)


def parse_scenario(text: str) -> Scenario:
    """Read a scenario file's text.

    Raises:
        ScenarioError: Invalid TOML, an unknown key, or a fault that cannot be read.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"not TOML: {error}") from error
    unknown = sorted(set(document) - _TOP_LEVEL)
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r} (expected [[fault]] or [beetek])")
    entries = document.get("fault", [])
    if not isinstance(entries, list):
        raise ScenarioError("fault must be an array of tables: [[fault]]")
    faults = tuple(_fault(f"fault {index}", entry) for index, entry in enumerate(entries, 1))
    style = _beetek(document["beetek"]) if "beetek" in document else BeeTekStyle()
    return Scenario(faults=FaultPlan(faults=faults), beetek=style)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's settings file: its title and its pits or areas, each with its tables.

Edge module: reads a TOML file (``--settings FILE``, docs/floor.md)::

    title = "Main floor"

    [[areas]]
    name = "Pit 1"
    tables = ["T01", "T02", "T03"]

    [[areas]]
    name = "High limit"
    tables = ["H1"]

A table is in one area at most; a table the file names in none that publishes anyway is shown
among the other tables. A wrong file stops the start with one line naming the key and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_controller.floor.model import Area
from table_controller.runtime import TABLE_ID_PATTERN
from table_controller.toml_file import TomlFileError, read_toml

#: The longest title and area name.
MAX_NAME_LENGTH: Final = 64
_KEYS: Final = frozenset({"title", "areas"})
_AREA_KEYS: Final = frozenset({"name", "tables"})


class FloorSettingsError(ValueError):
    """The settings file cannot be used; the message names the file, the key and why."""


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """What the floor shows: its title and its areas in order."""

    title: str = ""
    areas: tuple[Area, ...] = ()


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise FloorSettingsError(f"{where}: a text of 1 to {MAX_NAME_LENGTH} characters")
    if not value.isprintable():
        raise FloorSettingsError(f"{where}: printable characters only")
    return value.strip()


def _area(raw: object, where: str, placed: dict[str, str]) -> Area:
    """One ``[[areas]]`` table; ``placed``: the area of each table named so far (updated)."""
    if not isinstance(raw, dict):
        raise FloorSettingsError(f"{where}: a table with name and tables")
    extra = sorted(set(raw) - _AREA_KEYS)
    if extra:
        raise FloorSettingsError(f"{where}: unknown key {extra[0]!r} (known: name, tables)")
    name = _name(raw.get("name"), f"{where}.name")
    tables = raw.get("tables", [])
    if not isinstance(tables, list):
        raise FloorSettingsError(f"{where}.tables: a list of table ids")
    for table_id in tables:
        if not isinstance(table_id, str) or re.fullmatch(TABLE_ID_PATTERN, table_id) is None:
            raise FloorSettingsError(
                f"{where}.tables: {str(table_id)[:40]!r} is not a table id "
                "(1 to 32 letters, digits, '_', '.' or '-')"
            )
        if table_id in placed:
            raise FloorSettingsError(
                f"{where}.tables: {table_id!r} is already in area {placed[table_id]!r}"
            )
        placed[table_id] = name
    return Area(name, tuple(tables))


def parse_settings(document: dict[str, object], source: str = "settings") -> FloorSettings:
    """The settings in a TOML ``document`` read from ``source`` (named in errors)."""
    unknown = sorted(set(document) - _KEYS)
    if unknown:
        raise FloorSettingsError(f"{source}: unknown key {unknown[0]!r} (known: title, areas)")
    title = "" if "title" not in document else _name(document["title"], f"{source}: title")
    raw_areas = document.get("areas", [])
    if not isinstance(raw_areas, list):
        raise FloorSettingsError(f"{source}: areas: a list of [[areas]] tables")
    areas: list[Area] = []
    placed: dict[str, str] = {}
    for index, raw in enumerate(raw_areas):
        area = _area(raw, f"{source}: areas[{index}]", placed)
        if any(known.name == area.name for known in areas):
            raise FloorSettingsError(f"{source}: areas[{index}].name: {area.name!r} is named twice")
        areas.append(area)
    return FloorSettings(title=title, areas=tuple(areas))


def load_settings(path: Path) -> FloorSettings:
    """The settings in the TOML file at ``path``.

    Raises:
        FloorSettingsError: the file cannot be read, is not TOML, or says something wrong.
    """
    try:
        document = read_toml(path)
    except TomlFileError as error:
        raise FloorSettingsError(str(error)) from None
    return parse_settings(document, str(path))

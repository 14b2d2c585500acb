# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's settings file: areas and their tables, each problem named."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.floor.model import Area
from table_controller.floor.settings import FloorSettingsError, load_settings, parse_settings


def test_a_settings_file_gives_the_title_and_the_areas_in_order(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text(
        'title = "Main floor"\n[[areas]]\nname = "Pit 1"\ntables = ["T01", "T02"]\n'
        '[[areas]]\nname = "High limit"\ntables = ["H1"]\n',
        encoding="utf-8",
    )
    settings = load_settings(path)
    assert settings.title == "Main floor"
    assert settings.areas == (Area("Pit 1", ("T01", "T02")), Area("High limit", ("H1",)))


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"areas": [{"name": "A", "tables": ["T 1"]}]}, r"areas\[0\]\.tables: 'T 1'"),
        (
            {"areas": [{"name": "A", "tables": ["T1"]}, {"name": "B", "tables": ["T1"]}]},
            "already in area 'A'",
        ),
        ({"areas": [{"name": "A"}, {"name": "A"}]}, "named twice"),
        ({"areas": [{"name": ""}]}, r"areas\[0\]\.name"),
        ({"areas": [{"name": "A", "pit_boss": "x"}]}, "unknown key 'pit_boss'"),
        ({"areas": "Pit 1"}, "a list of"),
        ({"title": 7}, "title"),
    ],
)
def test_a_wrong_setting_is_named(document: dict[str, object], named: str) -> None:
    with pytest.raises(FloorSettingsError, match=named):
        parse_settings(document, "floor.toml")


def test_a_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text("[[areas]\n", encoding="utf-8")
    with pytest.raises(FloorSettingsError, match=r"floor\.toml: not valid TOML"):
        load_settings(path)
    with pytest.raises(FloorSettingsError, match="cannot read"):
        load_settings(tmp_path / "missing.toml")

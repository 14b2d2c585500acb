# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A table's stake limits as a technician configures them: a settings file and a variant file."""

from __future__ import annotations

from pathlib import Path

SETTINGS = """\
currency = "MOP"

[limits]
banker = { min = 100, max = 10000 }
player = { min = 100, max = "10000" }
"""
VARIANT_FILE = """\
[commission.bets.banker]
limits = { min = 50, max = 5000 }     # the settings replace these

[commission.bets.tie]
limits = { min = "10.50", max = 1000 }
"""
CONFIGURED = {
    "banker": {"min": 100, "max": 10000},
    "player": {"min": 100, "max": 10000},
    "tie": {"min": 10.5, "max": 1000},
}


def write_configuration(tmp_path: Path, settings: str = SETTINGS) -> list[str]:
    """The settings and variant files; the flags that name them."""
    (tmp_path / "table.toml").write_text(settings, encoding="utf-8")
    (tmp_path / "variants.toml").write_text(VARIANT_FILE, encoding="utf-8")
    return ["--config", str(tmp_path / "table.toml"), "--paytable", str(tmp_path / "variants.toml")]

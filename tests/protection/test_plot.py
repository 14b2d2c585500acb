# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The edge plot: a PNG when matplotlib is there, a clear error when it is not."""

from __future__ import annotations

import random
import struct
import sys
from pathlib import Path

import pytest

from table_controller.protection.plot import PlotUnavailableError, plot_edges
from table_controller.protection.replay_edges import ReplayedRound, replay_edges, split_rounds
from table_controller.rules.variants import COMMISSION
from tests.protection.shoes import fair_shoe


def replayed_shoe() -> tuple[ReplayedRound, ...]:
    shoe = split_rounds("S-PLOT", fair_shoe(8, random.Random(12))[:402], burn=True)
    return replay_edges(COMMISSION, shoe)


def test_without_matplotlib_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes "import matplotlib" fail
    with pytest.raises(PlotUnavailableError, match=r"table-controller\[plot\]"):
        plot_edges(replayed_shoe(), tmp_path / "edges.png")
    assert not (tmp_path / "edges.png").exists()


def test_the_plot_is_a_png_of_the_expected_size(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "edges.png"
    plot_edges(replayed_shoe(), path, bets=["banker", "player_pair", "big"], title="shoe S-PLOT")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (1100, 600)

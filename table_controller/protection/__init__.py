# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Game protection: the live exact edge of every bet, dynamic windows and shuffle integrity.

Pure: no I/O, no clock, no randomness (``plot.py`` aside, an edge module that draws a file).
Everything here decides from data the runtime hands in: the cards that left the shoe, the
variant, the round number. The runtime runs the costly part (the exact analyser, about a
millisecond per shoe composition) between rounds, never on the dealing path.
"""

from table_controller.protection.advisor import (
    AdvisorSettings,
    Analysis,
    AssessmentRequest,
    RoundAdvisor,
    analyse_request,
)
from table_controller.protection.edge import DynamicWindows, RoundEdges
from table_controller.protection.plot import PlotUnavailableError, plot_edges, require_matplotlib
from table_controller.protection.replay_edges import (
    RecordedShoe,
    ReplayedRound,
    ShoeRecorder,
    replay_edges,
)

__all__ = [
    "AdvisorSettings",
    "Analysis",
    "AssessmentRequest",
    "DynamicWindows",
    "PlotUnavailableError",
    "RecordedShoe",
    "ReplayedRound",
    "RoundAdvisor",
    "RoundEdges",
    "ShoeRecorder",
    "analyse_request",
    "plot_edges",
    "replay_edges",
    "require_matplotlib",
]

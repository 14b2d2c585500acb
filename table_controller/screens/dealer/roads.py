# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The scoreboards as the dealer's display draws them: the ``roads`` payload on grids.

Pure: no I/O. Part of the display's view model (``screens/dealer/view.py``); the layout
itself is the rules' :func:`~table_controller.rules.roads.layout_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from table_controller.contract import JsonValue, Roads, to_wire
from table_controller.rules import DEFAULT_GRID_ROWS, layout_grid

_DERIVED_ROADS: Final = ("big_eye_boy", "small_road", "cockroach_pig")


def _sequence(value: object) -> Sequence[object]:
    return value if isinstance(value, list | tuple) else ()


def roads_view(payload: Roads, rows: int = DEFAULT_GRID_ROWS) -> dict[str, JsonValue]:
    """The ``roads`` payload placed on drawn grids ``rows`` high, as a casino draws them.

    The bead plate fills each column top to bottom; the Big Road and the derived roads are
    laid out by :func:`layout_grid` (new columns at the top, dragon tails along the bottom).
    Every placed cell gets ``x`` and ``y`` (from 0); ``width`` is each grid's drawn columns.
    """
    wire = to_wire(payload)
    data: Mapping[str, JsonValue] = wire if isinstance(wire, dict) else {}
    beads: list[JsonValue] = [
        {"x": index // rows, "y": index % rows, **bead}
        for index, bead in enumerate(_sequence(data.get("bead_plate")))
        if isinstance(bead, dict)
    ]
    grids: dict[str, JsonValue] = {"bead_plate": beads}
    widths: dict[str, JsonValue] = {"bead_plate": (len(beads) + rows - 1) // rows}
    big_columns = [list(_sequence(column)) for column in _sequence(data.get("big_road"))]
    big: list[JsonValue] = [
        {"x": x, "y": y, **cell}
        for x, y, cell in layout_grid([c for c in big_columns if c], rows)
        if isinstance(cell, dict)
    ]
    grids["big_road"] = big
    widths["big_road"] = _width(big)
    for name in _DERIVED_ROADS:
        columns = [list(_sequence(column)) for column in _sequence(data.get(name))]
        marks: list[JsonValue] = [
            {"x": x, "y": y, "colour": to_wire(colour)}
            for x, y, colour in layout_grid([c for c in columns if c], rows)
        ]
        grids[name] = marks
        widths[name] = _width(marks)
    return {
        "shoe_id": data.get("shoe_id"),
        "rows": rows,
        **grids,
        "width": widths,
        "ask_banker": data.get("ask_banker"),
        "ask_player": data.get("ask_player"),
        "stats": data.get("stats"),
    }


def _width(cells: Sequence[JsonValue]) -> int:
    """How many drawn columns the placed cells span."""
    columns = [cell["x"] for cell in cells if isinstance(cell, dict)]
    return 1 + max((x for x in columns if isinstance(x, int)), default=-1)

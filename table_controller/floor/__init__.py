# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor view: every table of a floor on one page, live, with its history and its alarms.

Loads aiohttp, aiomqtt and SQLAlchemy: only ``table-controller floor`` imports this face.
"""

from table_controller.floor.app import FloorServer, FloorService, run_floor
from table_controller.floor.live import FloorLink
from table_controller.floor.model import Area, FloorModel
from table_controller.floor.records import DatabaseUnavailable, FloorRecords
from table_controller.floor.settings import FloorSettings, FloorSettingsError, load_settings
from table_controller.floor.texts import FloorTexts

__all__ = [
    "Area",
    "DatabaseUnavailable",
    "FloorLink",
    "FloorModel",
    "FloorRecords",
    "FloorServer",
    "FloorService",
    "FloorSettings",
    "FloorSettingsError",
    "FloorTexts",
    "load_settings",
    "run_floor",
]

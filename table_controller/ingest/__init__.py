# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The casino's side: a reference backend that stores every message of every table once."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.ingest.database import StoreUrlError, engine_url
    from table_controller.ingest.gap_repair import ANY_TABLE, RepairSettings
    from table_controller.ingest.store import IngestStore
    from table_controller.ingest.worker import IngestWorker, WorkerSettings

__all__ = [
    "ANY_TABLE",
    "IngestStore",
    "IngestWorker",
    "RepairSettings",
    "StoreUrlError",
    "WorkerSettings",
    "engine_url",
]

__getattr__ = lazy_face(
    __name__,
    {
        "database": ("StoreUrlError", "engine_url"),
        "gap_repair": ("ANY_TABLE", "RepairSettings"),
        "store": ("IngestStore",),
        "worker": ("IngestWorker", "WorkerSettings"),
    },
)

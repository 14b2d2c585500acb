# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Looking at a journal's files from outside: what its database file holds without its log."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path


def rows_in_the_database_file(path: Path, scratch: Path) -> int:
    """The rows a copy of the database file alone holds: what checkpoints copied out of the log."""
    shutil.copyfile(path, scratch)
    connection = sqlite3.connect(scratch)
    try:
        return int(connection.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        connection.close()

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A journal's SQLite file seen and changed from outside, behind the journal's back.

What its database file holds without its log, and one SQL statement run on a file: how the
tests tamper with a journal, cut it short as a crash would, or make an SQLite file that is not
a journal.
"""

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


def execute_sql(path: Path, sql: str, parameters: tuple[object, ...] = ()) -> None:
    """Run one statement on the SQLite file at ``path`` and commit it."""
    connection = sqlite3.connect(path)
    connection.execute(sql, parameters)
    connection.commit()
    connection.close()

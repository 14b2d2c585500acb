# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable, hash-chained input journal: its file format, its one writer and its lock."""

from table_controller.runtime.journal.format import (
    ANSWER_KEY,
    AUDIT_ROW,
    INPUT_ROW,
    RECALL_ANSWER_KEY,
    FileCheck,
    JournalError,
    JournalInUseError,
    VerifyReport,
)
from table_controller.runtime.journal.journal import Journal, check_file, is_journal
from table_controller.runtime.journal.lock import JournalLock

__all__ = [
    "ANSWER_KEY",
    "AUDIT_ROW",
    "INPUT_ROW",
    "RECALL_ANSWER_KEY",
    "FileCheck",
    "Journal",
    "JournalError",
    "JournalInUseError",
    "JournalLock",
    "VerifyReport",
    "check_file",
    "is_journal",
]

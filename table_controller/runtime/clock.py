# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's wall clock: the one place that reads the time of day.

Runtime: the cores never read a clock; the runtime stamps what needs a UTC wall time (the
journal's rows, the outbox's rows, the status messages) with :func:`utc_now`, handed to the
adapters that need it, so a test hands them a fixed one instead.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Aware UTC wall time."""
    return datetime.now(UTC)

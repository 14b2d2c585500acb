# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The service's log lines that must not stand between a card and its event.

An input's log lines wait until its messages are handed out; the writer thread's failures are
logged from its futures' callbacks.
"""

from __future__ import annotations

from concurrent.futures import Future

import structlog

_LOG = structlog.get_logger("table_controller.service")


def describe_failure(error: BaseException) -> str:
    """An exception in the words of a log line or an alarm: ``KeyError: '7D'``."""
    return f"{type(error).__name__}: {error}"


def log_checkpoint_failure(done: Future[None]) -> None:
    """Log a checkpoint that failed on the writer thread."""
    error = done.exception()
    if error is not None:  # the log grows until the next one succeeds; nothing is lost
        _LOG.warning("journal checkpoint failed", error=str(error))


def log_sink_failure(done: Future[None]) -> None:
    """Log a sink's write that failed on the writer thread."""
    error = done.exception()
    if error is not None:
        # The messages are regenerated from the journal on the next start (same keys).
        _LOG.error("message sink failed; messages will be regenerated on restart", error=str(error))


class DeferredLog:
    """The log lines of an input's decisions, written once its messages are handed out."""

    def __init__(self) -> None:
        self._lines: list[tuple[bool, str, dict[str, object]]] = []

    def info(self, event: str, **fields: object) -> None:
        self._lines.append((False, event, fields))

    def warning(self, event: str, **fields: object) -> None:
        self._lines.append((True, event, fields))

    def write(self) -> None:
        lines, self._lines = self._lines, []
        for warns, event, fields in lines:
            (_LOG.warning if warns else _LOG.info)(event, **fields)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Diagnostic logs: structlog, JSON lines in production, readable in a terminal.

Adapter. The journal, not the log, is the audit record; the log says what happened to people
on call. A line that repeats (one logger's event at one level: a reader's line full of noise
gives one ``shoe line rejected`` per garbled frame) is written at most
:data:`REPEATS_PER_WINDOW` times in :data:`REPEAT_WINDOW_S`; the rest of the window's are
counted and said in one line, ``suppressed K similar lines``, written before the next line
logged once the window is over, or when the process stops. The metrics keep every count
(``table_rejected_frames_total``).
"""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TextIO, TypeAlias

import structlog

#: Lines of one kind written per window; the window's others are counted, not written.
REPEATS_PER_WINDOW: Final = 10
#: The window, in seconds, from the first line of its kind.
REPEAT_WINDOW_S: Final = 10.0
#: The fields of the line that says how many were suppressed.
SUMMARY_FIELDS: Final = ("similar_to", "suppressed", "window_s")

#: A kind of line: its logger's name, its level, and its event (or a foreign line's template).
LineKind: TypeAlias = tuple[str, int, str]


@dataclass(slots=True)
class _Window:
    ends: float
    written: int = 0
    suppressed: int = 0


@dataclass(frozen=True, slots=True)
class Suppressed:
    """The lines of one kind a window did not write."""

    kind: LineKind
    count: int


class RepeatLimiter:
    """Which lines to write: the first ``per_window`` of a kind per window, then only counts.

    Time comes in as ``now`` (monotonic seconds); not thread-safe (the handler's lock is).
    """

    def __init__(self, *, per_window: int, window_s: float) -> None:
        self.per_window = per_window
        self.window_s = window_s
        self._windows: dict[LineKind, _Window] = {}
        self._next_end = math.inf

    def admit(self, kind: LineKind, now: float) -> bool:
        """Whether to write a line of ``kind`` now (take :meth:`ended` first)."""
        window = self._windows.get(kind)
        if window is None or now >= window.ends:
            window = self._windows[kind] = _Window(ends=now + self.window_s)
            self._next_end = min(self._next_end, window.ends)
        if window.written < self.per_window:
            window.written += 1
            return True
        window.suppressed += 1
        return False

    def ended(self, now: float) -> list[Suppressed]:
        """The lines suppressed in the windows over by ``now``; those windows are forgotten."""
        if now < self._next_end:
            return []
        over = [kind for kind, window in self._windows.items() if now >= window.ends]
        said = [self._forget(kind) for kind in over]
        self._next_end = min((window.ends for window in self._windows.values()), default=math.inf)
        return [each for each in said if each.count]

    def pending(self) -> list[Suppressed]:
        """The lines suppressed in every window, over or not; all windows are forgotten."""
        said = [self._forget(kind) for kind in list(self._windows)]
        self._next_end = math.inf
        return [each for each in said if each.count]

    def _forget(self, kind: LineKind) -> Suppressed:
        return Suppressed(kind, self._windows.pop(kind).suppressed)


def line_kind(record: logging.LogRecord) -> LineKind:
    """The kind of a record: structlog's event, or a standard library line's template."""
    event = record.msg.get("event") if isinstance(record.msg, dict) else record.msg
    return record.name, record.levelno, str(event)


class RepeatLimitingHandler(logging.StreamHandler[TextIO]):
    """A stream handler that writes repeated lines through a :class:`RepeatLimiter`."""

    def __init__(
        self,
        stream: TextIO,
        *,
        limiter: RepeatLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(stream)
        self.limiter = limiter or RepeatLimiter(
            per_window=REPEATS_PER_WINDOW, window_s=REPEAT_WINDOW_S
        )
        self._clock = clock

    def emit(self, record: logging.LogRecord) -> None:
        now = self._clock()
        for summary in self.limiter.ended(now):
            super().emit(self._summary(summary))
        if self.limiter.admit(line_kind(record), now):
            super().emit(record)

    def close(self) -> None:
        """Say what the open windows suppressed, then close."""
        self.acquire()
        try:
            for summary in self.limiter.pending():
                super().emit(self._summary(summary))
            self.flush()
        finally:
            self.release()
        super().close()

    def _summary(self, said: Suppressed) -> logging.LogRecord:
        name, level, event = said.kind
        record = logging.LogRecord(
            name, level, __file__, 0, "suppressed %d similar lines", (said.count,), None
        )
        record.similar_to = event
        record.suppressed = said.count
        record.window_s = self.limiter.window_s
        return record


def configure_logging(
    log_format: Literal["json", "console"] = "json",
    level: Literal["debug", "info", "warning", "error"] = "info",
) -> None:
    """Send structlog and the standard library's loggers to stderr in one format."""
    numeric = getattr(logging, level.upper())
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        cache_logger_on_first_use=True,
    )
    handler = RepeatLimitingHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder(allow=SUMMARY_FIELDS)],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Repeated log lines: the first few of a kind per window written, the rest counted and said.

The limiter alone with synthetic times, then the handler ``run`` logs through
(``runtime/logs.py``) on a real logger writing to a text stream, its clock a list of times.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from table_controller.runtime.logs import RepeatLimiter, RepeatLimitingHandler, Suppressed

NOISE = ("table_controller.service", logging.WARNING, "shoe line rejected")


def test_a_window_writes_its_first_lines_of_a_kind_and_counts_the_rest() -> None:
    limiter = RepeatLimiter(per_window=3, window_s=10.0)
    admitted = [limiter.admit(NOISE, now) for now in (0.0, 0.1, 0.2, 0.3, 5.0, 9.9)]
    assert admitted == [True, True, True, False, False, False]
    assert limiter.ended(9.99) == []
    assert limiter.ended(10.0) == [Suppressed(NOISE, 3)]
    assert limiter.ended(10.0) == []  # said once
    assert limiter.admit(NOISE, 10.0)  # a new window
    assert limiter.pending() == []  # it has suppressed nothing yet


def test_kinds_are_limited_apart_and_a_window_with_nothing_suppressed_says_nothing() -> None:
    limiter = RepeatLimiter(per_window=1, window_s=1.0)
    other_event = (NOISE[0], NOISE[1], "shoe warning")
    other_level = (NOISE[0], logging.ERROR, NOISE[2])
    other_logger = ("drivers.shoe_reader", NOISE[1], NOISE[2])
    assert all(limiter.admit(kind, 0.0) for kind in (NOISE, other_event, other_level, other_logger))
    assert not limiter.admit(NOISE, 0.5)
    assert limiter.ended(1.0) == [Suppressed(NOISE, 1)]


def test_what_open_windows_suppressed_is_said_when_asked_for_all() -> None:
    limiter = RepeatLimiter(per_window=2, window_s=60.0)
    for now in range(5):
        limiter.admit(NOISE, float(now))
    assert limiter.pending() == [Suppressed(NOISE, 3)]
    assert limiter.pending() == []


@pytest.fixture
def stream_and_logger() -> Iterator[tuple[io.StringIO, logging.Logger, list[float]]]:
    """A logger of its own writing through the handler; the test sets the handler's clock."""
    stream = io.StringIO()
    times = [0.0]
    handler = RepeatLimitingHandler(
        stream,
        limiter=RepeatLimiter(per_window=2, window_s=10.0),
        clock=lambda: times[0],
    )
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("tests.log_repeats")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield stream, logger, times
    logger.removeHandler(handler)
    handler.close()


def test_the_handler_writes_the_summary_before_the_next_line_after_the_window(
    stream_and_logger: tuple[io.StringIO, logging.Logger, list[float]],
) -> None:
    stream, logger, times = stream_and_logger
    for n in range(6):  # similar: the same template, whatever its arguments
        logger.warning("frame %d rejected", n)
    logger.info("card %s", "QH")  # another kind: written
    times[0] = 10.0
    logger.warning("frame %d rejected", 6)
    assert stream.getvalue().splitlines() == [
        "WARNING frame 0 rejected",
        "WARNING frame 1 rejected",
        "INFO card QH",
        "WARNING suppressed 4 similar lines",
        "WARNING frame 6 rejected",
    ]


def test_closing_the_handler_says_what_its_open_windows_suppressed(
    stream_and_logger: tuple[io.StringIO, logging.Logger, list[float]],
) -> None:
    stream, logger, _ = stream_and_logger
    for _ in range(5):
        logger.error("accept failed")
    handler = logger.handlers[0]
    handler.close()
    assert stream.getvalue().splitlines() == [
        "ERROR accept failed",
        "ERROR accept failed",
        "ERROR suppressed 3 similar lines",
    ]

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The per-operator request limit ``resend`` and ``recall`` share: window, message, memory."""

from __future__ import annotations

import pytest

from table_controller.ingress.request_limit import RATE_WINDOW_S, RequestRateLimit


def test_the_rate_limit_takes_n_a_minute_per_operator_in_a_sliding_window() -> None:
    limit = RequestRateLimit(3, requests="resends")
    assert [limit.allow("ingest-1", t) for t in (0.0, 10.0, 20.0)] == [None, None, None]
    wait = limit.allow("ingest-1", 30.0)
    assert wait == pytest.approx(RATE_WINDOW_S - 30.0)
    assert limit.allow("ingest-2", 30.0) is None  # per operator
    assert limit.allow("ingest-1", 59.9) is not None
    assert limit.allow("ingest-1", 60.0) is None  # the first left the window
    assert limit.allow("ingest-1", 61.0) is not None  # refusals were not counted: 10, 20, 60
    assert limit.allow("ingest-1", 70.0) is None
    with pytest.raises(ValueError, match="at least one"):
        RequestRateLimit(0, requests="resends")


def test_a_refusal_names_the_operator_the_limit_and_when_the_next_is_taken() -> None:
    limit = RequestRateLimit(2, requests="recalls")
    assert limit.refusal("pit-12", 0.0) is None
    assert limit.refusal("pit-12", 15.0) is None
    assert limit.refusal("pit-12", 20.0) == (
        "operator 'pit-12' asked for 2 recalls in the last minute, the most this table takes;"
        " the next is taken in 40 s"
    )
    assert limit.refusal("pit-7", 20.0) is None


def test_operators_idle_for_a_whole_window_are_forgotten() -> None:
    """Any operator may ``recall``: a flood of made-up names must not grow the limit forever."""
    limit = RequestRateLimit(1, requests="recalls")
    for minute in range(5):
        for name in range(3000):
            assert limit.allow(f"op-{minute}-{name}", minute * RATE_WINDOW_S + name / 1000) is None
    assert len(limit) <= 2 * 3000
    assert limit.allow("op-4-0", 4 * RATE_WINDOW_S + 10) is not None  # the recent are kept

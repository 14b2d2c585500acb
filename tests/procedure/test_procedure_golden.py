# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The whole decision stream of a long seeded session equals the recorded one, input by input.

The fixture was recorded by ``python -m tests.procedure.golden_stream``; a change that alters
any decision, state or shoe count fails here with the first input that differs.
"""

from __future__ import annotations

import gzip
import itertools
import json

from tests.procedure.golden_stream import FIXTURE, every_session


def test_a_long_seeded_session_draws_the_recorded_decisions() -> None:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as recorded:
        pairs = itertools.zip_longest(recorded, every_session())
        for number, (expected, actual) in enumerate(pairs, start=1):
            assert expected is not None, f"more inputs played than recorded (line {number})"
            assert actual is not None, f"fewer inputs played than recorded (line {number})"
            if expected.rstrip("\n") != actual:
                assert json.loads(actual) == json.loads(expected), f"line {number} differs"
                raise AssertionError(f"line {number}: same data, other JSON text")
        assert number > 5000

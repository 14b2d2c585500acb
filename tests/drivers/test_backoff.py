# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The one reconnection backoff: exponential steps, the cap, and where the jitter lands."""

import pytest

from drivers.backoff import Backoff


class Scripted:
    """A jitter source that returns the given numbers in turn."""

    def __init__(self, *values: float) -> None:
        self._values = list(values)

    def random(self) -> float:
        return self._values.pop(0)


def test_no_jitter_waits_half_the_step_and_full_jitter_almost_all_of_it() -> None:
    backoff = Backoff(initial_s=0.5, factor=2.0, cap_s=30.0)
    assert backoff.delay(0, Scripted(0.0)) == 0.25
    assert backoff.delay(0, Scripted(0.5)) == 0.375
    assert backoff.delay(3, Scripted(0.0)) == 2.0  # 0.5 * 2**3 = 4 s, half of it


def test_steps_double_until_the_cap_and_then_stay_there() -> None:
    backoff = Backoff(initial_s=0.5, factor=2.0, cap_s=30.0)
    steps = [backoff.delay(n, Scripted(0.0)) * 2 for n in range(10)]
    assert steps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0, 30.0]
    assert backoff.delay(10_000, Scripted(0.0)) == 15.0
    assert backoff.delay(10_000, Scripted(0.999_999)) <= 30.0


def test_the_factor_sets_the_growth() -> None:
    backoff = Backoff(initial_s=1.0, factor=3.0, cap_s=100.0)
    assert [backoff.delay(n, Scripted(0.0)) * 2 for n in range(5)] == [1.0, 3.0, 9.0, 27.0, 81.0]


@pytest.mark.parametrize(
    ("initial_s", "factor", "cap_s"), [(0.0, 2.0, 1.0), (2.0, 2.0, 1.0), (0.1, 0.5, 1.0)]
)
def test_unusable_settings_are_refused(initial_s: float, factor: float, cap_s: float) -> None:
    with pytest.raises(ValueError, match="backoff"):
        Backoff(initial_s=initial_s, factor=factor, cap_s=cap_s)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Capped, jittered exponential backoff between reconnection attempts.

Pure: no clock, no I/O; the random source is handed in, so a seeded or scripted one makes the
delays repeatable. Shared by the shoe reader (reopening its port) and the controller's MQTT
link and subscriptions (reconnecting to the broker).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

#: Exponent beyond which the step is the cap anyway (keeps ``factor ** n`` a small float).
_MAX_EXPONENT = 64


class JitterSource(Protocol):
    """Where the jitter comes from: ``random.Random`` and ``random.SystemRandom`` qualify."""

    def random(self) -> float:
        """A number in [0, 1)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Backoff:
    """Capped exponential backoff with "equal jitter".

    Attempt ``n`` (from 0) waits between half and all of ``min(cap_s, initial_s * factor**n)``,
    so many clients that lost the same device or broker do not return in step.
    """

    initial_s: float = 0.25
    factor: float = 2.0
    cap_s: float = 5.0

    def __post_init__(self) -> None:
        if not (0 < self.initial_s <= self.cap_s and self.factor >= 1):
            raise ValueError(
                f"backoff {self.initial_s} s x {self.factor} up to {self.cap_s} s: "
                "need 0 < initial <= cap and a factor of at least 1"
            )

    def delay(self, attempt: int, jitter: JitterSource) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 0)."""
        step = min(self.cap_s, self.initial_s * self.factor ** min(attempt, _MAX_EXPONENT))
        return step * (0.5 + jitter.random() / 2)

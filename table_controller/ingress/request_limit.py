# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How often one operator may ask the table for something costly: ``resend``, ``recall``.

Pure: no I/O, no clock of its own (the caller passes the monotonic time), no randomness. The
command ingress counts each request it takes against a :class:`RequestRateLimit`, and answers
one past the limit with ``rate_limited`` and :meth:`RequestRateLimit.refusal`'s message.
"""

from __future__ import annotations

from collections import deque
from typing import Final

#: The window the limit counts in, in seconds.
RATE_WINDOW_S: Final = 60.0
#: Operators counted before the limit first forgets those idle for a whole window.
_FORGET_FROM: Final = 1024


class RequestRateLimit:
    """At most ``per_minute`` requests per operator in any 60 seconds (a sliding window).

    Only requests it allows are counted: an operator refused for asking too often does not
    push its own next chance further out. Operators idle for a whole window are forgotten, so
    many names (any operator may ``recall``) cost memory for a minute only.

    Args:
        per_minute: the requests taken per operator in any 60 seconds.
        requests: what is counted, in the plural, for the refusal's message (``resends``).
    """

    def __init__(self, per_minute: int, *, requests: str) -> None:
        if per_minute < 1:
            raise ValueError(f"the {requests} limit must allow at least one request a minute")
        self.per_minute = per_minute
        self.requests = requests
        self._taken: dict[str, deque[float]] = {}
        self._forget_at = _FORGET_FROM

    def allow(self, operator: str, now: float) -> float | None:
        """Count one request of ``operator`` at monotonic ``now``; None: allowed.

        Refused, it returns how many seconds until the operator's oldest counted request
        leaves the window (when the next one would be allowed).
        """
        if len(self._taken) >= self._forget_at:
            self._forget_idle(now)
        taken = self._taken.setdefault(operator, deque())
        while taken and now - taken[0] >= RATE_WINDOW_S:
            taken.popleft()
        if len(taken) >= self.per_minute:
            return RATE_WINDOW_S - (now - taken[0])
        taken.append(now)
        return None

    def refusal(self, operator: str, now: float) -> str | None:
        """Count one request as :meth:`allow` does; None: allowed, else why it is refused."""
        wait_s = self.allow(operator, now)
        if wait_s is None:
            return None
        return (
            f"operator {operator!r} asked for {self.per_minute} {self.requests} in the last "
            f"minute, the most this table takes; the next is taken in {wait_s:.0f} s"
        )

    def _forget_idle(self, now: float) -> None:
        """Drop the operators with no request in the window (amortised: a sweep per doubling)."""
        self._taken = {
            operator: taken
            for operator, taken in self._taken.items()
            if taken and now - taken[-1] < RATE_WINDOW_S
        }
        self._forget_at = max(_FORGET_FROM, 2 * len(self._taken))

    def __len__(self) -> int:
        """How many operators are counted now."""
        return len(self._taken)

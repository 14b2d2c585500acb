# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How many lines a repeated log event may write: one per key per interval, the rest counted.

Pure: the time is passed in. A hostile publisher can send thousands of messages a second that
the ingest refuses; each is counted, but its log line is written only when
:meth:`LogBudget.allow` says so, with the number of lines left out since the last one.
"""

from __future__ import annotations

from typing import Final

#: Seconds between two lines of one key.
EVERY_S: Final = 10.0
#: The most keys remembered (keys may come from the broker, as table ids do).
MAX_KEYS: Final = 1000


class LogBudget:
    """One log line per key per ``every_s``; how many were left out in between."""

    def __init__(self, every_s: float = EVERY_S, max_keys: int = MAX_KEYS) -> None:
        self._every_s = every_s
        self._max_keys = max_keys
        #: Per key: when its last line was written, and the lines left out since.
        self._keys: dict[str, tuple[float, int]] = {}

    def allow(self, key: str, now: float) -> int | None:
        """None: leave this line out; else write it, saying how many were left out before it."""
        last = self._keys.get(key)
        if last is not None and now - last[0] < self._every_s:
            self._keys[key] = (last[0], last[1] + 1)
            return None
        if last is None and len(self._keys) >= self._max_keys:
            del self._keys[next(iter(self._keys))]  # the oldest key: its count is lost
        self._keys[key] = (now, 0)
        return 0 if last is None else last[1]

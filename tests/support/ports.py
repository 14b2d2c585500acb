# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A TCP port on the loopback interface that nothing listens on."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port the system had free a moment ago (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

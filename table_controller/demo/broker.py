# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's MQTT broker: mosquitto, the broker the deployment runs (``deploy/mosquitto/``).

What the demo needs to know of it: where the program is, and the configuration it is given.
``processes.py`` starts it as a child process on a free port of 127.0.0.1: anonymous logins,
nothing kept on disk, MQTT 5, 3.1.1 and 3.1; its start and stop, the clients it serves, and
its warnings and errors, in the demo's log.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from typing import Final

#: Where Debian installs ``mosquitto``: system programs, on the PATH of root only.
SYSTEM_DIRS: Final = ("/usr/sbin", "/usr/local/sbin")
#: What the demo says when it is missing.
MOSQUITTO_MISSING: Final = (
    "the embedded broker is mosquitto, which is not installed: apt-get install mosquitto,"
    " or give --broker"
)
#: What mosquitto logs once its listener is open (``log_type information``).
RUNNING: Final = re.compile(r"mosquitto version \S+ running")
#: What mosquitto logs when another process took the port (``log_type error``).
PORT_TAKEN: Final = "Address already in use"


def find_mosquitto(
    search_path: str | None = None, system_dirs: Sequence[str] = SYSTEM_DIRS
) -> str | None:
    """The ``mosquitto`` program on ``search_path`` (default: PATH), else in ``system_dirs``."""
    if search_path is None:
        search_path = os.environ.get("PATH", os.defpath)
    dirs = [*search_path.split(os.pathsep), *system_dirs]
    return shutil.which("mosquitto", path=os.pathsep.join(dirs))


def broker_config(host: str, port: int, user: str) -> str:
    """The broker's configuration: one TCP listener, anonymous logins, nothing kept on disk.

    It runs as ``user``, the demo's own: mosquitto started as root otherwise changes to the
    user ``mosquitto``, and a change of user cancels the signal that stops the demo's children
    with it (``PR_SET_PDEATHSIG``, ``processes.py``).
    """
    return "\n".join(
        (
            f"user {user}",
            f"listener {port} {host}",
            "allow_anonymous true",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type information",
            "",
        )
    )

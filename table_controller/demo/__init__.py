# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller demo``: a whole table on one machine, with no hardware.

The parts, each in its own module:

* ``broker``: the embedded MQTT broker: where mosquitto is, and its configuration;
* ``pit``: pure: which command the automatic pit gives the table next, and when;
* ``console``: pure: the console view's lines, from what a backend receives;
* ``shoe``: adapter: the virtual shoe on a pseudo-terminal and the automatic dealer;
* ``processes``: adapter: starting, watching and stopping the child processes;
* ``runner``: adapter: puts it all together and stops it all cleanly.
"""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.demo.broker import MOSQUITTO_MISSING, find_mosquitto
    from table_controller.demo.runner import DemoSettings, demo_limits, run_demo

__all__ = [
    "MOSQUITTO_MISSING",
    "DemoSettings",
    "demo_limits",
    "find_mosquitto",
    "run_demo",
]

__getattr__ = lazy_face(
    __name__,
    {
        "broker": ("MOSQUITTO_MISSING", "find_mosquitto"),
        "runner": ("DemoSettings", "demo_limits", "run_demo"),
    },
)

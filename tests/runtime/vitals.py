# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A healthy table's vitals and a connected broker's, for the health and metrics tests."""

from __future__ import annotations

from typing import Final

from table_controller.runtime.metrics import BrokerVitals, Vitals

#: A table between rounds with everything up and no broker configured.
HEALTHY: Final = Vitals(
    table_id="T07",
    version="0.1.0",
    uptime_s=12.5,
    phase="between_rounds",
    reader_state="connected",
    journal_ok=True,
    input_queue_depth=0,
    inputs_handled=40,
    rejected_frames=0,
    analyses_failed=0,
    broker=None,
)
#: A broker connected once, with nothing waiting in the outbox.
BROKER: Final = BrokerVitals(
    connected=True, last_error=None, connects=1, errors=0, published=120, outbox_depth=0
)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The runtime: the only place where time, I/O and ordering live (journal, shoe link, service)."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.runtime.card_source import RngCardSource
    from table_controller.runtime.clock import utc_now
    from table_controller.runtime.command_intake import CommandIngress
    from table_controller.runtime.config import (
        TABLE_ID_PATTERN,
        Settings,
        SettingsError,
        environment_variable,
        load_settings,
        unknown_variables,
    )
    from table_controller.runtime.interpreter import DecisionInterpreter, answer_message
    from table_controller.runtime.jsonl_sink import JsonLinesSink
    from table_controller.runtime.logs import configure_logging
    from table_controller.runtime.metrics import TableMetrics
    from table_controller.runtime.outbox_sink import FanOutSink, OutboxSink
    from table_controller.runtime.resends import Resends
    from table_controller.runtime.service import TableService
    from table_controller.runtime.service_ports import MessageSink, TableObserver
    from table_controller.runtime.signals import run_until_signalled, stop_signals
    from table_controller.runtime.systemd import notify_systemd

__all__ = [
    "TABLE_ID_PATTERN",
    "CommandIngress",
    "DecisionInterpreter",
    "FanOutSink",
    "JsonLinesSink",
    "MessageSink",
    "OutboxSink",
    "Resends",
    "RngCardSource",
    "Settings",
    "SettingsError",
    "TableMetrics",
    "TableObserver",
    "TableService",
    "answer_message",
    "configure_logging",
    "environment_variable",
    "load_settings",
    "notify_systemd",
    "run_until_signalled",
    "stop_signals",
    "unknown_variables",
    "utc_now",
]

__getattr__ = lazy_face(
    __name__,
    {
        "card_source": ("RngCardSource",),
        "clock": ("utc_now",),
        "command_intake": ("CommandIngress",),
        "config": (
            "TABLE_ID_PATTERN",
            "Settings",
            "SettingsError",
            "environment_variable",
            "load_settings",
            "unknown_variables",
        ),
        "interpreter": ("DecisionInterpreter", "answer_message"),
        "jsonl_sink": ("JsonLinesSink",),
        "logs": ("configure_logging",),
        "metrics": ("TableMetrics",),
        "outbox_sink": ("FanOutSink", "OutboxSink"),
        "resends": ("Resends",),
        "service": ("TableService",),
        "service_ports": ("MessageSink", "TableObserver"),
        "signals": ("run_until_signalled", "stop_signals"),
        "systemd": ("notify_systemd",),
    },
)

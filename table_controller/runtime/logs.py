# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Diagnostic logs: structlog, JSON lines in production, readable in a terminal.

Adapter. The journal, not the log, is the audit record; the log says what happened to people
on call (STACK.md section 1).
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog


def configure_logging(
    log_format: Literal["json", "console"] = "json",
    level: Literal["debug", "info", "warning", "error"] = "info",
) -> None:
    """Send structlog and the standard library's loggers to stderr in one format."""
    numeric = getattr(logging, level.upper())
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)

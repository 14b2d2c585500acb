# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's health endpoint and Prometheus scrape endpoint: ``GET /health``, ``GET /metrics``.

Runtime adapter (aiohttp), served from the service's own event loop like the dealer display.
It decides nothing about the game and never holds up the table: a request reads the vitals
(attributes of the live objects, no I/O) and renders them. The status rules, :func:`assess`,
are pure: no I/O, no clock.

Status rules (the ``status`` of ``GET /health``):

* ``failing`` (HTTP 503): the controller cannot take play: the journal refuses writes (so
  nothing is recorded, acknowledged or acted on; the table is held; the problem and
  ``journal.cause`` say why, in SQLite's words), or the table is
  ``faulted`` (a bug, or an input not carried out: held until a supervisor's ``void_shoe``;
  a restart replays to the same fault). A person must look.
* ``degraded`` (HTTP 200): the controller works, but a device it depends on does not: the shoe
  reader is offline or reports a fault, the broker is not connected (messages wait in the
  durable outbox), or the outbox has grown past :data:`OUTBOX_DEPTH_DEGRADED` messages.
* ``ok`` (HTTP 200): none of the above.

Routes:

* ``GET /health``: JSON, ``{"status", "problems", "table_id", "version", "uptime_s", "phase",
  "reader", "broker", "journal", "outbox", "inputs_handled", "input_queue_depth",
  "rejected_frames"}``; 503 when failing.
* ``GET /health/live``: 200 whenever the event loop answers (a liveness probe that must not
  restart the table for a broker or a reader it cannot fix).
* ``GET /metrics``: the Prometheus text exposition of :class:`TableMetrics`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Self

import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from table_controller.runtime.metrics import (
    READER_CONNECTED,
    LinkView,
    ResendCounts,
    StaffCounts,
    TableMetrics,
    TableProbe,
    Vitals,
)
from table_controller.runtime.service import TableService
from table_controller.screens import ListenerLimits
from table_controller.screens.web import SiteServer

__all__ = ["HealthServer", "observe"]

_LOG = structlog.get_logger("table_controller.health")
#: More messages than this waiting for the broker means the backend is falling behind: about
#: an hour of play at a busy table (some 25 messages a round, 60 rounds an hour).
OUTBOX_DEPTH_DEGRADED: Final = 1500
#: How long a stopping server waits for requests in progress.
SHUTDOWN_TIMEOUT_S: Final = 1.0


class Status(enum.StrEnum):
    """How the table is, from the health endpoint's point of view."""

    #: Everything works.
    OK = "ok"
    #: The controller works; a device it depends on (reader, broker) does not.
    DEGRADED = "degraded"
    #: The controller cannot take play: the journal refuses writes or the procedure faulted.
    FAILING = "failing"


@dataclass(frozen=True, slots=True, kw_only=True)
class Assessment:
    """A status and the problems that led to it, most severe first."""

    status: Status
    problems: tuple[str, ...]


def assess(vitals: Vitals) -> Assessment:
    """The table's status under the rules of the module docstring. Pure."""
    failing: list[str] = []
    degraded: list[str] = []
    if not vitals.journal_ok:
        cause = "" if vitals.journal_cause is None else f" ({vitals.journal_cause})"
        failing.append(f"journal refuses writes{cause}: the table is held")
    if vitals.phase == "faulted":
        failing.append("table faulted: a supervisor's void_shoe releases it")
    if vitals.reader_state != READER_CONNECTED:
        degraded.append(f"shoe reader {vitals.reader_state}")
    broker = vitals.broker
    if broker is not None:
        if not broker.connected:
            why = "" if broker.last_error is None else f": {broker.last_error}"
            degraded.append(f"broker not connected{why}")
        if broker.outbox_depth > OUTBOX_DEPTH_DEGRADED:
            degraded.append(f"{broker.outbox_depth} messages wait for the broker")
    if failing:
        status = Status.FAILING
    elif degraded:
        status = Status.DEGRADED
    else:
        status = Status.OK
    return Assessment(status=status, problems=(*failing, *degraded))


def health_document(vitals: Vitals) -> dict[str, object]:
    """The JSON body of ``GET /health``. Pure."""
    assessment = assess(vitals)
    broker = vitals.broker
    return {
        "status": assessment.status.value,
        "problems": list(assessment.problems),
        "table_id": vitals.table_id,
        "version": vitals.version,
        "uptime_s": round(vitals.uptime_s, 3),
        "phase": vitals.phase,
        "reader": {
            "state": vitals.reader_state,
            "connected": vitals.reader_state == READER_CONNECTED,
        },
        "broker": None
        if broker is None
        else {
            "connected": broker.connected,
            "last_error": broker.last_error,
            "reconnects": broker.reconnects,
            "published": broker.published,
        },
        "journal": {"ok": vitals.journal_ok}
        | ({} if vitals.journal_cause is None else {"cause": vitals.journal_cause}),
        "outbox": None if broker is None else {"depth": broker.outbox_depth},
        "inputs_handled": vitals.inputs_handled,
        "input_queue_depth": vitals.input_queue_depth,
        "rejected_frames": vitals.rejected_frames,
    }


class HealthServer(SiteServer):
    """Serves ``/health``, ``/health/live`` and ``/metrics`` on ``host:port``.

    Args:
        vitals: reads the table's vitals (:meth:`TableProbe.vitals`); cheap, no I/O.
        registry: the metrics to expose (:attr:`TableMetrics.registry`).
        host: the address to listen on.
        port: the port; 0 picks a free one (read :attr:`port` after :meth:`start`).
        limits: the address's caps and timeouts; None: the defaults.
    """

    site_name = "health and metrics"
    shutdown_timeout = SHUTDOWN_TIMEOUT_S

    def __init__(
        self,
        vitals: Callable[[], Vitals],
        registry: CollectorRegistry,
        *,
        host: str,
        port: int,
        limits: ListenerLimits | None = None,
    ) -> None:
        super().__init__(host, port, log=_LOG, limits=limits)
        self._vitals = vitals
        self._registry = registry

    def make_app(self) -> web.Application:
        app = self.application()
        app.router.add_get("/health", self._health)
        app.router.add_get("/health/live", self._live)
        app.router.add_get("/metrics", self._metrics)
        return app

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def _health(self, request: web.Request) -> web.Response:
        del request
        document = health_document(self._vitals())
        failing = document["status"] == Status.FAILING.value
        return web.json_response(
            document,
            status=503 if failing else 200,
            headers={"Cache-Control": "no-store"},
        )

    async def _live(self, request: web.Request) -> web.Response:
        del request
        return web.json_response({"status": "alive"}, headers={"Cache-Control": "no-store"})

    async def _metrics(self, request: web.Request) -> web.Response:
        del request
        body = generate_latest(self._registry)
        response = web.Response(body=body, headers={"Cache-Control": "no-store"})
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response


def observe(  # noqa: PLR0913 - keyword-only wiring, each from the command line's settings
    service: TableService,
    metrics: TableMetrics,
    *,
    table_id: str,
    version: str,
    host: str,
    port: int,
    link: LinkView | None = None,
    staff: StaffCounts | None = None,
    resends: ResendCounts | None = None,
    limits: ListenerLimits | None = None,
) -> HealthServer:
    """A server, not started, for ``metrics`` (one of the service's observers) and the vitals."""
    probe = TableProbe(
        service, table_id=table_id, version=version, link=link, staff=staff, resends=resends
    )
    metrics.read_vitals(probe.vitals)
    return HealthServer(probe.vitals, metrics.registry, host=host, port=port, limits=limits)

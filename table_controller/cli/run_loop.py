# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``run``'s adapters running until SIGINT or SIGTERM, and their stopping in order.

The screens are served first, then the metrics, the shoe reader and the tasks (the table, the
staff register's watch, the MQTT link and the command ingress) under one task group, with
systemd told ``READY=1``. On a stop signal the table stops first, so no input follows and the
messages of the last ones are written; the MQTT link then gets :data:`SHUTDOWN_GRACE_S` to
send them and publish its offline status. SIGHUP reloads the staff register.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

from drivers.shoe_reader import ShoeReader
from table_controller.runtime import TableService, notify_systemd, stop_signals
from table_controller.staff import StaffDesk

if TYPE_CHECKING:  # imported where used: a table without a broker or display never loads them
    from table_controller.mqtt.client import MqttLink
    from table_controller.runtime import CommandIngress
    from table_controller.runtime.health import HealthServer
    from table_controller.screens.board import BoardServer
    from table_controller.screens.dealer import DisplayServer
    from table_controller.screens.web import SiteServer

_LOG = structlog.get_logger("table_controller.run")
#: Seconds a stopping service gives the MQTT link to drain and publish its offline status.
SHUTDOWN_GRACE_S = 5.0


def _watch_staff(group: asyncio.TaskGroup, desk: StaffDesk | None) -> asyncio.Task[None] | None:
    """Reload the staff register on SIGHUP and whenever its file changes.

    SIGHUP is taken (and logged) on a table without a register too: it never stops the table.
    """
    if desk is None:
        return None
    asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, desk.reload)
    if desk.path is None:
        return None
    return group.create_task(desk.watch(), name="staff register")


def _start_broker_tasks(
    group: asyncio.TaskGroup,
    service: TableService,
    link: MqttLink | None,
    ingress: CommandIngress | None,
) -> tuple[asyncio.Task[None] | None, asyncio.Task[None] | None]:
    """The MQTT link's task and the command ingress's, when there is a broker."""
    if link is None or ingress is None:
        return None, None
    link_task = group.create_task(
        link.run(
            on_command=ingress.receive,
            reader=lambda: service.reader_state,
        ),
        name="mqtt link",
    )
    return link_task, group.create_task(ingress.run(), name="commands")


def _web_guard(servers: Sequence[SiteServer | None]) -> contextlib.AbstractContextManager[object]:
    """The open-file limit raised for the web addresses' caps; failing accepts logged sparingly.

    Nothing to do (and aiohttp left unloaded) when no web address is served.
    """
    serving = [server for server in servers if server is not None]
    if not serving:
        return contextlib.nullcontext()
    from table_controller.screens import (  # noqa: PLC0415 - only when served
        descriptors_needed,
        ensure_descriptors,
    )
    from table_controller.screens.web import AcceptFailures  # noqa: PLC0415

    ensure_descriptors(descriptors_needed(server.listener.limits for server in serving))
    return AcceptFailures().watching(asyncio.get_running_loop())


async def _start_screens(display: DisplayServer | None, board: BoardServer | None) -> None:
    """Serve the dealer display and the players' board's own address, those configured."""
    if display is not None:
        await display.start()
        _LOG.info("dealer display", url=display.url)
    if board is not None:
        await board.start()
        _LOG.info("players' board", url=board.url)


async def run_until_stopped(  # noqa: PLR0913 - the adapters the command line built
    service: TableService,
    reader: ShoeReader | None,
    display: DisplayServer | None,
    link: MqttLink | None,
    ingress: CommandIngress | None,
    *,
    health: HealthServer | None = None,
    desk: StaffDesk | None = None,
    board: BoardServer | None = None,
) -> int:
    """Run the adapters until SIGINT or SIGTERM, then stop them in order; returns 0."""
    stop = asyncio.Event()
    with stop_signals(lambda _signum: stop.set()):
        try:
            async with contextlib.AsyncExitStack() as running:
                running.enter_context(_web_guard((display, board, health)))
                await _start_screens(display, board)
                if health is not None:  # serving before READY=1, stopped after everything else
                    await running.enter_async_context(health)
                if reader is not None:
                    await running.enter_async_context(reader)
                group = await running.enter_async_context(asyncio.TaskGroup())
                # READY=1 now (journal replayed, display up), watchdog pings, STOPPING=1 on the
                # way out.
                await running.enter_async_context(notify_systemd())
                table = group.create_task(service.run(), name="table")
                watcher = _watch_staff(group, desk)
                link_task, commands = _start_broker_tasks(group, service, link, ingress)
                await stop.wait()
                _LOG.info("table service stopping")
                # The table first: no input after this, and the messages of the last ones are
                # written; then the link sends them, publishes offline itself and stops.
                for task in (watcher, commands, table):
                    if task is not None:
                        task.cancel()
                        await asyncio.wait({task})
                if link is not None and link_task is not None:
                    link.request_stop()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(link_task), SHUTDOWN_GRACE_S)
                    link_task.cancel()
        finally:
            for screen in (display, board):
                if screen is not None:
                    await screen.stop()
            with contextlib.suppress(ValueError, RuntimeError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
    return 0

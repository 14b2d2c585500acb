# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller run``: the table service (docs/operations.md).

Edge module: reads settings (flags, environment, TOML file: ``settings_flags.py``), builds the
adapters, replays the journal, and runs until SIGINT or SIGTERM. A wrong setting, or a journal
whose directory is missing or not writable, stops the start with one line naming it (exit
status 2); a display or metrics address that cannot be bound stops it with one log line naming
it (exit status 1).

At start the installed files are checked (``integrity/identity.py``) and a start row is
journaled (:func:`start_record`); files that differ from those recorded stop the start
(``software_check = "refuse"``, exit status 5). With a ``device_key`` every message is signed
where it is numbered (the outbox, the JSON-lines copy) and every status by the MQTT link.

Each adapter (odds, staff, MQTT, screens, message sinks) is built by a function of its own from
the settings, which returns ``None`` when the settings turn it off. The web and MQTT modules are
imported inside the functions that use them: a table without a broker or display never loads
those libraries.

The screens are served first, then the metrics, the shoe reader and the tasks (the table, the
staff register's watch, the MQTT link and the command ingress) under one task group, with
systemd told ``READY=1``. On a stop signal the table stops first, so no input follows and the
messages of the last ones are written; the MQTT link then gets :data:`SHUTDOWN_GRACE_S` to
send them and publish its offline status. SIGHUP reloads the staff register.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from drivers.shoe_reader import ShoeProtocol, ShoeReader
from table_controller import __version__
from table_controller.cli import Subcommand, UsageError
from table_controller.cli.settings_flags import add_settings_flags, settings_from
from table_controller.contract import ReaderState, TableLimits, utc_text
from table_controller.history import Pace
from table_controller.integrity import (
    EdgeSigning,
    KeyFileError,
    checked_software,
    device_key,
    hold_input,
    start_record,
)
from table_controller.procedure import TableProcedure
from table_controller.protection import AdvisorSettings, DynamicWindows, RoundAdvisor
from table_controller.rules import Variant
from table_controller.runtime import (
    FanOutSink,
    JsonLinesSink,
    MessageSink,
    OutboxSink,
    RngCardSource,
    Settings,
    TableObserver,
    TableService,
    configure_logging,
    notify_systemd,
    stop_signals,
    utc_now,
)
from table_controller.runtime.journal import (
    AUDIT_ROW,
    Journal,
    JournalError,
    JournalInUseError,
    JournalLock,
)
from table_controller.screens import AddressUnusableError
from table_controller.staff import RegisterError, StaffDesk
from table_controller.table_limits import LimitsError, load_limits, to_journal
from table_controller.variant_file import VariantFileError, load_dynamic_windows, load_variants

if TYPE_CHECKING:  # imported where used: a table without a broker or display never loads them
    from table_controller.ingress import AuthorisationPolicy
    from table_controller.mqtt import MqttSettings
    from table_controller.mqtt.client import MqttLink
    from table_controller.runtime import CommandIngress, TableMetrics
    from table_controller.runtime.health import HealthServer
    from table_controller.screens.board import BoardFeed, BoardServer
    from table_controller.screens.dealer import DisplayFeeds, DisplayServer
    from table_controller.screens.web import SiteServer

_LOG = structlog.get_logger("table_controller.run")
#: Exit status when the journal is corrupt or unusable: play must not start.
JOURNAL_FAULT = 3
#: Exit status when the display's or the metrics' address cannot be bound (a restart may cure).
ADDRESS_UNUSABLE = 1
#: Exit status when another process (another table service) holds the journal's lock.
JOURNAL_IN_USE = 4
#: Exit status when the installed files differ from those recorded and software_check is refuse.
SOFTWARE_MODIFIED = 5
#: Seconds a stopping service gives the MQTT link to drain and publish its offline status.
SHUTDOWN_GRACE_S = 5.0


def run(args: argparse.Namespace) -> int:
    """Start the service and run until SIGINT or SIGTERM.

    SIGHUP (reload the staff register) is ignored until the service takes it: one sent while
    the table starts never stops it.
    """
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    settings = settings_from(args)
    try:
        variant = load_variants(settings.paytable)[settings.variant]
        dynamic_windows = load_dynamic_windows(settings.paytable).get(settings.variant)
        limits = load_limits(
            variant,
            paytable=settings.paytable,
            currency=settings.currency,
            limits=settings.bet_limits,
        )
    except VariantFileError as error:
        raise UsageError(f"paytable: {error}") from None
    except LimitsError as error:
        raise UsageError(str(error)) from None
    advisor = round_advisor(settings, variant, dynamic_windows)
    mqtt = mqtt_settings(settings)
    desk = staff_desk(settings)
    problem = journal_directory_problem(settings.journal_path)
    if problem is not None:
        raise UsageError(f"journal: {settings.journal_path}: {problem}")
    try:
        key = device_key(settings)
    except KeyFileError as error:
        raise UsageError(f"device_key: {error}") from None
    configure_logging(settings.log_format, settings.log_level)
    try:
        lock = JournalLock.acquire(settings.journal_path)  # held until the service has stopped
    except JournalInUseError as error:
        print(f"table-controller run: {error}; not starting", file=sys.stderr)
        return JOURNAL_IN_USE
    except JournalError as error:
        _LOG.critical("journal unusable: not starting", error=str(error))
        return JOURNAL_FAULT
    with lock:
        software = checked_software(settings)  # once the journal is this process's
        if software is None:
            return SOFTWARE_MODIFIED
        try:
            journal = _open_journal(settings, start_record(settings, variant, software, key))
        except JournalError as error:
            _LOG.critical("journal unusable: not starting", error=str(error))
            return JOURNAL_FAULT
        with journal:
            edge = EdgeSigning(software, key)
            try:
                return asyncio.run(
                    _serve(
                        settings,
                        variant,
                        journal,
                        mqtt,
                        advisor,
                        desk=desk,
                        edge=edge,
                        limits=limits,
                    )
                )
            except AddressUnusableError:
                return ADDRESS_UNUSABLE  # the server that could not bind logged the address


SUBCOMMAND = Subcommand(
    help="the table service: shoe link, journal, controller, results",
    description="Run one table: read the shoe, record every input, decide, publish.",
    add_arguments=add_settings_flags,
    handler=run,
)


def round_advisor(
    settings: Settings, variant: Variant, dynamic_windows: DynamicWindows | None
) -> RoundAdvisor | None:
    """The live odds and shoe alarms, unless turned off."""
    if not settings.live_odds:
        return None
    below = Fraction(Decimal(repr(settings.edge_alarm_below))) / 100
    return RoundAdvisor(
        variant,
        AdvisorSettings(
            edge_threshold=below,
            dynamic_windows=dynamic_windows,
            shuffle_false_alarm_rate=settings.shuffle_false_alarm_rate,
            repeat_false_alarm_rate=settings.repeat_false_alarm_rate,
        ),
    )


def mqtt_settings(settings: Settings) -> MqttSettings | None:
    """The broker's settings (``broker``, the ``mqtt_*`` settings); None without a broker."""
    if settings.broker is None:
        return None
    from table_controller.mqtt import MqttSettings  # noqa: PLC0415

    try:
        mqtt = MqttSettings.from_url(
            settings.broker,
            table_id=settings.table_id,
            ca_file=settings.mqtt_ca_file,
            cert_file=settings.mqtt_cert_file,
            key_file=settings.mqtt_key_file,
            protocol=settings.mqtt_protocol,
            topic_prefix=settings.topic_prefix,
            client_id=settings.mqtt_client_id,
        )
        return replace(
            mqtt,
            retention=timedelta(days=settings.outbox_retention_days),
            resend_per_second=settings.resend_messages_per_second,
        )
    except ValueError as error:
        raise UsageError(f"broker: {error}") from None


def staff_desk(settings: Settings) -> StaffDesk:
    """The staff desk, its register read now: an unreadable register stops the start."""
    try:
        return StaffDesk(
            settings.staff_register,
            max_failures=settings.sign_in_max_failures,
            lockout_s=settings.sign_in_lockout_seconds,
        )
    except RegisterError as error:
        raise UsageError(f"staff_register: {error}") from None


def journal_directory_problem(path: Path) -> str | None:
    """Why the journal's directory cannot hold it (missing, not a directory, not writable).

    SQLite would only say "unable to open database file"; a file is created and removed in
    the directory to find out, as the journal's own side files will be.
    """
    directory = path.parent
    if not directory.exists():
        return f"its directory {directory} does not exist"
    if not directory.is_dir():
        return f"{directory} is not a directory"
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        return f"its directory {directory} is not writable ({error.strerror or error})"
    return None


def _open_journal(settings: Settings, started: dict[str, object]) -> Journal:
    """The journal, opened and checked, with this start's row appended.

    Raises:
        JournalError: the journal is corrupt or refuses the row.
    """
    journal = Journal.open(settings.journal_path, table_id=settings.table_id)
    try:
        journal.append(
            AUDIT_ROW, started, ts_utc=utc_text(utc_now()), monotonic_ns=time.monotonic_ns()
        )
    except BaseException:
        journal.close()
        raise
    return journal


async def _serve(  # noqa: PLR0913 - the adapters run's settings built
    settings: Settings,
    variant: Variant,
    journal: Journal,
    mqtt: MqttSettings | None,
    advisor: RoundAdvisor | None,
    *,
    desk: StaffDesk,
    edge: EdgeSigning,
    limits: TableLimits,
) -> int:
    """Build the adapters in their order (journal, shoe, core, outbox, link) and run them.

    The service's observers (the screens' views, the metrics) are built before it, so they
    follow the journal's replay too; the servers that show them are built after it.
    """
    with contextlib.ExitStack() as stack:
        reader: ShoeReader | None = None
        card_source: RngCardSource | None = None
        if settings.card_source == "rng":
            card_source = RngCardSource(variant)  # the operating system's cryptographic RNG
        else:
            assert settings.port is not None  # the settings require it for card_source 'reader'
            reader = ShoeReader(
                settings.port, baudrate=settings.baud, protocol=ShoeProtocol(settings.protocol)
            )
        procedure = TableProcedure(
            variant,
            table_id=settings.table_id,
            betting_phase=settings.betting_phase,
            require_dealer=settings.require_dealer,
            confirm_results=settings.confirm_results,
            limits=limits,
        )
        link, outbox_sink = (None, None) if mqtt is None else mqtt_link(settings, stack, mqtt, edge)
        feeds = display_feeds(settings, procedure, desk, virtual=card_source is not None)
        own_board = board_feed(settings, procedure)
        metrics = table_metrics(settings)  # counts this run: the replay tells it ``live`` false
        observers: list[TableObserver] = [] if feeds is None else [*feeds.observers]
        observers += [view for view in (own_board, metrics) if view is not None]
        reader_listeners: list[Callable[[ReaderState | None], None]] = []
        if link is not None:
            reader_listeners.append(lambda _state: link.refresh_status())
        if metrics is not None:
            reader_listeners.append(metrics.reader_changed)
        service = TableService(
            procedure=procedure,
            journal=journal,
            sink=message_sink(settings, stack, outbox_sink, edge),
            pace=Pace(),
            observers=observers,
            outlet=link,
            unrecorded=link,
            link=reader,
            card_source=card_source,
            advisor=advisor,
            reader_listeners=reader_listeners,
        )
        display = dealer_display(settings, service, feeds, desk)
        board = players_board(settings, own_board)
        replayed = service.recover()
        held = hold_input(edge.software)  # software_check "hold": held until acknowledged
        if held is not None:
            service.enqueue_input(held)
        configured = to_journal(procedure.configured_limits, limits, at=time.monotonic())
        if configured is not None:  # first taken, or changed since: journaled, then published
            service.enqueue_input(configured)
        # Before READY=1 and before the shoe link is read: no card's event waits for it.
        await service.warm_up()
        ingress: CommandIngress | None = None
        if link is not None:
            from table_controller.runtime import CommandIngress, Resends  # noqa: PLC0415

            ingress = CommandIngress(
                service,
                authorisation_policy(settings),
                desk,
                resends=Resends(
                    link.republisher.republish,
                    per_minute=settings.resend_requests_per_minute,
                ),
                recalls_per_minute=settings.recall_requests_per_minute,
                currency=settings.currency,
            )
        health: HealthServer | None = None
        if settings.metrics_address is not None and metrics is not None:
            from table_controller.runtime.health import observe  # noqa: PLC0415 - only if asked

            host, port = settings.metrics_address
            health = observe(
                service,
                metrics,
                table_id=settings.table_id,
                version=__version__,
                host=host,
                port=port,
                link=link,
                staff=desk,
                resends=None if ingress is None else ingress.resends,
                limits=settings.web_limits,
            )
        _LOG.info(
            "table service starting",
            version=__version__,
            table_id=settings.table_id,
            variant=variant.name,
            port=settings.port,
            journal=str(settings.journal_path),
            replayed=replayed,
            broker=None if mqtt is None else f"{mqtt.broker.host}:{mqtt.broker.port}",
            software=edge.identity,
            software_status=edge.software.status.value,
            kid=None if edge.key is None else edge.key.kid,
        )
        return await run_until_stopped(
            service, reader, display, link, ingress, health=health, desk=desk, board=board
        )


def mqtt_link(
    settings: Settings, stack: contextlib.ExitStack, mqtt: MqttSettings, edge: EdgeSigning
) -> tuple[MqttLink, OutboxSink]:
    """The MQTT link and the sink that fills its outbox (two connections to the outbox).

    The writer's outbox signs each message as it numbers it; the link signs its statuses.
    """
    from table_controller.mqtt import Outbox  # noqa: PLC0415 - only with a broker
    from table_controller.mqtt.client import MqttLink  # noqa: PLC0415 - with a broker

    # The writer's outbox syncs its rows when it stores them, after the card's event is out:
    # left unsynced, they would go to the disk with the next card's journal commit.
    seal = edge.seal
    writer_outbox = stack.enter_context(
        Outbox.open(settings.journal_path, clock=utc_now, seal=seal)
    )
    link_outbox = stack.enter_context(Outbox.open(settings.journal_path, clock=utc_now))
    link = MqttLink(mqtt, link_outbox, status_fields=edge.status_fields, seal=seal)
    root = f"{settings.topic_prefix}/{settings.table_id}"
    sink = OutboxSink(
        writer_outbox,
        link=link,
        table_id=settings.table_id,
        topic_root=root,
        edge_fields=edge.message_fields,
    )
    return link, sink


def message_sink(
    settings: Settings,
    stack: contextlib.ExitStack,
    outbox_sink: OutboxSink | None,
    edge: EdgeSigning,
) -> MessageSink:
    """The outbox sink, the JSON-lines copy (always, without a broker), or both."""
    sinks: list[MessageSink] = [] if outbox_sink is None else [outbox_sink]
    events_log = settings.events_log
    if events_log is None and outbox_sink is None:
        events_log = Path(f"table-{settings.table_id}.events.jsonl")
    if events_log is not None:
        root = f"{settings.topic_prefix}/{settings.table_id}"
        log = JsonLinesSink(
            events_log,
            table_id=settings.table_id,
            topic_root=root,
            edge_fields=edge.message_fields,
            seal=edge.seal,
        )
        stack.callback(log.close)
        sinks.insert(0, log)
    return sinks[0] if len(sinks) == 1 else FanOutSink(*sinks)


def display_feeds(
    settings: Settings, procedure: TableProcedure, desk: StaffDesk, *, virtual: bool
) -> DisplayFeeds | None:
    """The dealer display's views (its own, its board's), when ``display`` names an address.

    Built before the table service, which tells them what it publishes from its replay on.
    """
    if settings.display_address is None:
        return None
    from table_controller.screens.dealer import DisplayFeeds  # noqa: PLC0415 - only when shown

    return DisplayFeeds(
        procedure,
        variant=procedure.variant,
        virtual=virtual,
        staff=desk,
        table_id=settings.table_id,
    )


def board_feed(settings: Settings, procedure: TableProcedure) -> BoardFeed | None:
    """The view of the board on its own address, when ``board_address`` names one.

    Built before the table service, which tells it what it publishes from its replay on.
    """
    if settings.board_host_port is None:
        return None
    from table_controller.screens.board import BoardFeed  # noqa: PLC0415 - only when shown

    return BoardFeed(procedure, variant=procedure.variant, table_id=settings.table_id)


def table_metrics(settings: Settings) -> TableMetrics | None:
    """The metrics, when ``metrics`` names an address: one of the service's observers.

    Built before the service; the health server gives them its vitals after the replay.
    """
    if settings.metrics_address is None:
        return None
    from table_controller.runtime import TableMetrics  # noqa: PLC0415 - only if asked

    return TableMetrics(None, table_id=settings.table_id, version=__version__)


def dealer_display(
    settings: Settings, service: TableService, feeds: DisplayFeeds | None, desk: StaffDesk
) -> DisplayServer | None:
    """The dealer display showing ``feeds``, when ``display`` names an address."""
    address = settings.display_address
    if address is None or feeds is None:
        return None
    pin = None if settings.display_pin is None else settings.display_pin.get_secret_value()
    from table_controller.screens.dealer import DisplayServer  # noqa: PLC0415 - only when shown

    languages = {"display": settings.display_language, "board": settings.board_language}
    return DisplayServer(
        service,
        feeds,
        host=address[0],
        port=address[1],
        pin=pin,
        staff=desk,
        languages=languages,
        limits=settings.web_limits,
        allowed_hosts=settings.allowed_hosts,
        currency=settings.currency,
    )


def players_board(settings: Settings, feed: BoardFeed | None) -> BoardServer | None:
    """The players' board showing ``feed`` on its own address, when ``board_address`` names one."""
    address = settings.board_host_port
    if address is None or feed is None:
        return None
    from table_controller.screens.board import BoardServer  # noqa: PLC0415 - only when shown

    return BoardServer(
        feed,
        host=address[0],
        port=address[1],
        language=settings.board_language,
        limits=settings.web_limits,
        allowed_hosts=settings.allowed_hosts,
    )


def authorisation_policy(settings: Settings) -> AuthorisationPolicy:
    """Who may send which commands over MQTT, and the secret that signs them."""
    from table_controller.ingress import AuthorisationPolicy  # noqa: PLC0415

    secret = settings.command_secret
    return AuthorisationPolicy(
        supervisors={
            operator: frozenset(users) for operator, users in settings.supervisors.items()
        },
        confirmers={
            operator: frozenset(users) for operator, users in settings.result_confirmers.items()
        },
        resenders={operator: frozenset(users) for operator, users in settings.resenders.items()},
        shared_secret=None if secret is None else secret.get_secret_value().encode(),
        sign_all=settings.sign_all_commands,
    )


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

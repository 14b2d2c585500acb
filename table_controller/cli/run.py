# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller run``: the table service (docs/operations.md).

Edge module: reads settings (flags, environment, TOML file: ``settings_flags.py``), builds the
adapters (``run_adapters.py``), replays the journal, and runs until SIGINT or SIGTERM
(``run_loop.py``). A wrong setting, or a journal whose directory is missing or not writable,
stops the start with one line naming it (exit status 2); a display or metrics address that
cannot be bound stops it with one log line naming it (exit status 1).

At start the installed files are checked (``integrity/identity.py``) and a start row is
journaled (:func:`start_record`); files that differ from those recorded stop the start
(``software_check = "refuse"``, exit status 5). With a ``device_key`` every message is signed
where it is numbered (the outbox, the JSON-lines copy) and every status by the MQTT link.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from drivers.shoe_reader import ShoeProtocol, ShoeReader
from table_controller import __version__
from table_controller.cli import Subcommand, UsageError
from table_controller.cli.run_adapters import (
    authorisation_policy,
    board_feed,
    dealer_display,
    display_feeds,
    message_sink,
    mqtt_link,
    mqtt_settings,
    players_board,
    round_advisor,
    staff_desk,
    table_metrics,
)
from table_controller.cli.run_loop import run_until_stopped
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
from table_controller.protection import RoundAdvisor
from table_controller.rules import Variant
from table_controller.runtime import (
    RngCardSource,
    Settings,
    TableObserver,
    TableService,
    configure_logging,
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
from table_controller.staff import StaffDesk
from table_controller.table_limits import LimitsError, load_limits, to_journal
from table_controller.variant_file import VariantFileError, load_dynamic_windows, load_variants

if TYPE_CHECKING:  # imported where used: a table without a broker or display never loads them
    from table_controller.mqtt import MqttSettings
    from table_controller.runtime import CommandIngress
    from table_controller.runtime.health import HealthServer

_LOG = structlog.get_logger("table_controller.run")
#: Exit status when the journal is corrupt or unusable: play must not start.
JOURNAL_FAULT = 3
#: Exit status when the display's or the metrics' address cannot be bound (a restart may cure).
ADDRESS_UNUSABLE = 1
#: Exit status when another process (another table service) holds the journal's lock.
JOURNAL_IN_USE = 4
#: Exit status when the installed files differ from those recorded and software_check is refuse.
SOFTWARE_MODIFIED = 5


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
            journal = _open_journal(settings, start_record(settings, software, key))
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

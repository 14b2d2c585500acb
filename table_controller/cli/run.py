"""``table-controller run``: the table service (spec/cli.md).

Edge module: reads settings (flags, environment, TOML file), builds the adapters, replays the
journal, and runs until SIGINT or SIGTERM. A wrong setting stops the start with the key, the
value and why (exit status 2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from pathlib import Path

import structlog

from drivers.shoe_reader import ShoeProtocol, ShoeReader
from table_controller import __version__
from table_controller.cli import UsageError
from table_controller.procedure.machine import TableProcedure
from table_controller.publishing.web import DisplayServer
from table_controller.rules.variants import Variant
from table_controller.runtime.config import Settings, SettingsError, load_settings
from table_controller.runtime.journal import Journal, JournalError
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.logs import configure_logging
from table_controller.runtime.service import TableService
from table_controller.variant_file import VariantFileError, load_variants

_LOG = structlog.get_logger("table_controller.run")
#: Exit status when the journal is corrupt or unusable: play must not start.
JOURNAL_FAULT = 3


def add_settings_flags(parser: argparse.ArgumentParser) -> None:
    """The settings shared by ``run`` and ``demo``; a flag left out defers to env and file."""
    parser.add_argument("--config", type=Path, metavar="FILE", help="TOML settings file")
    parser.add_argument("--table-id", metavar="ID", help="the table's id (topics, client id)")
    parser.add_argument("--variant", help="commission, super_six, lucky or mini")
    parser.add_argument("--port", help="shoe reader: device path or socket://host:port")
    parser.add_argument("--protocol", help="srp or beetek")
    parser.add_argument("--baud", type=int, help="serial speed (default 9600)")
    parser.add_argument("--journal", type=Path, metavar="FILE", help="the durable journal")
    parser.add_argument(
        "--broker", metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument("--topic-prefix", metavar="P", help="topics are <P>/<table_id>/...")
    parser.add_argument("--display", metavar="HOST:PORT", help="dealer display address, or off")
    parser.add_argument(
        "--display-pin",
        metavar="PIN",
        help="PIN for supervisor commands on the display (prefer the environment or the file)",
    )
    parser.add_argument(
        "--betting-phase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rounds have a betting period opened and closed by commands (default on)",
    )
    parser.add_argument("--card-source", help="reader or rng")
    parser.add_argument("--paytable", type=Path, metavar="FILE", help="variant file overrides")
    parser.add_argument(
        "--events-log", type=Path, metavar="FILE", help="JSON-lines copy of every message"
    )
    parser.add_argument("--log-format", help="json (default) or console")
    parser.add_argument("--log-level", help="debug, info (default), warning or error")


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the parsed flags, the environment and ``--config``."""
    names = tuple(Settings.model_fields)
    try:
        return load_settings({name: getattr(args, name) for name in names}, args.config)
    except SettingsError as error:
        raise UsageError(str(error)) from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``run`` sub-command."""
    parser = subparsers.add_parser(
        "run",
        help="the table service: shoe link, journal, controller, results",
        description="Run one table: read the shoe, record every input, decide, publish.",
    )
    add_settings_flags(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Start the service and run until interrupted."""
    settings = settings_from(args)
    if settings.card_source == "rng":
        raise UsageError("card_source = 'rng': virtual tables are not available in this version")
    if settings.broker is not None:
        raise UsageError(
            "broker: the MQTT adapter is not available in this version; use --events-log"
        )
    try:
        variant = load_variants(settings.paytable)[settings.variant]
    except VariantFileError as error:
        raise UsageError(f"paytable: {error}") from None
    configure_logging(settings.log_format, settings.log_level)
    try:
        journal = Journal.open(settings.journal_path, table_id=settings.table_id)
    except JournalError as error:
        _LOG.critical("journal unusable: not starting", error=str(error))
        return JOURNAL_FAULT
    with journal:
        return asyncio.run(_serve(settings, variant, journal))


def _display(settings: Settings, service: TableService) -> DisplayServer | None:
    address = settings.display_address
    if address is None:
        return None
    pin = None if settings.display_pin is None else settings.display_pin.get_secret_value()
    return DisplayServer(service, host=address[0], port=address[1], pin=pin)


async def _serve(settings: Settings, variant: Variant, journal: Journal) -> int:
    procedure = TableProcedure(
        variant, table_id=settings.table_id, betting_phase=settings.betting_phase
    )
    events_log = settings.events_log or Path(f"table-{settings.table_id}.events.jsonl")
    sink = JsonLinesSink(
        events_log,
        table_id=settings.table_id,
        topic_root=f"{settings.topic_prefix}/{settings.table_id}",
    )
    assert settings.port is not None  # checked by the settings for card_source 'reader'
    reader = ShoeReader(
        settings.port, baudrate=settings.baud, protocol=ShoeProtocol(settings.protocol)
    )
    service = TableService(procedure=procedure, journal=journal, sink=sink, link=reader)
    display = _display(settings, service)  # follows the service from the replay on
    replayed = service.recover()
    _LOG.info(
        "table service starting",
        version=__version__,
        table_id=settings.table_id,
        variant=variant.name,
        port=settings.port,
        journal=str(settings.journal_path),
        replayed=replayed,
        events_log=str(events_log),
    )
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, main.cancel)
    try:
        if display is not None:
            await display.start()
            _LOG.info("dealer display", url=display.url)
        async with reader:
            await service.run()
    except asyncio.CancelledError:
        _LOG.info("table service stopping")
    finally:
        if display is not None:
            await display.stop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(signum)
        sink.close()
    return 0

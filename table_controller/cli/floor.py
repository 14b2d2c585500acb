# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller floor``: the floor view, a web page of every table for the pit.

Edge module: checks the flags, reads the staff register, the settings file and the command
secrets, then serves the floor (``table_controller/floor``) until SIGTERM or SIGINT (exit
status 0, as ``ingest``). A wrong flag or file is one line and exit status 2, and so is the
``floor`` extra not installed; an address that cannot be bound is one line and status 1. A
database or a broker that does not answer is no reason to stop: the page says so, the log
too, and the floor recovers by itself when they come back (docs/floor.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Final

from table_controller.cli import Subcommand, UsageError, require_extra
from table_controller.cli.broker_flags import add_backend_service_flags, broker_endpoint
from table_controller.cli.ingest import read_command_secrets

if TYPE_CHECKING:
    from table_controller.floor import FloorSettings
    from table_controller.mqtt import BrokerEndpoint
    from table_controller.staff import StaffDesk

DEFAULT_LISTEN: Final = "127.0.0.1:8090"
#: The modules the ``floor`` extra installs (pyproject.toml), as imported.
EXTRA_MODULES: Final = (
    "aiohttp",
    "aiohttp_sse",
    "babel",
    "sqlalchemy",
    "aiomqtt",
    "aiosqlite",
    "asyncpg",
)
EXTRA_INSTALL: Final = "pip install 'table-controller[floor]'"
#: Exit status when the floor's address cannot be bound (operations.md "Exit statuses").
ADDRESS_UNUSABLE: Final = 1


def _listen(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"HOST:PORT, got {text!r}")
    return host, int(port)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``floor`` flags."""
    parser.add_argument(
        "--database",
        required=True,
        metavar="URL",
        help="the ingest's database: postgresql://user[:pass]@host[:port]/db or sqlite:///FILE",
    )
    parser.add_argument(
        "--broker", required=True, metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument(
        "--listen",
        type=_listen,
        default=_listen(DEFAULT_LISTEN),
        metavar="HOST:PORT",
        help=f"where to serve the floor's pages ({DEFAULT_LISTEN}); behind a TLS reverse proxy",
    )
    parser.add_argument(
        "--staff-register",
        type=Path,
        required=True,
        metavar="FILE",
        help="the staff register (table-controller staff add): who signs in, and their role",
    )
    parser.add_argument(
        "--settings",
        type=Path,
        metavar="FILE",
        help="TOML: the floor's title and its pits or areas with their tables (docs/floor.md)",
    )
    parser.add_argument(
        "--command-secrets",
        type=Path,
        metavar="FILE",
        help='TOML file: table id = that table\'s command_secret ("*" for any other table);'
        " the floor's acknowledge_alarm commands are signed with it",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the floor answers to besides its address (the reverse proxy's); repeat",
    )
    parser.add_argument(
        "--language",
        default="en",
        metavar="TAG",
        help="the pages' language when a browser asks for none: en, zh-Hans, zh-Hant, vi, th, ko",
    )
    parser.add_argument(
        "--insecure-cookies",
        action="store_true",
        help="session cookie without Secure: only for plain HTTP on a test machine",
    )
    parser.add_argument(
        "--client-id", metavar="ID", help="MQTT client id (default floor-<host name>-<random>)"
    )
    add_backend_service_flags(parser)


def run(args: argparse.Namespace) -> int:
    """Check the flags and files, then serve the floor until SIGTERM or SIGINT."""
    require_extra("floor", EXTRA_MODULES, EXTRA_INSTALL)
    from table_controller.floor import (  # noqa: PLC0415 - the extra, once it is known there
        FloorSettings,
        FloorSettingsError,
        load_settings,
    )
    from table_controller.ingest import StoreUrlError, engine_url  # noqa: PLC0415
    from table_controller.screens import language_for  # noqa: PLC0415
    from table_controller.staff import RegisterError, StaffDesk  # noqa: PLC0415

    endpoint = broker_endpoint(args)
    try:
        engine_url(args.database)
    except StoreUrlError as error:
        raise UsageError(f"--database: {error}") from None
    try:
        settings = FloorSettings() if args.settings is None else load_settings(args.settings)
    except FloorSettingsError as error:
        raise UsageError(f"--settings {error}") from None
    try:
        desk = StaffDesk(args.staff_register)
    except RegisterError as error:
        raise UsageError(f"--staff-register {error}") from None
    if language_for(args.language) is None:
        raise UsageError(f"--language {args.language!r}: one of en, zh-Hans, zh-Hant, vi, th, ko")
    prefix = args.prefix.strip("/")
    if not prefix or any(char in prefix for char in "+#"):
        raise UsageError(f"--prefix {args.prefix!r}: not empty, without + or #")
    secrets = {} if args.command_secrets is None else read_command_secrets(args.command_secrets)
    client_id = args.client_id or f"floor-{socket.gethostname()}-{uuid.uuid4().hex[:6]}"
    from table_controller.runtime import configure_logging  # noqa: PLC0415

    configure_logging(args.log_format, args.log_level)
    return asyncio.run(
        _serve(
            args,
            settings=settings,
            desk=desk,
            endpoint=endpoint,
            secrets=secrets,
            prefix=prefix,
            client_id=client_id,
        )
    )


async def _serve(  # noqa: PLR0913 - the checked flags, keyword-only
    args: argparse.Namespace,
    *,
    settings: FloorSettings,
    desk: StaffDesk,
    endpoint: BrokerEndpoint,
    secrets: dict[str, bytes],
    prefix: str,
    client_id: str,
) -> int:
    import sys  # noqa: PLC0415

    from table_controller.floor import (  # noqa: PLC0415
        FloorLink,
        FloorModel,
        FloorRecords,
        FloorServer,
        FloorService,
        FloorTexts,
        run_floor,
    )
    from table_controller.runtime import stop_signals  # noqa: PLC0415
    from table_controller.screens import AddressUnusableError  # noqa: PLC0415
    from table_controller.screens.web import StreamHub  # noqa: PLC0415

    service = FloorService(
        FloorModel(settings.areas), FloorRecords(args.database), hub=StreamHub("floor")
    )
    link = FloorLink(
        endpoint,
        prefix=prefix,
        client_id=client_id,
        on_message=service.on_message,
        on_connection=service.on_connection,
        secrets=secrets,
    )
    host, port = args.listen
    server = FloorServer(
        service,
        desk,
        host=host,
        port=port,
        texts=FloorTexts(args.language),
        title=settings.title,
        secure_cookies=not args.insecure_cookies,
        allowed_hosts=args.allowed_host,
    )
    task = asyncio.current_task()
    assert task is not None
    try:
        with (
            stop_signals(lambda _signum: task.cancel()),
            contextlib.suppress(asyncio.CancelledError),
        ):
            await run_floor(service, server, link, desk)
    except AddressUnusableError as error:
        print(f"table-controller floor: cannot serve at {host}:{port}: {error}", file=sys.stderr)
        return ADDRESS_UNUSABLE
    return 0


SUBCOMMAND = Subcommand(
    help="the floor view: every table's tile, live, its history and its alarms, for the pit",
    description=(
        "Serves a web page of every table of the floor, grouped by pit or area: online or not, "
        "the reader, the phase, holds, the shoe, the dealer, the limits, the pace, the last "
        "results and the open alarms, live from the broker, and each table's history from the "
        "ingest's database. Staff sign in against the staff register; supervisors acknowledge "
        "alarms (acknowledge_alarm). Needs the floor extra: " + EXTRA_INSTALL + "."
    ),
    add_arguments=add_arguments,
    handler=run,
)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller ingest --broker URL --database URL``: the reference backend's worker.

Edge module: checks the flags, opens the store (migrating it), and runs one
:class:`~table_controller.ingest.worker.IngestWorker` with gap repair until SIGTERM or SIGINT;
then it logs its counters and prints them on one line on stderr, exit status 0. A wrong flag,
broker URL, database URL or keys file is one line and status 2, and so is the ``ingest``
extra not installed (the line says how to install it); a database that cannot be opened
(down, refused, a file that cannot be created) is one line and status 1 (a restart may cure
it). A broker that cannot be reached is retried, logged once per cause.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import re
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from table_controller.cli import Subcommand, UsageError, require_extra, whole_number
from table_controller.cli.broker_flags import add_backend_service_flags, broker_endpoint
from table_controller.runtime import stop_signals

if TYPE_CHECKING:
    from table_controller.ingest import WorkerSettings

#: Exit status when the database cannot be opened (operations.md "Exit statuses": 1).
DATABASE_FAILED: Final = 1
DEFAULT_DATABASE: Final = "sqlite:///ingest.sqlite"
#: The modules the ``ingest`` extra installs (pyproject.toml), as imported; the database
#: drivers are imported by SQLAlchemy only when it connects, so they are named here.
EXTRA_MODULES: Final = (
    "sqlalchemy", "alembic", "asyncpg", "aiosqlite", "gmqtt", "uvloop", "msgspec",
)  # fmt: skip
EXTRA_INSTALL: Final = "pip install 'table-controller[ingest]'"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 3600 s, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``ingest`` flags."""
    parser.add_argument(
        "--broker", required=True, metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument(
        "--database",
        default=DEFAULT_DATABASE,
        metavar="URL",
        help="postgresql://user[:pass]@host[:port]/db or sqlite:///FILE (%(default)s)",
    )
    parser.add_argument(
        "--group",
        default="ingest",
        metavar="NAME",
        help="shared-subscription group: the workers of one group share the messages (%(default)s)",
    )
    parser.add_argument(
        "--client-id",
        metavar="ID",
        help="MQTT client id, one per worker, kept across restarts so the broker keeps its"
        " session (default ingest-<group>-<host name>)",
    )
    parser.add_argument(
        "--gap-wait",
        type=_seconds,
        default=10.0,
        metavar="S",
        help="seconds a gap stays open before it is asked for with resend (%(default)s)",
    )
    parser.add_argument(
        "--operator",
        default="ingest",
        metavar="ID",
        help="the operator resend commands carry; the tables' resenders must name it (%(default)s)",
    )
    parser.add_argument(
        "--command-secrets",
        type=Path,
        metavar="FILE",
        help='TOML file: table id = that table\'s command_secret ("*" for any other table);'
        " resend commands to those tables are signed, as sign_all_commands requires",
    )
    parser.add_argument(
        "--table-keys",
        type=Path,
        metavar="FILE",
        help='TOML file: table id = "that table\'s public key" (base64, as keys show prints'
        " it); the only keys trusted: none is pinned from a status",
    )
    parser.add_argument(
        "--require-signatures",
        action="store_true",
        help="quarantine every message not signed by its table's key (unsigned ones too)",
    )
    parser.add_argument(
        "--no-gap-repair", action="store_true", help="store only; never ask for gaps"
    )
    parser.add_argument(
        "--max-requests",
        type=whole_number(1),
        default=2,
        metavar="N",
        help="resend requests per table waiting for their reply at once (%(default)s)",
    )
    parser.add_argument(
        "--concurrency",
        type=whole_number(1),
        metavar="N",
        help="batches stored at once (default 4 on PostgreSQL, 1 on SQLite: one writer)",
    )
    parser.add_argument(
        "--session-expiry",
        type=whole_number(0),
        default=3600,
        metavar="S",
        help="seconds the broker keeps the worker's session while it is away (%(default)s)",
    )
    add_backend_service_flags(parser)


def _check_name(flag: str, value: str, forbidden: str) -> None:
    if not value or any(char in value for char in forbidden):
        raise UsageError(f"{flag} {value!r}: not empty, without {' '.join(forbidden)}")


def _strings_by_table(
    path: Path, flag: str, what: str, *, any_table: bool = False
) -> dict[str, str]:
    """The strings of the TOML file ``path`` (given as ``flag``) by table id, one ``what`` each.

    Each key must be a table id (or, with ``any_table``, the key for any other table) and each
    value a string; a file naming no table, or one that cannot be read, is refused too.

    Raises:
        UsageError: the file, and the key in it, named with its problem.
    """
    from table_controller.ingest import ANY_TABLE  # noqa: PLC0415
    from table_controller.runtime import TABLE_ID_PATTERN  # noqa: PLC0415
    from table_controller.toml_file import TomlFileError, read_toml  # noqa: PLC0415

    try:
        document = read_toml(path)
    except TomlFileError as error:
        raise UsageError(f"{flag} {error}") from None
    strings: dict[str, str] = {}
    for table_id, value in document.items():
        where = f"{flag} {path}: {table_id!r}"
        if not (any_table and table_id == ANY_TABLE) and (
            re.fullmatch(TABLE_ID_PATTERN, table_id) is None
        ):
            also = f" (nor {ANY_TABLE!r} for any other table)" if any_table else ""
            raise UsageError(f"{where}: not a table id{also}")
        if not isinstance(value, str):
            raise UsageError(f"{where}: the table's {what}, as a string")
        strings[table_id] = value
    if not strings:
        raise UsageError(f"{flag} {path}: names no table")
    return strings


def read_command_secrets(path: Path) -> dict[str, bytes]:
    """The tables' command secrets in ``path`` by table id; a bad file is a :class:`UsageError`."""
    # Imported here: the command contract only when the flag is given.
    from table_controller.ingress import MIN_SECRET_BYTES  # noqa: PLC0415

    flag = "--command-secrets"
    secrets: dict[str, bytes] = {}
    for table_id, value in _strings_by_table(path, flag, "command_secret", any_table=True).items():
        if len(value.encode()) < MIN_SECRET_BYTES:
            raise UsageError(
                f"{flag} {path}: {table_id!r}: a command_secret has at least"
                f" {MIN_SECRET_BYTES} bytes"
            )
        secrets[table_id] = value.encode()
    return secrets


def read_table_keys(path: Path) -> dict[str, str]:
    """The tables' public keys in ``path`` by table id; a bad file is a :class:`UsageError`."""
    from table_controller.integrity import public_key_from_text  # noqa: PLC0415

    flag = "--table-keys"
    keys = _strings_by_table(path, flag, "public key")
    for table_id, value in keys.items():
        try:
            public_key_from_text(value)
        except ValueError as error:
            raise UsageError(f"{flag} {path}: {table_id!r}: {error}") from None
    return keys


def run(args: argparse.Namespace) -> int:
    """Check the flags, open the store, ingest until SIGTERM or SIGINT.

    The flags that need none of the ``ingest`` extra's libraries are checked before they are
    loaded, so a mistake in one is told at once; the database URL, the files and the worker's
    settings need the extra, whose modules are imported (one line if one is missing) first.
    """
    endpoint = broker_endpoint(args, protocol="5")
    _check_name("--group", args.group, "/+#")
    _check_name("--prefix", args.prefix.strip("/"), "+#")
    client_id = args.client_id or f"ingest-{args.group}-{socket.gethostname()}"
    _check_name("--client-id", client_id, "/+#")
    _check_name("--operator", args.operator, "")
    require_extra("ingest", EXTRA_MODULES, EXTRA_INSTALL)
    from table_controller.ingest import StoreUrlError, engine_url  # noqa: PLC0415

    try:
        engine_url(args.database)
    except StoreUrlError as error:
        raise UsageError(f"--database: {error}") from None
    secrets = {} if args.command_secrets is None else read_command_secrets(args.command_secrets)
    table_keys = None if args.table_keys is None else read_table_keys(args.table_keys)
    from table_controller.ingest import RepairSettings, WorkerSettings  # noqa: PLC0415

    repair = (
        None
        if args.no_gap_repair
        else RepairSettings(
            worker=client_id,
            operator=args.operator,
            prefix=args.prefix,
            gap_wait_s=args.gap_wait,
            max_outstanding=args.max_requests,
            secrets=secrets,
        )
    )
    settings = WorkerSettings(
        endpoint=endpoint,
        client_id=client_id,
        group=args.group,
        prefix=args.prefix,
        concurrency=args.concurrency or (1 if args.database.startswith("sqlite") else 4),
        session_expiry_s=args.session_expiry,
        repair=repair,
        table_keys=table_keys,
        require_signatures=args.require_signatures,
    )
    from table_controller.runtime import configure_logging  # noqa: PLC0415

    configure_logging(args.log_format, args.log_level)
    import uvloop  # noqa: PLC0415 - the ingest extra's

    # uvloop: a worker's loop turns once for every few messages the broker sends.
    return uvloop.run(_ingest(args.database, settings))


SUBCOMMAND = Subcommand(
    help="store every table's messages once in PostgreSQL or SQLite, repairing gaps",
    description=(
        "Reference backend: subscribes to every table (an MQTT 5 shared subscription, so "
        "workers of one --group share the load), stores each message once by (table, seq), "
        "verifies signatures (quarantining what fails), and asks tables with resend for the "
        "seq it lacks. Needs the ingest extra: " + EXTRA_INSTALL + "."
    ),
    add_arguments=add_arguments,
    handler=run,
)


async def _ingest(database: str, settings: WorkerSettings) -> int:
    import structlog  # noqa: PLC0415
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    from table_controller.ingest import IngestStore, IngestWorker  # noqa: PLC0415

    log = structlog.get_logger("table_controller.ingest")
    shown = make_url(database).render_as_string(hide_password=True)
    try:
        store = await IngestStore.open(database)
    except Exception as error:  # noqa: BLE001 - any driver's refusal is one line, not a traceback
        print(
            f"table-controller ingest: database {shown} cannot be opened:"
            f" {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
            file=sys.stderr,
        )
        return DATABASE_FAILED
    worker = IngestWorker(store, settings)
    # What the process holds by now (modules, the schema, the pool) lives as long as it: kept out
    # of the garbage collector's full rounds, which would walk it every few thousand messages.
    gc.freeze()
    task = asyncio.current_task()
    assert task is not None
    stopping = stop_signals(lambda _signum: task.cancel())
    try:
        with stopping, contextlib.suppress(asyncio.CancelledError):  # handlers first, then said
            log.info(
                "ingest_started", database=shown, client_id=settings.client_id, group=settings.group
            )
            await worker.run()
    finally:
        counts = worker.counts()
        log.info("ingest_stopped", **counts)
        print(
            "table-controller ingest: " + ", ".join(f"{v} {k}" for k, v in counts.items()),
            file=sys.stderr,
            flush=True,
        )
        await store.close()
    return 0

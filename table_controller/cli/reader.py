# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller reader``: the technician's tool for commissioning a shoe reader.

Edge module: parses flags, runs a ``drivers.shoe_reader.ShoeReader``, prints one line per
event. It acknowledges every frame as the controller would, once the line is printed (the
printed line is this tool's record), and runs until Ctrl-C (exit status 130) or SIGTERM (143),
however it was started. A port that cannot be opened, or is lost, is retried with backoff, and
each attempt says so on stderr with the cause; with ``--once`` the tool stops instead, saying
why, with exit status 1.

``--json`` prints one JSON object per line on stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import sys
from collections.abc import Callable
from typing import Any, assert_never

from drivers import events
from drivers.port import parse_port_url
from drivers.shoe_reader import ShoeProtocol, ShoeReader
from drivers.srp.constants import DEFAULT_BAUDRATE
from table_controller.cli import Subcommand, UsageError, whole_number
from table_controller.runtime import run_until_signalled

__all__ = ["SUBCOMMAND", "describe", "run", "watch"]

_LOGGER = logging.getLogger(__name__)
#: Exit status of ``--once`` when the port cannot be opened or is lost.
PORT_FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``reader`` flags."""
    parser.add_argument(
        "--port", required=True, help="device path (e.g. /dev/ttyUSB0) or socket://host:port"
    )
    parser.add_argument(
        "--baud",
        type=whole_number(1),
        default=DEFAULT_BAUDRATE,
        help=f"serial speed (default {DEFAULT_BAUDRATE})",
    )
    parser.add_argument(
        "--protocol",
        choices=[protocol.value for protocol in ShoeProtocol],
        default=ShoeProtocol.SRP.value,
        help="srp (SRP/1, default) or beetek (text lines)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per event on stdout")
    parser.add_argument(
        "--once",
        action="store_true",
        help=f"stop with status {PORT_FAILED} when the port cannot be opened or is lost,"
        " instead of retrying",
    )


def run(args: argparse.Namespace) -> int:
    """Watch the reader until interrupted; returns the exit status."""
    try:
        parse_port_url(args.port)
    except ValueError as error:
        raise UsageError(f"--port: {error}") from None
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    as_json: bool = args.json

    def emit(event: events.ReaderEvent) -> None:
        fields = describe(event)
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
        if as_json:
            line = json.dumps({"time": stamp, **fields}, separators=(",", ":"))
        else:
            kind = fields.pop("event")
            details = " ".join(f"{key}={value}" for key, value in fields.items())
            line = f"{stamp} {kind} {details}".rstrip()
        print(line, flush=True)

    return run_until_signalled(_watch_port(args, emit))


SUBCOMMAND = Subcommand(
    help="opens a shoe reader's port and prints every event it sends (commissioning tool)",
    description=(
        "Open a shoe reader's port, acknowledge frames as the controller would, and print "
        "one line per event, including every rejected frame and its reason. Ctrl-C stops."
    ),
    add_arguments=add_arguments,
    handler=run,
)


async def _watch_port(args: argparse.Namespace, emit: Callable[[events.ReaderEvent], None]) -> int:
    """Watch until interrupted, or with ``--once`` until the port fails; the exit status."""
    port: str = args.port
    once: bool = args.once
    stop = asyncio.Event() if once else None
    failures: list[str] = []

    def retrying(cause: str, delay_s: float) -> None:
        if stop is not None:
            failures.append(cause)
            stop.set()
        else:
            print(
                f"table-controller reader: {port}: {cause}; retrying in {delay_s:.1f} s",
                file=sys.stderr,
                flush=True,
            )

    await watch(port, args.baud, ShoeProtocol(args.protocol), emit, stop=stop, on_retry=retrying)
    if failures:
        print(
            f"table-controller reader: {port}: {failures[0]}; not retried (--once)", file=sys.stderr
        )
        return PORT_FAILED
    return 0


async def watch(  # noqa: PLR0913 - the port's settings, then what the watch reports to
    port: str,
    baudrate: int,
    protocol: ShoeProtocol,
    emit: Callable[[events.ReaderEvent], None],
    *,
    stop: asyncio.Event | None = None,
    on_retry: Callable[[str, float], None] | None = None,
) -> None:
    """Print (``emit``) every event of the reader on ``port``, acknowledging each afterwards.

    Args:
        port: Device path or ``socket://host:port``.
        baudrate: Serial speed.
        protocol: What the shoe speaks.
        emit: Called once per event, before it is acknowledged.
        stop: When set, the watch ends; without it the watch runs until cancelled.
        on_retry: Told why the port is closed and when it is tried again, before each wait.
    """
    async with ShoeReader(port, baudrate=baudrate, protocol=protocol, on_retry=on_retry) as reader:
        consuming = asyncio.create_task(_consume(reader, emit), name="reader-cli consume")
        try:
            if stop is None:
                await consuming
            else:
                await stop.wait()
        finally:
            consuming.cancel()
            await asyncio.gather(consuming, return_exceptions=True)
            rejected = dict(reader.session.rejected)
            if rejected:
                _LOGGER.info("rejected lines by reason: %s", rejected)


async def _consume(reader: ShoeReader, emit: Callable[[events.ReaderEvent], None]) -> None:
    async for event in reader:
        emit(event)
        await reader.confirm(_delivery(event))


def _delivery(event: events.ReaderEvent) -> events.Delivery | None:
    if isinstance(
        event, events.CardSeen | events.CutCardSeen | events.CardMisread | events.ReaderHello
    ):
        return event.delivery
    return None


def _handle(delivery: events.Delivery | None) -> dict[str, Any]:
    return {} if delivery is None else {"epoch": delivery.epoch, "seq": delivery.seq}


def describe(event: events.ReaderEvent) -> dict[str, Any]:  # noqa: C901, PLR0911 - one case per event type
    """An event as a flat JSON-ready dict whose ``event`` key names its kind."""
    match event:
        case events.CardSeen():
            return {
                "event": "card",
                "card": event.card,
                "burn_mode": event.burn_mode,
                **_handle(event.delivery),
            }
        case events.CutCardSeen():
            return {"event": "cut_card", **_handle(event.delivery)}
        case events.CardMisread():
            return {"event": "misread", **_handle(event.delivery)}
        case events.ReaderHello():
            return {
                "event": "hello",
                "model": event.model,
                "firmware": event.firmware,
                "serial": event.serial,
                **_handle(event.delivery),
            }
        case events.ReaderStatus():
            code = {} if event.code is None else {"code": event.code}
            return {"event": "status", "state": event.state.value, **code}
        case events.ReaderAlarm():
            return {"event": "alarm", "code": event.code, "text": event.text}
        case events.ReaderWarning():
            return {"event": "warning", "code": event.code}
        case events.FramesLost():
            return {
                "event": "frames_lost",
                "expected_seq": event.expected_seq,
                "received_seq": event.received_seq,
                "count": event.count,
            }
        case events.LineRejected():
            raw = event.raw.decode("ascii", errors="backslashreplace")
            return {"event": "rejected", "reason": event.reason, "raw": raw}
        case events.ReaderOffline():
            return {"event": "offline", "reason": event.reason}
        case events.ReaderOnline():
            return {"event": "online"}
        case _:
            assert_never(event)

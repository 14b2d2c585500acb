# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's embedded MQTT broker: amqtt, in a process of its own.

Edge module: ``python -m table_controller.demo.broker [--port N]`` serves MQTT 3.1.1 on
127.0.0.1 to anonymous clients, with no persistence, until SIGTERM or SIGINT. It holds no
rules and never imports the rest of the controller: the table, the display and the demo's
backend all reach it over TCP like any broker: in a process of its own, no blocking call of the
service can stall it. amqtt speaks MQTT 3.1.1 only.

Once it accepts connections it writes one line on standard output, ``listening HOST:PORT``,
which is how the parent learns the port when it asked for ``--port 0`` (any free port). With
``--stop-on-eof`` it also stops when its standard input (a pipe from the parent) closes, so a
parent that dies without stopping it, even by SIGKILL, leaves no broker behind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
from typing import Any, Final

from amqtt.broker import Broker
from amqtt.errors import BrokerError

HOST: Final = "127.0.0.1"
#: The first line on standard output once the broker accepts connections.
READY_PREFIX: Final = "listening "
#: Attempts at a free port, when another process takes the one probed before amqtt binds it.
PORT_ATTEMPTS: Final = 5
#: Exit status when no port could be bound.
NO_PORT: Final = 1


def broker_config(host: str, port: int) -> dict[str, Any]:
    """The amqtt configuration: one TCP listener, anonymous logins, no ``$SYS`` topics."""
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


def free_port(host: str = HOST) -> int:
    """A port nobody listens on now (another process may still take it before we bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


async def start_broker(host: str, port: int) -> tuple[Any, int]:
    """A started amqtt broker and its port; ``port`` 0 tries free ports until one binds.

    Raises:
        OSError: The port (or every free port tried) could not be bound.
    """
    attempts = PORT_ATTEMPTS if port == 0 else 1
    for attempt in range(attempts):
        chosen = port or free_port(host)
        broker = Broker(broker_config(host, chosen))
        try:
            await broker.start()
        except BrokerError as error:
            if attempt + 1 == attempts:
                raise OSError(f"cannot listen on {host}:{chosen}: {error}") from None
            continue
        return broker, chosen
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


class _StopOnEof(asyncio.Protocol):
    """Sets ``stop`` when the pipe it reads closes; what comes through it is ignored."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop

    def eof_received(self) -> bool:
        self.stop.set()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        del exc  # closed or broken: either way the parent is gone
        self.stop.set()


async def serve(host: str, port: int, *, stop_on_eof: bool = False) -> int:
    """Serve until SIGTERM or SIGINT (or the end of standard input); returns the exit status."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    pipe: asyncio.BaseTransport | None = None
    if stop_on_eof:
        pipe, _ = await loop.connect_read_pipe(lambda: _StopOnEof(stop), sys.stdin)
    try:
        broker, bound = await start_broker(host, port)
    except OSError as error:
        print(f"demo broker: {error}", file=sys.stderr)
        if pipe is not None:
            pipe.close()
        return NO_PORT
    print(f"{READY_PREFIX}{host}:{bound}", flush=True)
    try:
        await stop.wait()
    finally:
        if pipe is not None:
            pipe.close()
        with contextlib.suppress(BrokerError):
            await broker.shutdown()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse ``--host`` and ``--port`` and serve."""
    parser = argparse.ArgumentParser(
        prog="python -m table_controller.demo.broker",
        description="The demo's MQTT 3.1.1 broker (amqtt): anonymous, in memory.",
    )
    parser.add_argument("--host", default=HOST, help="address to listen on (%(default)s)")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    parser.add_argument(
        "--stop-on-eof", action="store_true", help="also stop when standard input closes"
    )
    args = parser.parse_args(argv)
    # amqtt logs every connection at INFO; the demo shows only its warnings.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return asyncio.run(serve(args.host, args.port, stop_on_eof=args.stop_on_eof))


if __name__ == "__main__":
    sys.exit(main())

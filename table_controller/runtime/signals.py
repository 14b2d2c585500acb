# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How a long-running sub-command stops on SIGINT (Ctrl-C) and SIGTERM, however it was started.

Adapter. A shell script's background job (``cmd &``) starts with SIGINT ignored, and Python
then never turns Ctrl-C into ``KeyboardInterrupt``; a sub-command that relied on that would
ignore it. The loop's own handlers (``loop.add_signal_handler``) replace whatever the process
inherited, so every sub-command that runs until stopped takes both signals through here:
:func:`stop_signals` for one with a shutdown of its own, :func:`run_until_signalled` for one
that is simply cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Final

#: The signals that stop a sub-command.
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def stop_signals(stop: Callable[[signal.Signals], object]) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM call ``stop`` with the signal, in the running loop.

    On the way out the handlers are removed: SIGINT raises ``KeyboardInterrupt`` again and
    SIGTERM ends the process, whatever the process inherited.
    """
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        yield
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def run_until_signalled(main: Coroutine[Any, Any, int]) -> int:
    """``asyncio.run(main)``, cancelled by SIGINT or SIGTERM; its exit status.

    A cancelled ``main`` runs its ``finally`` blocks (ports closed, summaries logged) and the
    status is the shell's for the signal: 130 for SIGINT, 143 for SIGTERM.
    """
    return asyncio.run(_cancelled_by_signal(main))


async def _cancelled_by_signal(main: Coroutine[Any, Any, int]) -> int:
    task = asyncio.current_task()
    assert task is not None
    received: list[signal.Signals] = []

    def cancel(signum: signal.Signals) -> None:
        if not received:  # a second signal while stopping changes nothing
            received.append(signum)
            task.cancel()

    with stop_signals(cancel):
        try:
            return await main
        except asyncio.CancelledError:
            if not received:
                raise
            return 128 + received[0]

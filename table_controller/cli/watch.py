# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller watch --broker URL [--table ID]``: the reference consumer for integrators.

Edge module: subscribes through ``mqtt.client.subscriber`` (never aiomqtt itself), prints
one line per round result, void, correction, alarm and status change, and flags what a backend
must handle (``mqtt.consumer``): duplicates (dropped), gaps in ``seq``, late messages that
fill a gap, stale wills, and messages a status's ``last_seq`` says are outstanding (a status has
no ``seq`` and is not counted). A reply without ``seq`` is one the table could not record (its
journal refused writes): printed, not counted. ``--json`` prints one JSON object per line on
stdout; diagnostics go to stderr. It runs until Ctrl-C (exit status 130) or SIGTERM (143),
however it was started, or until ``--count`` round results were printed. A broker that cannot be
reached, or is lost, is retried with backoff; each new cause is said once on stderr, with
"retrying", and the connection's return too. With ``--once`` the watch stops instead, saying
why, with exit status 1.

With ``--verify`` every message is checked against its table's public key
(``integrity/verifier.py``): the ``public_key`` of the table's status, or ``--public-key``. A
signature that fails or is missing is printed (``SIGNATURE FAILED``) and counted; a watch that
ends (``--count``) after any failure exits with status 6.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Final

from table_controller.cli import Subcommand, UsageError, whole_number
from table_controller.cli.broker_flags import add_tls_flags, broker_endpoint
from table_controller.contract import DEFAULT_TOPIC_PREFIX
from table_controller.integrity import SignatureChecker, SignatureFailure, public_key_from_text
from table_controller.mqtt import (
    BrokerEndpoint,
    Incoming,
    StreamTracker,
    read_message,
    seq_of,
)
from table_controller.mqtt.client import Received, Subscription
from table_controller.runtime import run_until_signalled

#: Event types printed as they come (every message still counts for gaps and duplicates).
PRINTED_TYPES: Final = frozenset(
    {"round_result", "round_voided", "result_corrected", "shoe_voided", "alarm"}
)
#: How often a silent watch checks whether its broker refused it.
ERROR_CHECK_S: Final = 1.0
#: Exit status of ``--once`` when the broker cannot be reached or is lost.
BROKER_FAILED: Final = 1
#: Exit status of ``--verify`` when any message's signature failed or was missing.
SIGNATURE_FAILED: Final = 6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``watch`` flags."""
    parser.add_argument(
        "--broker", required=True, metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument("--table", metavar="ID", help="one table (default: every table)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--prefix", default=DEFAULT_TOPIC_PREFIX, metavar="P", help="topic prefix (%(default)s)"
    )
    parser.add_argument(
        "--count", type=whole_number(1), metavar="N", help="exit after N round results"
    )
    add_tls_flags(parser)
    parser.add_argument(
        "--once",
        action="store_true",
        help=f"stop with status {BROKER_FAILED} when the broker cannot be reached or is lost,"
        " instead of retrying",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="check every message's signature against the table's public key (its status's,"
        f" or --public-key); exit with status {SIGNATURE_FAILED} if any failed",
    )
    parser.add_argument(
        "--public-key",
        metavar="B64",
        help="the table's public key (base64, from `keys show`) instead of its status's",
    )


def run(args: argparse.Namespace) -> int:
    """Watch until interrupted or ``--count`` results were printed."""
    endpoint = broker_endpoint(args)
    table = args.table or "+"
    if any(char in table for char in "/#") or (table != "+" and "+" in table):
        raise UsageError(f"--table {table!r}: a table id, without / + #")
    if any(char in args.prefix for char in "+#"):
        raise UsageError(f"--prefix {args.prefix!r}: no wildcards")
    checker: SignatureChecker | None = None
    if args.verify or args.public_key is not None:
        try:
            pinned = None if args.public_key is None else public_key_from_text(args.public_key)
        except ValueError as error:
            raise UsageError(f"--public-key: {error}") from None
        checker = SignatureChecker(pinned)
    watcher = _Watcher(
        as_json=args.json, prefix=args.prefix, count=args.count, once=args.once, checker=checker
    )
    topic_filter = f"{args.prefix.rstrip('/')}/{table}/#"
    return run_until_signalled(watcher.watch(endpoint, topic_filter))


SUBCOMMAND = Subcommand(
    help="subscribe to tables and print their results, flagging gaps and duplicates",
    description=(
        "Reference consumer of the MQTT API: prints round results, voids, corrections, "
        "alarms and status changes; flags gaps and duplicates by seq, and stale wills."
    ),
    add_arguments=add_arguments,
    handler=run,
)


class _Watcher:
    def __init__(
        self,
        *,
        as_json: bool,
        prefix: str,
        count: int | None,
        once: bool = False,
        checker: SignatureChecker | None = None,
    ) -> None:
        self.checker = checker
        self.as_json = as_json
        self.once = once
        self.prefix = prefix
        self.count = count
        self.tracker = StreamTracker()
        self.results = 0
        self.duplicates = 0
        self.gaps = 0

    async def watch(self, endpoint: BrokerEndpoint, topic_filter: str) -> int:
        broker = f"{endpoint.host}:{endpoint.port}"
        reported_error: str | None = None
        async with Subscription(endpoint, [topic_filter]) as subscription:
            while self.count is None or self.results < self.count:
                try:
                    async with asyncio.timeout(ERROR_CHECK_S):
                        received = await subscription.get()
                except TimeoutError:
                    if await _connected(subscription):
                        if reported_error is not None:
                            _say(f"{broker}: connected again")
                        reported_error = None
                        continue
                    error = subscription.last_error  # while not connected: why not
                    if error is None or error == reported_error:
                        continue
                    if self.once:
                        _say(f"{broker}: {error}; not retried (--once)")
                        return BROKER_FAILED
                    _say(f"{broker}: {error}; retrying")
                    reported_error = error
                    continue
                self.handle(received)
                sys.stdout.flush()
        return self._summary()

    def _summary(self) -> int:
        """The closing line on stderr (signatures too, with ``--verify``); the exit status."""
        line = (
            f"table-controller watch: {self.results} results, {self.duplicates} duplicates,"
            f" {self.gaps} gaps"
        )
        checker = self.checker
        if checker is None:
            print(line, file=sys.stderr)
            return 0
        for failure in checker.finish():
            self._signature_failed(failure)
        print(
            f"{line}, {checker.checked} signatures checked, {checker.failed} failed",
            file=sys.stderr,
        )
        return SIGNATURE_FAILED if checker.failed else 0

    def _check_signature(self, table: str, topic: str, message: dict[str, object]) -> None:
        """With ``--verify``: check the message (duplicates and snapshots too)."""
        if self.checker is not None:
            for failure in self.checker.check(table, topic, message):
                self._signature_failed(failure)

    def _signature_failed(self, failure: SignatureFailure) -> None:
        self.emit(
            {
                "kind": "signature_failed",
                "table_id": failure.table_id,
                "topic": failure.topic,
                "seq": failure.seq,
                "type": failure.type,
                "reason": failure.reason,
            },
            f"{failure.table_id} SIGNATURE FAILED {failure.type} seq {failure.seq}"
            f" on {failure.topic}: {failure.reason}",
        )

    def emit(self, record: dict[str, object], text: str) -> None:
        if self.as_json:
            print(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
        else:
            print(text)

    def handle(self, received: Received) -> None:
        incoming = read_message(
            received.topic, received.payload, prefix=self.prefix, retained=received.retain
        )
        if incoming is None or incoming.channel == "commands":
            return  # not the table's own message (a command to the table)
        message = incoming.message
        if message is None:
            self.emit(
                {"kind": "unreadable", "table_id": incoming.table_id, "topic": received.topic},
                f"{incoming.table_id} UNREADABLE message on {received.topic}",
            )
            return
        self._check_signature(incoming.table_id, received.topic, message)
        if incoming.channel == "status":
            self._status(incoming, message)
            return
        seq = seq_of(message)
        if seq is None:
            self._without_seq(incoming.table_id, received.topic, message)
            return
        if incoming.retained:
            return  # a snapshot delivered on subscribing, not part of the live stream
        observation = self.tracker.observe(incoming.table_id, seq)
        table = incoming.table_id
        if observation.verdict == "duplicate":
            self.duplicates += 1
            self.emit(
                {"kind": "duplicate", "table_id": table, "seq": seq},
                f"{table} DUPLICATE seq {seq} (dropped)",
            )
            return
        if observation.verdict == "gap":
            self.gaps += 1
            for low, high in observation.missing:
                self.emit(
                    {"kind": "gap", "table_id": table, "missing": [low, high], "seq": seq},
                    f"{table} GAP seq {low}-{high} missing (got {seq})",
                )
        elif observation.verdict == "late":
            self.emit(
                {"kind": "late", "table_id": table, "seq": seq},
                f"{table} LATE seq {seq} (fills a gap)",
            )
        self._event(table, seq, message)

    def _without_seq(self, table: str, topic: str, message: dict[str, object]) -> None:
        """A message with no usable ``seq``: a reply the table could not record, or a fault.

        A reply without ``seq`` is one the table's journal refused to record (mqtt-api.md,
        "Replies"): printed, never counted.
        """
        if "seq" not in message and message.get("type") == "command_reply":
            outcome = "ok" if message.get("ok") is True else f"refused {message.get('error')}"
            self.emit(
                {"kind": "unrecorded_reply", "table_id": table, "message": message},
                f"{table} UNRECORDED reply to {message.get('id')}: {outcome}:"
                f" {message.get('message')}",
            )
            return
        self.emit(
            {"kind": "no_seq", "table_id": table, "topic": topic},
            f"{table} NO SEQ in message on {topic}",
        )

    def _status(self, incoming: Incoming, message: dict[str, object]) -> None:
        online = message.get("online") is True
        session = message.get("session")
        session_no = session if isinstance(session, int) else 0
        verdict = self.tracker.observe_status(incoming.table_id, online=online, session=session_no)
        table = incoming.table_id
        if verdict == "stale":
            self.emit(
                {"kind": "stale_status", "table_id": table, "online": online, "session": session},
                f"{table} STALE {'birth' if online else 'will'} of session {session} ignored",
            )
            return
        reader = message.get("reader")
        last_seq = seq_of(message, "last_seq")
        extra = "" if last_seq is None else f", last seq {last_seq}"
        extra += f", reader {reader}" if isinstance(reader, str) else ""
        self.emit(
            {"kind": "status", "table_id": table, "message": message},
            f"{table} status {'ONLINE' if online else 'OFFLINE'} (session {session}{extra})",
        )
        outstanding = None if last_seq is None else self.tracker.outstanding(table, last_seq)
        if outstanding is not None:
            low, high = outstanding
            self.emit(
                {"kind": "outstanding", "table_id": table, "missing": [low, high]},
                f"{table} OUTSTANDING seq {low}-{high}: published before the status, not"
                " received yet (in flight or lost)",
            )

    def _event(self, table: str, seq: int, message: dict[str, object]) -> None:
        kind = message.get("type")
        if kind not in PRINTED_TYPES:
            return
        if kind == "round_result":
            self.results += 1
        record: dict[str, object] = {"kind": kind, "table_id": table, "seq": seq}
        record["message"] = message
        self.emit(record, f"{table} seq {seq} {_describe(message)}")


async def _connected(subscription: Subscription) -> bool:
    """Whether the subscription is in place now (it waits for nothing)."""
    try:
        async with asyncio.timeout(0):
            await subscription.wait_subscribed()
    except TimeoutError:
        return False
    return True


def _say(text: str) -> None:
    print(f"table-controller watch: {text}", file=sys.stderr, flush=True)


def _hand(message: dict[str, object], side: str) -> str:
    hand = message.get(side)
    if not isinstance(hand, dict):
        return "?"
    cards = hand.get("cards")
    total = hand.get("total")
    shown = " ".join(str(card) for card in cards) if isinstance(cards, list) else "?"
    return f"{shown} ({total})"


def _describe(message: dict[str, object]) -> str:
    kind = message.get("type")
    round_id = message.get("round_id", "?")
    if kind == "round_result":
        winner = str(message.get("winner", "?")).upper()
        return (
            f"{round_id} {winner}  player {_hand(message, 'player')}"
            f"  banker {_hand(message, 'banker')}"
        )
    if kind == "round_voided":
        return f"{round_id} VOIDED: {message.get('reason', '?')}"
    if kind == "result_corrected":
        return f"{round_id} CORRECTED: winner now {message.get('winner', '?')}"
    if kind == "shoe_voided":
        return f"shoe {message.get('shoe_id', '?')} VOIDED"
    return f"ALARM {message.get('code', '?')}: {message.get('message', '')}"

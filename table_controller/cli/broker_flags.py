# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The flags of the backend's MQTT subscribers (``watch``, ``ingest``, ``floor``), and the broker.

``--ca``, ``--cert`` and ``--key`` mean the same in every tool, and with ``--broker`` (which each
tool adds first among its flags) they make the endpoint it connects to.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from table_controller.cli import UsageError
from table_controller.contract import DEFAULT_TOPIC_PREFIX
from table_controller.mqtt import BrokerEndpoint, ProtocolName


def add_tls_flags(parser: argparse.ArgumentParser) -> None:
    """``--ca``, ``--cert`` and ``--key``: the TLS files of an ``mqtts://`` broker."""
    parser.add_argument("--ca", type=Path, metavar="FILE", help="CA certificate (mqtts://)")
    parser.add_argument("--cert", type=Path, metavar="FILE", help="client certificate (mqtts://)")
    parser.add_argument("--key", type=Path, metavar="FILE", help="client key (mqtts://)")


def add_backend_service_flags(parser: argparse.ArgumentParser) -> None:
    """The last flags of a long-running backend service: topic prefix, TLS files and logging."""
    parser.add_argument(
        "--prefix", default=DEFAULT_TOPIC_PREFIX, metavar="P", help="topic prefix (%(default)s)"
    )
    add_tls_flags(parser)
    parser.add_argument(
        "--log-format", choices=["json", "console"], default="json", help="(%(default)s)"
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="info",
        help="(%(default)s)",
    )


def broker_endpoint(
    args: argparse.Namespace, *, protocol: ProtocolName = "3.1.1"
) -> BrokerEndpoint:
    """The broker ``--broker`` and the TLS files name; a malformed URL is a :class:`UsageError`."""
    try:
        return BrokerEndpoint.from_url(
            args.broker, ca_file=args.ca, cert_file=args.cert, key_file=args.key, protocol=protocol
        )
    except ValueError as error:
        raise UsageError(str(error)) from None

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The TLS flags of the MQTT subscribers ``watch`` and ``ingest``, and the broker they name.

``--ca``, ``--cert`` and ``--key`` mean the same in both tools, and with ``--broker`` (which each
tool adds first among its flags) they make the endpoint both connect to.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from table_controller.cli import UsageError
from table_controller.mqtt import BrokerEndpoint, ProtocolName


def add_tls_flags(parser: argparse.ArgumentParser) -> None:
    """``--ca``, ``--cert`` and ``--key``: the TLS files of an ``mqtts://`` broker."""
    parser.add_argument("--ca", type=Path, metavar="FILE", help="CA certificate (mqtts://)")
    parser.add_argument("--cert", type=Path, metavar="FILE", help="client certificate (mqtts://)")
    parser.add_argument("--key", type=Path, metavar="FILE", help="client key (mqtts://)")


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

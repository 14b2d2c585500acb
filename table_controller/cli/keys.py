# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller keys init|show``: the device's Ed25519 signing key.

Edge module over :mod:`table_controller.integrity.signing`. The key file is the one the
``device_key`` setting names: ``--key``, else ``TABLE_CONTROLLER_DEVICE_KEY``, else the
``device_key`` key of the ``--config`` file. ``init`` creates it (mode 0600; an existing file is
never overwritten); ``show`` prints the public key (base64 of its raw 32 bytes) and its ``kid``.
The private key is never printed.

Exit status: 0 done, 1 the key file exists (``init``) or cannot be used, 2 a wrong flag or
no key file named.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Final

from table_controller.cli import Subcommand, UsageError
from table_controller.integrity import (
    DeviceKey,
    KeyFileError,
    create_key_file,
    load_key_file,
)
from table_controller.runtime import environment_variable
from table_controller.toml_file import TomlFileError, read_toml

FAILED: Final = 1
KEY_VARIABLE: Final = environment_variable("device_key")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``keys`` actions and their flags."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser("init", help="create the key file (mode 0600, never overwritten)")
    show = actions.add_parser("show", help="print the public key (base64) and its kid")
    show.add_argument("--json", action="store_true", help="one JSON object on stdout")
    for action in (init, show):
        action.add_argument(
            "--key", type=Path, metavar="FILE", help=f"the key file (default: ${KEY_VARIABLE})"
        )
        action.add_argument(
            "--config", type=Path, metavar="FILE", help="TOML settings file naming device_key"
        )


def key_path(key: Path | None, config: Path | None) -> Path:
    """The key file: the flag, the environment, or the settings file's ``device_key``."""
    if key is not None:
        return key
    named = os.environ.get(KEY_VARIABLE)
    if named:
        return Path(named)
    if config is not None:
        try:
            settings = read_toml(config)
        except TomlFileError as error:
            raise UsageError(f"config: {error}") from None
        value = settings.get("device_key")
        if isinstance(value, str) and value:
            return Path(value)
        raise UsageError(f"config: {config}: names no device_key")
    raise UsageError(f"no key file: give --key FILE, set {KEY_VARIABLE} or --config FILE")


def run(args: argparse.Namespace) -> int:
    """Create or show the key."""
    path = key_path(args.key, args.config)
    try:
        key = create_key_file(path) if args.action == "init" else load_key_file(path)
    except KeyFileError as error:
        print(f"table-controller keys: {error}", file=sys.stderr)
        return FAILED
    if args.action == "init":
        print(f"created {path} (mode 0600)")
    _show(key, as_json=getattr(args, "json", False))
    return 0


SUBCOMMAND = Subcommand(
    help="create the device's signing key, or show its public key and kid",
    description="The device's Ed25519 key, which signs every published payload.",
    add_arguments=add_arguments,
    handler=run,
)


def _show(key: DeviceKey, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"kid": key.kid, "public_key": key.public_key}))
    else:
        print(f"kid        {key.kid}")
        print(f"public_key {key.public_key}")

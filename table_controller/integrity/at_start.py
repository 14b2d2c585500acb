# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What ``run`` does about integrity at start: the software check, the key, the start row.

Edge module (``table-controller run``). :func:`checked_software` checks the installed files
(``identity.py``) and logs any difference; :func:`start_record` is the journal's start row;
:class:`EdgeSigning` is what the sinks and the MQTT link add to what goes out.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import structlog

from table_controller.contract import EdgeFields, JsonValue, Seal
from table_controller.integrity.identity import InstallCheck, InstallStatus, installed_identity
from table_controller.procedure import SoftwareModified
from table_controller.rules import Variant, rules_digest
from table_controller.runtime import Settings

if TYPE_CHECKING:  # the cryptography library only for a table with a device key
    from table_controller.integrity.signing import DeviceKey

_LOG = structlog.get_logger("table_controller.run")
#: How many files of each kind a log line names.
SHOWN_FILES = 10


def device_key(settings: Settings) -> DeviceKey | None:
    """The device key the settings name, read now; None: messages go unsigned.

    Raises:
        KeyFileError: the key file is missing, too open or not an Ed25519 key.
    """
    if settings.device_key is None:
        return None
    from table_controller.integrity.signing import load_key_file  # noqa: PLC0415 - see above

    return load_key_file(settings.device_key)


def checked_software(settings: Settings) -> InstallCheck | None:
    """The installed software's check; None when it differs and ``software_check`` refuses.

    A difference is logged (critical) either way; with ``hold``, the caller holds the table.
    """
    software = installed_identity()
    if software.status is not InstallStatus.MODIFIED:
        _LOG.info("software identity", software=software.identity, status=software.status.value)
        return software
    _LOG.critical(
        "software modified",
        added=list(software.added[:SHOWN_FILES]),
        missing=list(software.missing[:SHOWN_FILES]),
        changed=list(software.changed[:SHOWN_FILES]),
        differences=differences(software),
        software=software.identity,
        software_check=settings.software_check,
    )
    if settings.software_check == "refuse":
        print(
            "table-controller run: the installed files differ from those recorded"
            " (table-controller verify-install lists them); software_check is 'refuse':"
            " not starting",
            file=sys.stderr,
        )
        return None
    return software


#: How many files of each kind the ``software_modified`` input names (its counts say all).
LISTED_FILES = 50


def hold_input(software: InstallCheck) -> SoftwareModified | None:
    """The input that holds the table (``software_modified``) when the files differ; else None."""
    if software.status is not InstallStatus.MODIFIED:
        return None
    return SoftwareModified(
        at=time.monotonic(),
        message=f"{differences(software)} installed files differ from those recorded"
        " (table-controller verify-install lists them)",
        details={
            "software": software.identity,
            "added": list(software.added[:LISTED_FILES]),
            "missing": list(software.missing[:LISTED_FILES]),
            "changed": list(software.changed[:LISTED_FILES]),
            "counts": {
                "added": len(software.added),
                "missing": len(software.missing),
                "changed": len(software.changed),
            },
        },
    )


def differences(software: InstallCheck) -> int:
    """How many files were added, are missing or were changed."""
    return len(software.added) + len(software.missing) + len(software.changed)


def start_record(
    settings: Settings, variant: Variant, software: InstallCheck, key: DeviceKey | None
) -> dict[str, object]:
    """The journal's start row (an audit row; the procedure's replay skips it)."""
    return {
        "started": {
            "software": {**software.identity, "status": software.status.value},
            "table_id": settings.table_id,
            "variant": variant.name,
            "variant_rules": rules_digest(variant),
            "betting_phase": settings.betting_phase,
            "require_dealer": settings.require_dealer,
            "kid": None if key is None else key.kid,
        }
    }


class EdgeSigning:
    """What the edge adds to what goes out: the software identity and the key's signature."""

    def __init__(self, software: InstallCheck, key: DeviceKey | None) -> None:
        self.software = software
        self.key = key

    @property
    def identity(self) -> dict[str, JsonValue]:
        return {"version": self.software.version, "sha256": self.software.sha256}

    @property
    def seal(self) -> Seal | None:
        """Signs a whole message (None: no key, messages go unsigned)."""
        return None if self.key is None else self.key.sign

    @property
    def message_fields(self) -> EdgeFields:
        """``software`` on each ``shoe_started``."""
        return {"shoe_started": {"software": self.identity}}

    @property
    def status_fields(self) -> dict[str, JsonValue]:
        """``software`` and, with a key, ``public_key`` on every status."""
        fields: dict[str, JsonValue] = {"software": self.identity}
        if self.key is not None:
            fields["public_key"] = self.key.public_key
        return fields

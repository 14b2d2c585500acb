# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the table proves about itself: its software's identity and its device key."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.integrity.at_start import (
        EdgeSigning,
        checked_software,
        device_key,
        hold_input,
        start_record,
    )
    from table_controller.integrity.errors import KeyFileError
    from table_controller.integrity.identity import InstallCheck, InstallStatus, installed_identity
    from table_controller.integrity.signing import (
        DeviceKey,
        create_key_file,
        key_id,
        load_key_file,
        public_key_from_text,
        raw_public_key,
        verify,
    )
    from table_controller.integrity.verifier import SignatureChecker, SignatureFailure

__all__ = [
    "DeviceKey",
    "EdgeSigning",
    "InstallCheck",
    "InstallStatus",
    "KeyFileError",
    "SignatureChecker",
    "SignatureFailure",
    "checked_software",
    "create_key_file",
    "device_key",
    "hold_input",
    "installed_identity",
    "key_id",
    "load_key_file",
    "public_key_from_text",
    "raw_public_key",
    "start_record",
    "verify",
]

__getattr__ = lazy_face(
    __name__,
    {
        "at_start": ("EdgeSigning", "checked_software", "device_key", "hold_input", "start_record"),
        "errors": ("KeyFileError",),
        "identity": ("InstallCheck", "InstallStatus", "installed_identity"),
        "signing": (
            "DeviceKey",
            "create_key_file",
            "key_id",
            "load_key_file",
            "public_key_from_text",
            "raw_public_key",
            "verify",
        ),
        "verifier": ("SignatureChecker", "SignatureFailure"),
    },
)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress: a command read from bytes or data, and who may give it."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.ingress.authorisation import (
        MIN_SECRET_BYTES,
        AuthorisationPolicy,
        Refused,
        authorise,
        sign,
    )
    from table_controller.ingress.parsing import (
        CommandRejection,
        parse_command,
        readable_id,
        validate_command,
    )
    from table_controller.ingress.request_limit import RequestRateLimit

__all__ = [
    "MIN_SECRET_BYTES",
    "AuthorisationPolicy",
    "CommandRejection",
    "Refused",
    "RequestRateLimit",
    "authorise",
    "parse_command",
    "readable_id",
    "sign",
    "validate_command",
]

__getattr__ = lazy_face(
    __name__,
    {
        "authorisation": (
            "MIN_SECRET_BYTES",
            "AuthorisationPolicy",
            "Refused",
            "authorise",
            "sign",
        ),
        "parsing": ("CommandRejection", "parse_command", "readable_id", "validate_command"),
        "request_limit": ("RequestRateLimit",),
    },
)

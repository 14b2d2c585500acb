# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress: a command read from bytes or data, and who may give it."""

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

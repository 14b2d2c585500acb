# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens: the dealer's display and the players' board, their languages and PINs."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.screens.http_limits import (
        IDLE_TIMEOUT_S,
        MAX_CONNECTIONS,
        MAX_PER_CLIENT,
        REQUEST_TIMEOUT_S,
        AddressUnusableError,
        ListenerLimits,
        descriptors_needed,
        ensure_descriptors,
    )
    from table_controller.screens.languages import (
        DEFAULT_LANGUAGE,
        LANGUAGES,
        CatalogueError,
        Catalogues,
        language_for,
        read_catalogue,
    )
    from table_controller.screens.pin_lockout import (
        MAX_PIN_FAILURES,
        PIN_LOCKOUT_S,
        PinRefusal,
        StaffGuessLimits,
        locked_refusal,
    )

__all__ = [
    "DEFAULT_LANGUAGE",
    "IDLE_TIMEOUT_S",
    "LANGUAGES",
    "MAX_CONNECTIONS",
    "MAX_PER_CLIENT",
    "MAX_PIN_FAILURES",
    "PIN_LOCKOUT_S",
    "REQUEST_TIMEOUT_S",
    "AddressUnusableError",
    "CatalogueError",
    "Catalogues",
    "ListenerLimits",
    "PinRefusal",
    "StaffGuessLimits",
    "descriptors_needed",
    "ensure_descriptors",
    "language_for",
    "locked_refusal",
    "read_catalogue",
]

__getattr__ = lazy_face(
    __name__,
    {
        "http_limits": (
            "IDLE_TIMEOUT_S",
            "MAX_CONNECTIONS",
            "MAX_PER_CLIENT",
            "REQUEST_TIMEOUT_S",
            "AddressUnusableError",
            "ListenerLimits",
            "descriptors_needed",
            "ensure_descriptors",
        ),
        "languages": (
            "DEFAULT_LANGUAGE",
            "LANGUAGES",
            "CatalogueError",
            "Catalogues",
            "language_for",
            "read_catalogue",
        ),
        "pin_lockout": (
            "MAX_PIN_FAILURES",
            "PIN_LOCKOUT_S",
            "PinRefusal",
            "StaffGuessLimits",
            "locked_refusal",
        ),
    },
)

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The integrity package's errors, apart from the code that raises them.

``run`` catches them without importing the cryptography library a table without a device key
never needs.
"""

from __future__ import annotations


class KeyFileError(Exception):
    """The key file cannot be created or used; the message says why (never the key)."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A small TOML writer for the fuzzers: documents as inline tables, one key per line.

Test support, pure: no I/O. Written here so that generated documents do not depend on a TOML
library the project does not use. ``None`` has no TOML form: such entries are left out.
"""

from __future__ import annotations

import json
import math


def toml_key(key: str) -> str:
    """A key as a quoted TOML key (basic string; JSON's escapes are TOML's)."""
    return json.dumps(key)


def toml_value(value: object) -> str:
    """One value as TOML text."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        text = "nan" if math.isnan(value) else repr(value)  # repr gives inf, -inf as TOML does
    elif isinstance(value, str):
        text = json.dumps(value)
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(toml_value(item) for item in value if item is not None) + "]"
    elif isinstance(value, dict):
        pairs = [f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items() if v is not None]
        text = "{ " + ", ".join(pairs) + " }"
    else:
        raise TypeError(f"no TOML form for {value!r}")
    return text


def toml_document(document: dict[str, object]) -> str:
    """A whole document: one top-level key per line."""
    return "".join(
        f"{toml_key(key)} = {toml_value(value)}\n"
        for key, value in document.items()
        if value is not None
    )

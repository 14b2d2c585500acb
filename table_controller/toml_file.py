# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Reading a TOML file (a variant file, a settings file) whose problem is named, not raised."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

__all__ = ["TomlFileError", "read_toml"]


class TomlFileError(ValueError):
    """The file cannot be read or is not TOML; the message names the file and why."""


def read_toml(path: Path) -> dict[str, Any]:
    """The document in the TOML file at ``path``.

    Raises:
        TomlFileError: the file cannot be read, is not UTF-8 or is not valid TOML.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TomlFileError(f"{path}: cannot read: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError, RecursionError) as error:
        # ValueError: an integer too long to read; RecursionError: nesting too deep.
        raise TomlFileError(f"{path}: not valid TOML: {type(error).__name__}: {error}") from None

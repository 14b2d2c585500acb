# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A view model's texts as the page shows them in English, for the tests that read views.

The same rules as ``screens/static/i18n.js``: a text is ``{"key", "args"}``; ``{name}`` is
filled with its value (a number written the English way, a nested text in words); a list of
texts is one line, joined with `` · ``. A key no catalogue has fails the test.
"""

from __future__ import annotations

import functools
import re

from table_controller.contract.envelope import JsonValue
from table_controller.screens.languages import Catalogues


@functools.cache
def _messages(tag: str) -> dict[str, str]:
    return Catalogues.packaged().messages(tag, "display")


def in_words(value: JsonValue, tag: str = "en") -> str:
    """``value`` (a text, a line of texts, a plain value) as the page writes it in ``tag``."""
    if isinstance(value, list):
        return " · ".join(text for text in (in_words(item, tag) for item in value) if text)
    if isinstance(value, dict):
        key = value["key"]
        assert isinstance(key, str), value
        messages = _messages(tag)
        assert key in messages, f"no text for {key}"
        args = value.get("args") or {}
        assert isinstance(args, dict), value

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            return in_words(args[name], tag) if name in args else match.group(0)

        return re.sub(r"\{(\w+)\}", fill, messages[key])
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)

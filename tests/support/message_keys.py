# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The message keys the screens' sources use, found the way gettext tools find them (babel).

Python view models name a text with ``localised("key", ...)``, the pages' scripts with
``I18n.t("key", ...)``, and the pages' HTML with ``data-i18n*`` attributes; babel's own Python
and JavaScript extractors read the first two, :func:`extract_html` the third.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any

from babel.messages.extract import extract_from_dir

from table_controller.screens.languages import LANGUAGES, catalogue_path, read_catalogue

SCREENS = Path(__file__).resolve().parents[2] / "table_controller" / "screens"
#: What babel reads, and how: the view models, the pages' scripts, the pages.
METHODS = [
    ("**.py", "python"),
    ("**/static/*.js", "javascript"),
    ("**/static/*.html", "tests.support.message_keys:extract_html"),
]
KEYWORDS: Mapping[str, None] = {"localised": None, "t": None}
_ATTRIBUTES = ("data-i18n", "data-i18n-title", "data-i18n-aria-label", "data-i18n-placeholder")


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        del tag
        for name, value in attrs:
            if name in _ATTRIBUTES and value:
                self.found.append((self.getpos()[0], value))


def extract_html(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """A babel extractor for the keys an HTML page names in its ``data-i18n*`` attributes."""
    del keywords, comment_tags, options
    parser = _Attributes()
    parser.feed(fileobj.read().decode("utf-8"))
    parser.close()
    for line, key in parser.found:
        yield line, None, key, []  # no keyword: babel takes the key as it is


def used_keys() -> dict[str, set[str]]:
    """Every key the sources use, by domain (a key's first dot-separated part)."""
    keys: dict[str, set[str]] = defaultdict(set)
    for _file, _line, key, _comments, _context in extract_from_dir(
        SCREENS, METHODS, keywords=KEYWORDS
    ):
        assert isinstance(key, str), f"a key with plural forms: {key!r}"
        keys[key.partition(".")[0]].add(key)
    return keys


def catalogue_keys(domain: str) -> dict[str, set[str]]:
    """The keys of one domain's catalogue, per language tag."""
    return {
        language.tag: set(read_catalogue(catalogue_path(domain, language)))
        for language in LANGUAGES
    }

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens' languages: which there are, and their message catalogues.

Every text a screen shows comes from a gettext catalogue (``<locale>/LC_MESSAGES/<domain>.po``,
read with babel): each screen's own domain in its sub-package (``display`` in
``dealer/locales/``, ``board`` in ``board/locales/``) and ``game``, the game's own terms that
every screen shows, in this package's ``locales/``. A message id is a key whose first part names
its domain (``game.banker``, ``board.title``); its text may hold ``{name}`` placeholders, which
the page fills. There are no plural forms: a number stands beside its label.

A view model never writes words: it names a key with :func:`localised`, and each page turns the
key into text in its own language. The catalogues are read once at start; a missing or broken
one stops the start with an error naming the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from table_controller.contract import JsonValue

_SCREENS_DIR: Final = Path(__file__).resolve().parent
#: Where the shared catalogues are (``<locale>/LC_MESSAGES/game.po``): the game's own terms.
LOCALES_DIR: Final = _SCREENS_DIR / "locales"


@dataclass(frozen=True, slots=True)
class Language:
    """A language a screen can show."""

    #: BCP 47 tag: the ``lang`` of the page, the query parameter and the setting's value.
    tag: str
    #: The folder of its catalogues (babel's locale identifier).
    locale: str
    #: Its name in itself, for a technician choosing one.
    name: str


LANGUAGES: Final = (
    Language("en", "en", "English"),
    Language("zh-Hans", "zh_Hans", "简体中文"),
    Language("zh-Hant", "zh_Hant", "繁體中文"),
    Language("vi", "vi", "Tiếng Việt"),
    Language("th", "th", "ไทย"),
    Language("ko", "ko", "한국어"),
)
DEFAULT_LANGUAGE: Final = "en"
#: Tags browsers and technicians use for the same languages (compared lower-case).
_ALIASES: Final[Mapping[str, str]] = {
    "zh": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-sg": "zh-Hans",
    "zh-hans-cn": "zh-Hans",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "zh-mo": "zh-Hant",
    "zh-hant-tw": "zh-Hant",
    "zh-hant-hk": "zh-Hant",
    "en-us": "en",
    "en-gb": "en",
    "vi-vn": "vi",
    "th-th": "th",
    "ko-kr": "ko",
}
_BY_TAG: Final = {language.tag.lower(): language for language in LANGUAGES}
#: The catalogue domains each screen reads: the shared game terms, then its own.
SCREENS: Final[Mapping[str, tuple[str, ...]]] = {
    "display": ("game", "display"),
    "board": ("game", "board"),
}
#: Where each domain's catalogues are: the shared one here, each screen's in its sub-package.
CATALOGUE_DIRS: Final[Mapping[str, Path]] = {
    "game": LOCALES_DIR,
    "display": _SCREENS_DIR / "dealer" / "locales",
    "board": _SCREENS_DIR / "board" / "locales",
}


class CatalogueError(ValueError):
    """A catalogue is missing or cannot be read; the message names the file."""


def language_for(tag: str | None) -> Language | None:
    """The language a tag names (``zh-TW`` is Traditional Chinese), or None if none of ours."""
    if not tag:
        return None
    key = tag.strip().replace("_", "-").lower()
    return _BY_TAG.get(key) or _BY_TAG.get(_ALIASES.get(key, "").lower())


def localised(key: str, **args: JsonValue) -> dict[str, JsonValue]:
    """A text for a page to show: a catalogue key and the values of its placeholders."""
    return {"key": key, "args": dict(args)} if args else {"key": key}


def catalogue_path(domain: str, language: Language) -> Path:
    """The ``.po`` file of one domain in one language."""
    return CATALOGUE_DIRS[domain] / language.locale / "LC_MESSAGES" / f"{domain}.po"


def read_catalogue(path: Path) -> dict[str, str]:
    """The messages of one ``.po`` file: key to text (the header left out)."""
    from babel.messages.pofile import PoFileError, read_po  # noqa: PLC0415 - only for a screen

    try:
        with path.open("rb") as file:
            catalogue = read_po(file, abort_invalid=True)
    except (OSError, UnicodeDecodeError, PoFileError) as error:
        raise CatalogueError(f"message catalogue {path}: {error}") from error
    texts: dict[str, str] = {}
    for entry in catalogue:
        if not entry.id:
            continue
        if not isinstance(entry.id, str) or not isinstance(entry.string, str):
            raise CatalogueError(f"message catalogue {path}: {entry.id!r} has plural forms")
        if not entry.string:
            raise CatalogueError(f"message catalogue {path}: {entry.id!r} has no text")
        texts[entry.id] = entry.string
    return texts


class Catalogues:
    """Every screen's messages in every language, read once from the ``.po`` files."""

    def __init__(self, languages: Iterable[Language] = LANGUAGES) -> None:
        domains = {domain for wanted in SCREENS.values() for domain in wanted}
        self._texts: dict[tuple[str, str], dict[str, str]] = {}
        for language in languages:
            for domain in sorted(domains):
                self._texts[language.tag, domain] = read_catalogue(catalogue_path(domain, language))

    @staticmethod
    @cache
    def packaged() -> Catalogues:
        """The package's own catalogues, read once per process (every screen shares them)."""
        return Catalogues()

    def messages(self, tag: str, screen: str) -> dict[str, str]:
        """What one screen shows in one language: key to text, shared game terms included."""
        merged: dict[str, str] = {}
        for domain in SCREENS[screen]:
            merged.update(self._texts[tag, domain])
        return merged

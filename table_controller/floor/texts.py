# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's texts in the six languages the screens speak.

Adapter (aiohttp). The floor's own words are the ``floor`` catalogues
(``floor/locales/<locale>/LC_MESSAGES/floor.po``); the game's terms, the alarm codes, the
phases, the hold and void reasons and the refusals are the dealer display's (``game`` and
``display``, ``screens/languages.py``), so the floor calls each thing what the dealer's screen
calls it. Read once at start: a missing or broken catalogue stops the start naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from aiohttp import web

from table_controller.screens import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Catalogues,
    language_for,
    read_catalogue,
)

#: The floor's catalogues.
LOCALES_DIR: Final = Path(__file__).resolve().with_name("locales")
DOMAIN: Final = "floor"
#: The keys the pages name with a code in them (``floor.reader.${reader}``): no extractor sees
#: them whole, so they are listed here, for the catalogues' test.
DYNAMIC_KEYS: Final = frozenset(
    {
        *(
            f"floor.error.{code}"
            for code in (
                "broker_unavailable",
                "no_answer",
                "csrf",
                "bad_signature",
                "unknown_table",
                "unreachable",
                "foreign_origin",
                "session_ended",
                "signed_out",
                "not_authorised",
            )
        ),
        *(f"floor.problem.{part}" for part in ("broker", "database")),
        *(f"floor.reader.{state}" for state in ("connected", "offline", "fault")),
        *(f"floor.role.{role}" for role in ("viewer", "supervisor")),
        *(f"floor.table.status.{status}" for status in ("settled", "corrected", "voided")),
        *(f"floor.tile.{status}" for status in ("online", "offline", "no_news")),
    }
)


def catalogue_path(locale: str) -> Path:
    """The floor's ``.po`` file of one language (its babel locale: ``zh_Hant``)."""
    return LOCALES_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


class FloorTexts:
    """Every text of the floor's pages, by language tag.

    Args:
        language: The language of a page that asks for none (a BCP 47 tag of ours).
        catalogues: The screens' catalogues; None: the package's own.
    """

    def __init__(
        self, language: str = DEFAULT_LANGUAGE, catalogues: Catalogues | None = None
    ) -> None:
        shared = Catalogues.packaged() if catalogues is None else catalogues
        chosen = language_for(language)
        self.language = DEFAULT_LANGUAGE if chosen is None else chosen.tag
        self._messages: dict[str, dict[str, str]] = {}
        for known in LANGUAGES:
            merged = dict(shared.messages(known.tag, "display"))
            merged.update(read_catalogue(catalogue_path(known.locale)))
            self._messages[known.tag] = merged

    def messages(self, tag: str) -> dict[str, str]:
        return self._messages[tag]

    async def handler(self, request: web.Request) -> web.Response:
        """``GET /i18n/floor.json?lang=``: the texts in the language asked for, or the floor's."""
        asked = language_for(request.query.get("lang"))
        tag = self.language if asked is None else asked.tag
        body = {"lang": tag, "messages": self._messages[tag]}
        return web.json_response(body, headers={"Cache-Control": "no-cache"})

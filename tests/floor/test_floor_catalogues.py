# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's catalogues: every text its pages name, in the six languages, none left over."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.extract import extract_from_dir

from table_controller.floor.texts import DYNAMIC_KEYS, FloorTexts, catalogue_path
from table_controller.screens import LANGUAGES, read_catalogue
from tests.support.message_keys import KEYWORDS, METHODS

FLOOR = Path(__file__).resolve().parents[2] / "table_controller" / "floor"


def used_keys() -> set[str]:
    """The keys named whole (one built from a code, ``floor.role.${role}``, is in no list)."""
    found = {key for _f, _l, key, _c, _x in extract_from_dir(FLOOR, METHODS, keywords=KEYWORDS)}
    return {key for key in found if isinstance(key, str) and "${" not in key}


def test_the_floor_catalogues_have_exactly_the_keys_its_pages_use() -> None:
    used = used_keys()
    own = {key for key in used if key.startswith("floor.")} | DYNAMIC_KEYS
    assert len(own) > 50
    for language in LANGUAGES:
        keys = set(read_catalogue(catalogue_path(language.locale)))
        assert not own - keys, f"{language.tag}/floor.po misses {sorted(own - keys)}"
        assert not keys - own, f"{language.tag}/floor.po has unused {sorted(keys - own)}"


def test_the_shared_texts_the_floor_names_are_there_in_every_language() -> None:
    texts = FloorTexts()
    shared = {key for key in used_keys() if not key.startswith("floor.")}
    assert {"game.shoe", "game.limits", "game.round"} <= shared
    for language in LANGUAGES:
        messages = texts.messages(language.tag)
        assert not shared - set(messages), (language.tag, sorted(shared - set(messages)))
        assert {
            "display.phase.held",
            "display.hold.misread",
            "display.alarm.misread",
            "display.refusal.already_acknowledged",
        } <= set(messages)


def test_every_language_fills_the_same_placeholders_with_words_of_its_own() -> None:
    texts = FloorTexts()
    english = {k: v for k, v in texts.messages("en").items() if k.startswith("floor.")}
    for language in LANGUAGES:
        messages = texts.messages(language.tag)
        for key, text in english.items():
            assert _placeholders(messages[key]) == _placeholders(text), (language.tag, key)
            if (
                language.tag != "en"
                and key != "floor.sign_in.pin"
                and re.search(r"[a-z]{4}", re.sub(r"\{\w+\}", "", text))
            ):
                assert messages[key] != text, f"{language.tag}: {key} is not translated"


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))

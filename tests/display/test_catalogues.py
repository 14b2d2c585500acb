# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every catalogue has exactly the keys the screens use: none missing, none left over.

The keys are extracted from the sources with babel (``tests/support/message_keys.py``), so a
text added to a page without its translations, or a translation left behind by a removed
text, fails here, naming the language and the keys.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.screens.languages import (
    LANGUAGES,
    SCREENS,
    CatalogueError,
    Catalogues,
    language_for,
    read_catalogue,
)
from tests.support.message_keys import catalogue_keys, used_keys

DOMAINS = sorted({domain for domains in SCREENS.values() for domain in domains})


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_catalogue_has_exactly_the_keys_the_sources_use(domain: str) -> None:
    used = used_keys().get(domain, set())
    assert used, f"no source uses a {domain}.* key"
    for tag, keys in catalogue_keys(domain).items():
        assert not used - keys, f"{tag}/{domain}.po misses {sorted(used - keys)}"
        assert not keys - used, f"{tag}/{domain}.po has keys no source uses: {sorted(keys - used)}"


def test_no_source_uses_a_key_outside_the_catalogue_domains() -> None:
    assert set(used_keys()) <= set(DOMAINS), sorted(set(used_keys()) - set(DOMAINS))


def test_every_screen_reads_in_every_language() -> None:
    catalogues = Catalogues()
    for screen in SCREENS:
        english = catalogues.messages("en", screen)
        for language in LANGUAGES:
            texts = catalogues.messages(language.tag, screen)
            assert texts.keys() == english.keys(), (language.tag, screen)
            assert all(text.strip() for text in texts.values()), (language.tag, screen)


def test_placeholders_match_the_english_text() -> None:
    catalogues = Catalogues()
    for screen in SCREENS:
        english = catalogues.messages("en", screen)
        for language in LANGUAGES:
            for key, text in catalogues.messages(language.tag, screen).items():
                assert _placeholders(text) == _placeholders(english[key]), (language.tag, key)


def test_tags_browsers_send_name_our_languages() -> None:
    assert language_for("zh-TW").tag == "zh-Hant"  # type: ignore[union-attr]
    assert language_for("zh_CN").tag == "zh-Hans"  # type: ignore[union-attr]
    assert language_for("KO").tag == "ko"  # type: ignore[union-attr]
    assert language_for("fr") is None
    assert language_for("") is None


def test_a_broken_catalogue_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "game.po"
    path.write_text('msgid "game.banker"\nthis is not a catalogue\n', encoding="utf-8")
    with pytest.raises(CatalogueError, match=r"game\.po"):
        read_catalogue(path)
    with pytest.raises(CatalogueError, match=r"missing\.po"):
        read_catalogue(path.with_name("missing.po"))


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))

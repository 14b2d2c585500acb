# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The missing-glyph check (tests/support/glyphs.py) catches a box and passes every language.

A negative control: a page with a character no installed font covers (fontconfig says so on
this machine) fails, naming the character, its code point and its element. Positive pages in
each of the screens' languages (the game's terms, every text of the catalogues, every Vietnamese
vowel with every tone in both cases, the card suits) pass, drawn with the screens' own font
rules (``screens/static/fonts.css``) and each script in its language's face.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from table_controller.screens.languages import LANGUAGES, SCREENS, Catalogues
from table_controller.screens.web.assets import SHARED_STATIC_DIR
from tests.support.chromium import SHARED_LOOP
from tests.support.glyphs import (
    GlyphReport,
    RenderedText,
    UsedFont,
    assert_drawn_in,
    assert_no_tofu,
    check_rendered,
    fonts_covering,
    glyph_report,
    transformed,
    wrong_faces,
)

#: Characters no font of a Debian table device should have: a private-use code point, an
#: Egyptian hieroglyph, a letter of Ol Chiki. The control takes the first none covers here.
UNCOVERED_CANDIDATES = ("\ue000", "\U00013000", "\u1c5a")
VIETNAMESE_VOWELS = "aăâeêioôơuưy"
VIETNAMESE_TONES = ("", "\u0300", "\u0301", "\u0309", "\u0303", "\u0323")
SUITS = "♠♥♦♣ 0123456789"

#: The game's terms in each language, as a player reads them on a scoreboard.
SAMPLES = {
    "en": "Banker wins · Player 5 · Tie pays 8 to 1 · Big Eye Boy · Cockroach Pig · Cards left",
    "zh-Hans": "庄 闲 和 庄对 闲对 珠盘路 大路 大眼仔 小路 曱甴路 庄问路 闲问路 停止下注 庄赢",
    "zh-Hant": "莊 閒 和 莊對 閒對 珠盤路 大路 大眼仔 小路 曱甴路 莊問路 閒問路 停止下注 莊贏",
    "vi": "Nhà cái thắng · Người chơi · Hòa · Cặp nhà cái · Bảng cầu lớn · Đang nhận cược",
    "th": "เจ้ามือ ผู้เล่น เสมอ ไพ่คู่เจ้ามือ ไพ่คู่ผู้เล่น เปิดรับเดิมพัน ปิดรับเดิมพัน เจ้ามือชนะ",
    "ko": "뱅커 플레이어 타이 뱅커 페어 플레이어 페어 빅 로드 본매 베팅 시작 베팅 마감 뱅커 승",
}


def vietnamese_letters() -> str:
    """Every Vietnamese vowel with every tone, lower and upper case, composed (NFC), and đ Đ."""
    letters = [
        unicodedata.normalize("NFC", vowel + tone)
        for vowel in VIETNAMESE_VOWELS
        for tone in VIETNAMESE_TONES
    ]
    lower = "".join(letters) + "đ"
    return f"{lower} {lower.upper()}"


def uncovered_character() -> str:
    """A character no font on this machine has a glyph for, checked with fontconfig."""
    for char in UNCOVERED_CANDIDATES:
        if not fonts_covering(char):
            return char
    pytest.fail(
        f"every candidate has a font here: {[f'U+{ord(c):04X}' for c in UNCOVERED_CANDIDATES]}"
    )


def sample_page(lang: str, *texts: str) -> str:
    """A page in ``lang`` with the screens' font rules, each text a paragraph."""
    fonts = (SHARED_STATIC_DIR / "fonts.css").read_text(encoding="utf-8")
    paragraphs = "".join(f"<p>{html.escape(text)}</p>" for text in texts[1:])
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<style>{fonts}</style></head><body><h1>{html.escape(texts[0])}</h1>"
        f"{paragraphs}<p>{SUITS}</p></body></html>"
    )


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def test_a_character_no_font_covers_fails_with_its_code_point(page: Page) -> None:
    char = uncovered_character()
    await page.set_content(sample_page("en", f"Banker {char} wins"))
    report = await glyph_report(page)
    assert [(tofu.char, tofu.element) for tofu in report.tofu] == [(char, "html > body > h1")]
    with pytest.raises(AssertionError, match=f"U\\+{ord(char):04X} in html > body > h1"):
        await assert_no_tofu(page, "negative control")


async def test_a_font_that_draws_only_boxes_is_named(page: Page) -> None:
    char = uncovered_character()
    await page.set_content(f'<!doctype html><html lang="en"><body><p id="only">{char}</p>')
    report = await glyph_report(page)
    assert [tofu.element for tofu in report.tofu] == ["html > body > p#only"]
    assert any("maps none of its characters: boxes" in problem for problem in report.problems)


async def test_boxes_in_pseudo_content_and_upper_case_are_caught(page: Page) -> None:
    char = uncovered_character()
    await page.set_content(
        "<!doctype html><html lang='vi'><head><style>"
        f'.mark::before {{ content: "\\{ord(char):x} "; }} .shout {{ text-transform: uppercase; }}'
        "</style></head><body><span class='mark'>Hòa</span><p class='shout'>thắng</p></body>"
    )
    report = await glyph_report(page)
    assert [(tofu.char, tofu.element) for tofu in report.tofu] == [
        (char, "html > body > span.mark::before")
    ]
    assert any(text.text == "THẮNG" for text in report.texts)


async def test_hidden_text_is_not_checked_and_markers_are(page: Page) -> None:
    char = uncovered_character()
    await page.set_content(
        f"<!doctype html><html lang='en'><body><p>Player</p><p hidden>{char}</p>"
        f"<details><summary>Recall</summary>{char}</details><ol><li>Tie</li></ol>"
        "<input placeholder='Staff id'></body>"
    )
    report = await assert_no_tofu(page, "hidden text")
    drawn = {text.text.strip() for text in report.texts}
    assert {"Player", "Recall", "Tie", "1.", "Staff id"} <= drawn
    assert char not in "".join(drawn)


@pytest.mark.parametrize("lang", [language.tag for language in LANGUAGES])
async def test_every_text_of_every_language_is_drawn_without_boxes(page: Page, lang: str) -> None:
    """The game's terms, every text of every screen's catalogue, and Vietnamese's letters."""
    catalogues = Catalogues.packaged()
    texts = [SAMPLES[lang]]
    for screen in SCREENS:
        texts += catalogues.messages(lang, screen).values()
    if lang == "vi":
        texts.append(vietnamese_letters())
    await page.set_content(sample_page(lang, *texts))
    report = await assert_drawn_in(page, lang, lang)
    drawn = "".join(rendered.text for rendered in report.texts)
    assert set("".join(texts)) <= set(drawn)


async def test_a_han_character_in_the_wrong_regional_face_is_caught(page: Page) -> None:
    """Simplified Chinese text without its language tag takes another face: the check says so."""
    await page.set_content(sample_page("zh-Hant", SAMPLES["zh-Hans"]))
    report = await assert_no_tofu(page, "zh-Hans text in a zh-Hant page")
    assert any("not Noto Sans CJK SC" in line for line in wrong_faces(report, "zh-Hans"))


def test_text_transform_is_applied_as_drawn() -> None:
    assert transformed("thắng", "uppercase") == "THẮNG"
    assert transformed("BANKER", "lowercase") == "banker"
    assert transformed("ab", "capitalize") == "abAB"
    assert transformed("Ab", "none") == "Ab"


def test_a_font_not_installed_is_a_problem_not_a_pass() -> None:
    rendered = RenderedText("p", "Banker", (UsedFont("Webby Sans", "WebbySans-Regular", 6),))
    report = check_rendered([rendered], "Banker")
    assert report.problems == [
        "p 'Banker' is drawn with Webby Sans (WebbySans-Regular), not an installed font"
    ]
    assert [tofu.char for tofu in report.tofu] == list("Banker")


def test_text_shown_but_never_reported_is_a_problem() -> None:
    rendered = RenderedText("p", "Tie", (UsedFont("DejaVu Sans", "DejaVuSans", 3),))
    report = check_rendered([rendered], "Tie 8:1")
    assert report.tofu == []
    listed = "U+0038 8 (DIGIT EIGHT), U+003A : (COLON), U+0031 1 (DIGIT ONE)"
    assert report.problems == [f"shown but not in any text Chromium reported fonts for: {listed}"]


@pytest.mark.parametrize(("outer", "inner"), [("zh-Hans", "ko"), ("en", "zh-Hant"), ("ko", "th")])
async def test_a_passage_in_another_language_takes_its_own_face(
    page: Page, outer: str, inner: str
) -> None:
    """A language's name in itself, say, inside a page in another language."""
    await page.set_content(
        sample_page(outer, SAMPLES[outer]).replace(
            "</body>", f'<p lang="{inner}" id="inner">{html.escape(SAMPLES[inner])}</p></body>'
        )
    )
    report = await assert_no_tofu(page, f"{inner} in {outer}")
    inner_only = GlyphReport(texts=[t for t in report.texts if t.element.endswith("#inner")])
    assert inner_only.texts
    assert wrong_faces(inner_only, inner) == []

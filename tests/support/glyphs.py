# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""No visible character on a page falls back to a missing-glyph box ("tofu").

Chromium is asked, over the DevTools protocol, which fonts it drew each rendered text with
(``CSS.getPlatformFontsForNode``: every text node and every ``::before``/``::after`` with
content). Each font is found among the machine's fonts by its PostScript name (fontconfig's
``fc-list``) and its character map read with fontTools. A character none of its fonts maps
is drawn as the font's missing glyph: a box. A font Chromium reports glyphs for that maps none
of the text's characters drew only boxes. Characters of the page's ``innerText`` the walk did
not reach (a value, a placeholder) are reported too, so nothing visible goes unchecked.
"""

from __future__ import annotations

import functools
import subprocess
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
from fontTools.ttLib import TTFont
from playwright.async_api import CDPSession, Error, Page

#: Characters that need no glyph: spaces, controls and format characters (joiners, bidi marks,
#: the soft hyphen), and variation selectors, which select a glyph and draw none.
_NO_GLYPH_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})
_DOM_CHANGED = "Could not find node"
#: The face each language's own script is drawn with (``screens/static/fonts.css``): Chinese in
#: its regional shapes, Korean's Hangul and Hanja, Thai, and the Latin letters of English and
#: Vietnamese. The scripts are told apart by the characters' Unicode names.
REGIONAL_FACES: Final[Mapping[str, Mapping[str, str]]] = {
    "en": {"LATIN": "DejaVu Sans"},
    "vi": {"LATIN": "DejaVu Sans"},
    "zh-Hans": {"CJK UNIFIED IDEOGRAPH": "Noto Sans CJK SC"},
    "zh-Hant": {"CJK UNIFIED IDEOGRAPH": "Noto Sans CJK TC"},
    "ko": {"HANGUL": "Noto Sans CJK KR", "CJK UNIFIED IDEOGRAPH": "Noto Sans CJK KR"},
    "th": {"THAI": "Waree"},
}


def needs_glyph(char: str) -> bool:
    """Whether ``char`` is drawn with a glyph of its own (spaces and format characters are not)."""
    if unicodedata.category(char) in _NO_GLYPH_CATEGORIES:
        return False
    code = ord(char)
    return not (0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF)


def code_point(char: str) -> str:
    """``U+4E2D 中`` (the character itself only where it is printable)."""
    name = unicodedata.name(char, "")
    shown = char if unicodedata.category(char)[0] in "LNPS" else ""
    return f"U+{ord(char):04X} {shown}".rstrip() + (f" ({name})" if name else "")


@dataclass(frozen=True)
class InstalledFont:
    """One face fontconfig knows: its file, its index in a collection and its names."""

    file: Path
    index: int
    postscript_name: str
    families: tuple[str, ...]


@functools.cache
def installed_fonts() -> tuple[InstalledFont, ...]:
    """Every face fontconfig lists on this machine (the fonts Chromium can draw with)."""
    listing = subprocess.run(
        ["fc-list", "--format", "%{file}\t%{index}\t%{postscriptname}\t%{family}\n"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    fonts = []
    for line in listing.splitlines():
        file, index, postscript, families = line.split("\t")
        fonts.append(InstalledFont(Path(file), int(index), postscript, tuple(families.split(","))))
    return tuple(fonts)


@functools.cache
def character_map(file: Path, index: int) -> frozenset[int]:
    """The code points one face of a font file has glyphs for."""
    with TTFont(file, fontNumber=index, lazy=True) as font:
        return frozenset(font.getBestCmap() or {})


def fonts_covering(char: str) -> list[InstalledFont]:
    """The installed faces that have a glyph for ``char`` (fontconfig's own answer)."""
    listing = subprocess.run(
        ["fc-list", "--format", "%{file}\t%{index}\n", f":charset={ord(char):x}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {tuple(line.split("\t")) for line in listing.splitlines()}
    return [font for font in installed_fonts() if (str(font.file), str(font.index)) in found]


@dataclass(frozen=True)
class UsedFont:
    """A font Chromium reports for a text: its family, face and how many glyphs it drew."""

    family: str
    postscript_name: str
    glyphs: int

    def faces(self) -> list[InstalledFont]:
        """The installed faces this is: the one with its PostScript name, else its family's."""
        fonts = installed_fonts()
        named = [font for font in fonts if font.postscript_name == self.postscript_name]
        if named or self.postscript_name:
            return named
        return [font for font in fonts if self.family in font.families]


@dataclass(frozen=True)
class RenderedText:
    """A text Chromium drew (as drawn: after ``text-transform``), where and with which fonts."""

    element: str
    text: str
    fonts: tuple[UsedFont, ...]

    def characters(self) -> list[str]:
        """Its distinct characters that need a glyph, in order of appearance."""
        return list(dict.fromkeys(char for char in self.text if needs_glyph(char)))


@dataclass(frozen=True)
class Tofu:
    """A character drawn as a missing-glyph box."""

    element: str
    text: str
    char: str
    fonts: tuple[str, ...]

    def __str__(self) -> str:
        fonts = ", ".join(self.fonts) or "no font"
        return f"{code_point(self.char)} in {self.element} {self.text!r}, drawn with {fonts}"


@dataclass
class GlyphReport:
    """What a page drew with which fonts, and every character that came out as a box."""

    texts: list[RenderedText] = field(default_factory=list)
    tofu: list[Tofu] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        return [str(tofu) for tofu in self.tofu] + self.problems

    def families_drawing(self, wanted: Callable[[str], bool]) -> dict[str, set[str]]:
        """For each character ``wanted`` picks, the families of the faces that drew it."""
        drawn: dict[str, set[str]] = {}
        for rendered in self.texts:
            for char in filter(wanted, rendered.characters()):
                for used in rendered.fonts:
                    if any(ord(char) in _cmap(face) for face in used.faces()):
                        drawn.setdefault(char, set()).add(used.family)
        return drawn


def script_of(char: str) -> str:
    """The start of the character's Unicode name that says its script (``LATIN``, ``THAI``)."""
    name = unicodedata.name(char, "")
    for script in ("CJK UNIFIED IDEOGRAPH", "HANGUL", "THAI", "LATIN"):
        if name.startswith(script):
            return script
    return ""


def wrong_faces(report: GlyphReport, tag: str) -> list[str]:
    """Each character of the language's own script drawn with another face than its rule's."""
    faces = REGIONAL_FACES[tag]
    drawn = report.families_drawing(lambda char: script_of(char) in faces)
    return [
        f"{code_point(char)} is drawn with {', '.join(sorted(families))},"
        f" not {faces[script_of(char)]}"
        for char, families in drawn.items()
        if families != {faces[script_of(char)]}
    ]


def _cmap(face: InstalledFont) -> frozenset[int]:
    return character_map(face.file, face.index)


def check_rendered(texts: list[RenderedText], visible_text: str) -> GlyphReport:
    """The verdict on what Chromium reported: tofu, boxes-only fonts, unread fonts, unchecked text.

    Pure but for reading the fonts' files: each character must be in the character map of
    one of the fonts Chromium reports for its text.
    """
    report = GlyphReport(texts=texts)
    checked: set[str] = set()
    for rendered in texts:
        chars = rendered.characters()
        checked.update(chars)
        cmaps: list[frozenset[int]] = []
        for used in rendered.fonts:
            faces = used.faces()
            if not faces:
                report.problems.append(
                    f"{rendered.element} {rendered.text!r} is drawn with {used.family}"
                    f" ({used.postscript_name or 'no PostScript name'}), not an installed font"
                )
                continue
            cmap = frozenset.intersection(*(_cmap(face) for face in faces))
            cmaps.append(cmap)
            covered = [char for char in rendered.text if ord(char) in cmap]
            if used.glyphs and not covered:
                report.problems.append(
                    f"{used.family} draws {used.glyphs} glyphs of {rendered.element}"
                    f" {rendered.text!r} but maps none of its characters: boxes"
                )
        families = tuple(used.family for used in rendered.fonts)
        report.tofu += [
            Tofu(rendered.element, rendered.text, char, families)
            for char in chars
            if not any(ord(char) in cmap for cmap in cmaps)
        ]
    unchecked = [c for c in dict.fromkeys(visible_text) if needs_glyph(c) and c not in checked]
    if unchecked:
        report.problems.append(
            "shown but not in any text Chromium reported fonts for: "
            + ", ".join(code_point(char) for char in unchecked)
        )
    return report


def transformed(text: str, transform: str) -> str:
    """``text`` as ``text-transform`` draws it; ``capitalize`` keeps both cases (both may show)."""
    match transform:
        case "uppercase":
            return text.upper()
        case "lowercase":
            return text.lower()
        case "capitalize":
            return text + text.upper()
        case _:
            return text


@dataclass(frozen=True)
class _Node:
    """A node of ``DOM.getDocument``'s tree, with its parents.

    ``in_browser_shadow``: the browser's own shadow tree holds it (an input's placeholder).
    """

    node: Mapping[str, Any]
    parents: list[Mapping[str, Any]]
    in_browser_shadow: bool


def _nodes(root: Mapping[str, Any]) -> Iterator[_Node]:
    """Every node below ``root`` (shadow roots, frames and pseudo-elements too), in order."""
    stack = [_Node(root, [], in_browser_shadow=False)]
    while stack:
        current = stack.pop()
        yield current
        node = current.node
        below = [*node.get("children", ()), *node.get("shadowRoots", ())]
        below += node.get("pseudoElements", ())
        if "contentDocument" in node:
            below.append(node["contentDocument"])
        stack += [
            _Node(
                child,
                [*current.parents, node],
                current.in_browser_shadow or child.get("shadowRootType") == "user-agent",
            )
            for child in reversed(below)
        ]


def _describe(node: Mapping[str, Any], parents: list[Mapping[str, Any]]) -> str:
    """``section#roads > figcaption.title`` for a text's element (its nearest parents)."""

    def name(element: Mapping[str, Any]) -> str:
        attributes = element.get("attributes", [])
        pairs = dict(zip(attributes[::2], attributes[1::2], strict=True))
        label = str(element.get("localName") or element.get("nodeName", "?")).lower()
        if pairs.get("id"):
            return f"{label}#{pairs['id']}"
        classes = "".join("." + c for c in pairs.get("class", "").split())
        return label + classes

    elements = [n for n in parents if n.get("nodeType") == 1]
    path = " > ".join(name(element) for element in elements[-3:])
    return path + "::" + node["pseudoType"] if node.get("pseudoType") else path


async def _computed(cdp: CDPSession, node_id: int) -> dict[str, str]:
    style = await cdp.send("CSS.getComputedStyleForNode", {"nodeId": node_id})
    return {entry["name"]: entry["value"] for entry in style["computedStyle"]}


async def _laid_out_text(cdp: CDPSession) -> dict[int, str]:
    """The text of every node Chromium laid out, as drawn, by backend node id.

    The layout's text is the text on the screen: ``text-transform`` applied, the content of
    ``::before``/``::after`` and the list and ``<details>`` markers included.
    """
    snapshot = await cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    strings = snapshot["strings"]
    texts: dict[int, str] = {}
    for document in snapshot["documents"]:
        backend_ids = document["nodes"]["backendNodeId"]
        layout = document["layout"]
        for node_index, text_index in zip(layout["nodeIndex"], layout["text"], strict=True):
            if text_index >= 0:
                backend_id = backend_ids[node_index]
                texts[backend_id] = texts.get(backend_id, "") + strings[text_index]
    return texts


class _PageChangedError(Exception):
    """The page changed between two looks at it: the walk starts again."""


async def _rendered_texts(cdp: CDPSession) -> list[RenderedText]:
    """Every text Chromium drew, as drawn, with the fonts it drew it with."""
    laid_out = await _laid_out_text(cdp)
    document = await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    texts: list[RenderedText] = []
    for found in _nodes(document["root"]):
        node = found.node
        pseudo = bool(node.get("pseudoType"))
        if node.get("nodeType") != 3 and not pseudo:
            continue
        try:
            answer = await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
        except Error as error:
            if _DOM_CHANGED in str(error):
                raise _PageChangedError from error
            raise
        fonts = tuple(
            UsedFont(font["familyName"], font.get("postScriptName", ""), font["glyphCount"])
            for font in answer["fonts"]
        )
        if not fonts:  # not laid out: display: none, a closed <details>, a <style>
            continue
        text = laid_out.get(node["backendNodeId"])
        if text is None and found.in_browser_shadow and not pseudo:
            style = await _computed(cdp, found.parents[-1]["nodeId"])
            text = transformed(node.get("nodeValue", ""), style.get("text-transform", ""))
        if text is None:  # drawn now, but not when the layout was read
            raise _PageChangedError
        texts.append(RenderedText(_describe(node, found.parents), text, fonts))
    return texts


async def glyph_report(page: Page, attempts: int = 3) -> GlyphReport:
    """What ``page`` draws now, and with which fonts; every character that came out as a box.

    A live page may replace a text while it is being walked; the walk then starts again, up
    to ``attempts`` times.
    """
    cdp = await page.context.new_cdp_session(page)
    try:
        await cdp.send("DOM.enable")
        await cdp.send("CSS.enable")
        for attempt in range(1, attempts + 1):
            try:
                texts = await _rendered_texts(cdp)
            except _PageChangedError:
                if attempt == attempts:
                    raise AssertionError(
                        f"the page changed during each of {attempts} walks: no stable text"
                    ) from None
                continue
            visible = await page.evaluate("() => document.body.innerText")
            return check_rendered(texts, visible)
        raise AssertionError("unreachable: the last attempt returns or raises")
    finally:
        await cdp.detach()


async def assert_no_tofu(page: Page, where: str) -> GlyphReport:
    """Fail with every offending character (code point, element, fonts) if any shows as a box."""
    report = await glyph_report(page)
    failures = report.failures()
    assert report.texts, f"{where}: the page drew no text at all"
    assert not failures, f"{where}: missing glyphs:\n  " + "\n  ".join(failures)
    return report


async def assert_drawn_in(page: Page, tag: str, where: str) -> GlyphReport:
    """The page is in language ``tag``, shows its script, with no box and in the right faces.

    The page's ``<html lang>`` is ``tag``; some letters of the language's own (beyond ASCII but
    for English) are on the screen, so a page left in English fails; each letter of the
    language's script is drawn with its rule's face.
    """
    shown = await page.evaluate("() => document.documentElement.lang")
    assert shown == tag, f"{where}: the page's <html lang> is {shown!r}, not {tag!r}"
    report = await assert_no_tofu(page, where)
    own = [
        char
        for text in report.texts
        for char in text.characters()
        if script_of(char) in REGIONAL_FACES[tag] and (tag == "en" or not char.isascii())
    ]
    assert own, f"{where}: nothing is written in {tag}'s own letters"
    wrong = wrong_faces(report, tag)
    assert not wrong, f"{where}: wrong faces:\n  " + "\n  ".join(wrong)
    return report


#: The screen that checks each language in the default suite (every script on one of the two);
#: the slow suite checks every language on both.
DEFAULT_SCREEN: Final = {
    "en": "display", "zh-Hant": "display", "th": "display",
    "zh-Hans": "board", "vi": "board", "ko": "board",
}  # fmt: skip


def on_one_screen(tag: str, screen: str) -> Any:
    """``tag`` as a test parameter of ``screen``'s tests: ``slow`` unless it is its screen."""
    if DEFAULT_SCREEN[tag] == screen:
        return pytest.param(tag, id=tag)
    return pytest.param(tag, id=tag, marks=pytest.mark.slow)

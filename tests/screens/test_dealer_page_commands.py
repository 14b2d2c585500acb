# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer page's buttons and words for commands agree with the table of commands.

The page is static markup (``screens/dealer/static/index.html``) and its script names each
command's text with a literal catalogue key (``display.js``, so that the catalogue check finds
every key): both name commands again. These checks hold them to the table
(``contract/commands/table.py``): a button for every command the display offers, the
supervisor's mark exactly on the supervisor's commands, words for every command the display
takes, and nothing more.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from table_controller.contract.commands import COMMAND_TABLE, Giver

STATIC = Path(__file__).resolve().parents[2] / "table_controller" / "screens" / "dealer" / "static"
#: Commands the page takes: every command but those given over MQTT only.
ON_THE_DISPLAY = {spec.name for spec in COMMAND_TABLE if spec.giver.on_the_display}
#: The supervisor's commands, whose buttons open the supervisor's panel.
SUPERVISORS = {spec.name for spec in COMMAND_TABLE if spec.giver is Giver.SUPERVISOR}
#: The commands with a button shown while the table takes them (``button`` or ``staff_button``).
OFFERED = {spec.name for spec in COMMAND_TABLE if spec.button is not None or spec.staff_button}


class _Buttons(HTMLParser):
    """Each ``button[data-command]``: its command, its supervisor's mark, shown always or not."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: list[tuple[str, bool, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        command = found.get("data-command")
        if tag == "button" and command:
            self.buttons.append((command, "data-supervisor" in found, "data-always" in found))


def page_buttons() -> list[tuple[str, bool, bool]]:
    parser = _Buttons()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    return parser.buttons


def script() -> str:
    return (STATIC / "display.js").read_text(encoding="utf-8")


def scripted_commands() -> set[str]:
    """The commands whose buttons the script makes (one per open alarm, say)."""
    return set(re.findall(r'dataset\.command = "(\w+)"', script()))


def test_every_offered_command_has_a_button_and_every_button_a_command() -> None:
    static = {command for command, _, always in page_buttons() if not always}
    assert static | scripted_commands() == OFFERED


def test_the_supervisors_mark_is_on_exactly_the_supervisors_commands() -> None:
    for command, supervisor, _ in page_buttons():
        assert supervisor == (command in SUPERVISORS), command
    if scripted_commands() & SUPERVISORS:
        assert 'dataset.supervisor = ""' in script()


def test_the_buttons_shown_always_are_the_commands_answered_in_any_state() -> None:
    always = {command for command, _, always in page_buttons() if always}
    assert always == ON_THE_DISPLAY - OFFERED
    assert always  # recall, at least


def test_the_script_has_words_for_every_command_the_display_takes() -> None:
    block = re.search(r"const COMMANDS = \{(.*?)\n  \};", script(), re.DOTALL)
    assert block is not None, "display.js has no COMMANDS map"
    named = set(re.findall(r"^\s+(\w+): \(\) => I18n\.t\(", block[1], re.MULTILINE))
    assert named == ON_THE_DISPLAY

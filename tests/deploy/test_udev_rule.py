# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The udev rule parses, and names the shoe /dev/shoe with ModemManager kept off it.

``udevadm verify`` (systemd 254 and later) checks it where it exists. Debian bookworm's udev
(252) has no ``verify``, so the rule is also checked here against udev's grammar (udev(7)):
comma-separated ``KEY[{attribute}]OPERATOR"value"`` pairs, each key with the operators it
takes, and every GOTO with its LABEL.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.conftest import UDEV_RULE

MATCH = frozenset({"==", "!="})
ASSIGN = frozenset({"=", "+=", "-=", ":="})
#: key -> (operators it takes, whether it needs {attribute}, whether it may have one).
GRAMMAR: dict[str, tuple[frozenset[str], bool, bool]] = {
    "ACTION": (MATCH, False, False),
    "DEVPATH": (MATCH, False, False),
    "KERNEL": (MATCH, False, False),
    "KERNELS": (MATCH, False, False),
    "SUBSYSTEM": (MATCH, False, False),
    "SUBSYSTEMS": (MATCH, False, False),
    "DRIVER": (MATCH, False, False),
    "DRIVERS": (MATCH, False, False),
    "ATTRS": (MATCH, True, True),
    "CONST": (MATCH, True, True),
    "TAGS": (MATCH, False, False),
    "TEST": (MATCH, False, True),
    "PROGRAM": (MATCH, False, False),
    "RESULT": (MATCH, False, False),
    "ATTR": (MATCH | ASSIGN, True, True),
    "SYSCTL": (MATCH | ASSIGN, True, True),
    "ENV": (MATCH | ASSIGN, True, True),
    "TAG": (MATCH | ASSIGN, False, False),
    "NAME": (MATCH | ASSIGN, False, False),
    "SYMLINK": (MATCH | ASSIGN, False, False),
    "OWNER": (ASSIGN, False, False),
    "GROUP": (ASSIGN, False, False),
    "MODE": (ASSIGN, False, False),
    "SECLABEL": (ASSIGN, True, True),
    "RUN": (ASSIGN, False, True),
    "IMPORT": (ASSIGN, True, True),
    "OPTIONS": (ASSIGN, False, False),
    "LABEL": (frozenset({"="}), False, False),
    "GOTO": (frozenset({"="}), False, False),
}
PAIR = re.compile(
    r'\s*(?P<key>[A-Z]+)(?:\{(?P<attr>[^}]*)\})?\s*(?P<op>==|!=|\+=|-=|:=|=)\s*"(?P<value>[^"]*)"\s*'
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pair:
    key: str
    attr: str | None
    op: str
    value: str


def parse_rules(text: str) -> list[list[Pair]]:
    """Each rule's pairs; raises ``ValueError`` naming the line that does not parse."""
    rules = []
    for number, line in enumerate(text.replace("\\\n", "").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pairs, position = [], 0
        while position < len(line):
            match = PAIR.match(line, position)
            if match is None:
                raise ValueError(f"line {number}: cannot parse {line[position:]!r}")
            pairs.append(
                Pair(key=match["key"], attr=match["attr"], op=match["op"], value=match["value"])
            )
            position = match.end()
            if position < len(line):
                if line[position] != ",":
                    raise ValueError(f"line {number}: a ',' must separate the pairs")
                position += 1
        for pair in pairs:
            check_pair(number, pair)
        rules.append(pairs)
    return rules


def check_pair(number: int, pair: Pair) -> None:
    if pair.key not in GRAMMAR:
        raise ValueError(f"line {number}: unknown key {pair.key}")
    operators, needs_attr, may_attr = GRAMMAR[pair.key]
    if pair.op not in operators:
        raise ValueError(f"line {number}: {pair.key} does not take {pair.op}")
    if needs_attr and not pair.attr:
        raise ValueError(f"line {number}: {pair.key} needs {{attribute}}")
    if pair.attr is not None and not may_attr:
        raise ValueError(f"line {number}: {pair.key} takes no {{attribute}}")
    if pair.key == "MODE" and not re.fullmatch(r"0?[0-7]{3}", pair.value):
        raise ValueError(f"line {number}: MODE {pair.value!r} is not octal")


def check_labels(rules: list[list[Pair]]) -> None:
    labels = {pair.value for rule in rules for pair in rule if pair.key == "LABEL"}
    for rule in rules:
        for pair in rule:
            if pair.key == "GOTO" and pair.value not in labels:
                raise ValueError(f"GOTO {pair.value!r} has no LABEL")


def test_the_rule_parses() -> None:
    rules = parse_rules(UDEV_RULE.read_text(encoding="utf-8"))
    check_labels(rules)
    assert len(rules) == 4


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('SUBSYSTEM="tty", SYMLINK+="shoe"', "SUBSYSTEM does not take ="),
        ('ATTRS=="0403"', "ATTRS needs"),
        ('SUBSYSTEM=="tty" SYMLINK+="shoe"', "a ',' must separate"),
        ("SYMLINK+=shoe", "cannot parse"),
        ('DEVICE=="x"', "unknown key DEVICE"),
        ('MODE="rw"', "not octal"),
        ('GROUP{x}="dialout"', "takes no"),
    ],
)
def test_the_checker_refuses_what_udev_refuses(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_rules(line)


def test_a_goto_without_its_label_is_refused() -> None:
    with pytest.raises(ValueError, match="has no LABEL"):
        check_labels(parse_rules('ACTION=="remove", GOTO="nowhere"'))


def test_the_shoe_gets_a_stable_name_its_group_and_no_modemmanager() -> None:
    rules = parse_rules(UDEV_RULE.read_text(encoding="utf-8"))
    [naming] = [rule for rule in rules if any(pair.key == "SYMLINK" for pair in rule)]
    assigned = {(pair.key, pair.attr): (pair.op, pair.value) for pair in naming}
    assert assigned[("SYMLINK", None)] == ("+=", "shoe")
    assert assigned[("ENV", "ID_MM_DEVICE_IGNORE")] == ("=", "1")
    assert assigned[("GROUP", None)] == ("=", "dialout")
    assert assigned[("MODE", None)] == ("=", "0660")
    # Tied to one reader: vendor, product and serial number of the USB device.
    assert {attr for key, attr in assigned if key == "ATTRS"} == {"idVendor", "idProduct", "serial"}
    # Only tty devices reach the naming rule, and never on removal.
    skips = [rule for rule in rules if any(pair.key == "GOTO" for pair in rule)]
    assert {(rule[0].key, rule[0].op, rule[0].value) for rule in skips} == {
        ("ACTION", "==", "remove"),
        ("SUBSYSTEM", "!=", "tty"),
    }


def test_udevadm_verify_accepts_the_rule(tmp_path: Path) -> None:
    udevadm = shutil.which("udevadm")
    if udevadm is None:
        pytest.skip("udevadm is not installed (the grammar check above still ran)")
    probe = subprocess.run([udevadm, "verify", "--help"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("this udevadm has no 'verify' (systemd < 254); the grammar check ran")
    rule = tmp_path / UDEV_RULE.name
    rule.write_bytes(UDEV_RULE.read_bytes())
    done = subprocess.run(
        [udevadm, "verify", str(rule)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr

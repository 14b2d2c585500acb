# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/first-round.md, run as written against a real mosquitto.

The page's code blocks are its script (its last section says how): ``sh`` blocks are commands,
run in order in an empty directory, ``{background=NAME}`` ones left running as a terminal;
``text`` blocks marked ``{output=NAME}`` are lines that must appear in that terminal's output
in order (``…`` matching any text); ``{interrupt=NAME}`` is Ctrl-C there, after which the
program must exit with status 0. The port ``1883`` is replaced with a free one everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest

from tests.docs.markdown import CodeBlock, code_blocks
from tests.mosquitto import mosquitto_missing
from tests.support.installed import require
from tests.support.ports import free_port

pytestmark = pytest.mark.broker

DOC: Final = Path(__file__).resolve().parents[2] / "docs/first-round.md"
#: The port the page is written for; the test runs it on a free one.
DOCUMENTED_PORT: Final = "1883"
#: What ``…`` stands for in an expected line.
ELISION: Final = "…"
#: How long a terminal may take to print an expected line (a loaded CI machine included).
OUTPUT_TIMEOUT_S: Final = 30.0
COMMAND_TIMEOUT_S: Final = 30.0
_ATTRIBUTE: Final = re.compile(r"\{(?P<key>[a-z]+)=(?P<name>[a-z]+)\}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One block of the page: ``run``, ``background``, ``output`` or ``interrupt``."""

    kind: str
    terminal: str | None
    text: str
    line: int


def steps_of(text: str) -> list[Step]:
    """The page's script: its ``sh`` blocks and its marked ``text`` blocks, in order."""
    steps = []
    for block in code_blocks(text):
        attribute = _ATTRIBUTE.search(block.info)
        step = _step(block, None if attribute is None else (attribute["key"], attribute["name"]))
        if step is not None:
            steps.append(step)
    return steps


def _step(block: CodeBlock, attribute: tuple[str, str] | None) -> Step | None:
    if block.language == "sh":
        if attribute is None:
            return Step(kind="run", terminal=None, text=block.text, line=block.line)
        key, name = attribute
        assert key == "background", f"line {block.line}: unknown mark {key!r}"
        return Step(kind="background", terminal=name, text=block.text, line=block.line)
    if block.language == "text" and attribute is not None:
        key, name = attribute
        assert key in {"output", "interrupt"}, f"line {block.line}: unknown mark {key!r}"
        return Step(kind=key, terminal=name, text=block.text, line=block.line)
    return None


def line_pattern(expected: str) -> re.Pattern[str]:
    """An expected line as a pattern for a whole output line: ``…`` matches any text."""
    parts = [re.escape(part) for part in expected.strip().split(ELISION)]
    return re.compile("^" + ".*?".join(parts) + r"\s*$")


@dataclass
class Terminal:
    """A program left running, as in a terminal of its own, its output kept in a file."""

    name: str
    process: subprocess.Popen[bytes]
    output: Path
    #: Output lines already matched by an expected line.
    matched: int = 0
    seen: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return self.output.read_text(encoding="utf-8", errors="replace").splitlines()

    def expect(self, expected: str, line: int) -> None:
        """Wait until ``expected`` matches an output line after the last one matched."""
        pattern = line_pattern(expected)
        deadline = time.monotonic() + OUTPUT_TIMEOUT_S
        while True:
            lines = self.lines()
            for index in range(self.matched, len(lines)):
                if pattern.match(lines[index]):
                    self.matched = index + 1
                    return
            if time.monotonic() > deadline or self.process.poll() is not None:
                shown = "\n".join(lines[self.matched :][-40:])
                pytest.fail(
                    f"line {line} of first-round.md: the {self.name} terminal never printed\n"
                    f"  {expected}\nafter its line {self.matched}; it printed since:\n{shown}"
                )
            time.sleep(0.05)

    def interrupt(self) -> int:
        """Ctrl-C: SIGINT to the terminal's process group; the exit status."""
        os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=20)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _environment() -> dict[str, str]:
    """The reader's shell: this interpreter's ``table-controller`` first on ``PATH``."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("TABLE_CONTROLLER_")
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _needs_the_programs() -> None:
    missing = mosquitto_missing() or next(
        (
            f"{program} is not installed (apt-get install mosquitto-clients)"
            for program in ("mosquitto_sub", "mosquitto_pub")
            if shutil.which(program) is None
        ),
        None,
    )
    require(missing, in_ci="the broker tests must run in CI")


def test_the_page_is_a_script_of_every_kind_of_step() -> None:
    steps = steps_of(DOC.read_text(encoding="utf-8"))
    kinds = [step.kind for step in steps]
    assert {"run", "background", "output", "interrupt"} <= set(kinds)
    backgrounds = {step.terminal for step in steps if step.kind == "background"}
    assert backgrounds == {"broker", "table", "subscriber"}
    for step in steps:
        if step.kind in {"output", "interrupt"}:
            started = [s.terminal for s in steps[: steps.index(step)] if s.kind == "background"]
            assert step.terminal in started, f"line {step.line}: {step.terminal} is not started"
    sent = [re.findall(r'"command": "(\w+)"', step.text) for step in steps if step.kind == "run"]
    assert [name for names in sent for name in names] == [
        "new_shoe",
        "open_betting",
        "close_betting",
        "close_betting",
    ]


def test_line_patterns_match_what_varies_and_nothing_else() -> None:
    pattern = line_pattern('t {…"card":"…","position":1}')
    assert pattern.match('t {"seq":26,"card":"QH","position":1}')
    assert not pattern.match('t {"seq":26,"card":"QH","position":2}')
    assert not pattern.match('x t {"card":"QH","position":1}')


@pytest.mark.timeout(180)
def test_the_first_round_runs_as_the_page_says(tmp_path: Path) -> None:
    _needs_the_programs()
    port = str(free_port())
    text = DOC.read_text(encoding="utf-8").replace(DOCUMENTED_PORT, port)
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = _environment()
    terminals: dict[str, Terminal] = {}
    try:
        for step in steps_of(text):
            match step.kind:
                case "background":
                    assert step.terminal is not None
                    output = tmp_path / f"{step.terminal}.out"
                    with output.open("wb") as sink:
                        process = subprocess.Popen(
                            ["bash", "-c", f"exec {step.text.strip()}"],
                            cwd=workdir,
                            env=env,
                            stdin=subprocess.DEVNULL,
                            stdout=sink,
                            stderr=subprocess.STDOUT,
                            start_new_session=True,
                        )
                    terminals[step.terminal] = Terminal(step.terminal, process, output)
                case "run":
                    done = subprocess.run(
                        ["bash", "-e", "-c", step.text],
                        cwd=workdir,
                        env=env,
                        capture_output=True,
                        timeout=COMMAND_TIMEOUT_S,
                        check=False,
                    )
                    assert done.returncode == 0, f"line {step.line}: {done.stderr.decode()}"
                case "output":
                    assert step.terminal is not None
                    for expected in step.text.splitlines():
                        terminals[step.terminal].expect(expected, step.line)
                case "interrupt":
                    assert step.terminal is not None
                    status = terminals[step.terminal].interrupt()
                    assert status == 0, f"line {step.line}: {step.terminal} exited {status}"
    finally:
        for terminal in reversed(list(terminals.values())):
            terminal.close()
    assert (workdir / "table-T1.journal").exists()

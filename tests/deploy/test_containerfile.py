# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The Containerfile agrees with the repository: what it copies exists, what it runs parses.

No container engine runs in the test environment (an image build also needs the base image
from a registry), so these checks read the file: every ``COPY`` source is in the repository,
the extras it installs are the project's, the final stage runs as an unprivileged user, and
its command line is one the CLI accepts. With podman on the machine, ``podman build`` is the
complete check (docs/operations.md).
"""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

from table_controller.cli import build_parser
from tests.deploy.conftest import CONTAINERFILE, ROOT


def instructions() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` with continuation lines joined and comments dropped."""
    joined: list[str] = []
    pending = ""
    for raw in CONTAINERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    assert not pending, "a continuation line ends the file"
    result = []
    for line in joined:
        word, _, rest = line.partition(" ")
        result.append((word.upper(), rest.strip()))
    return result


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(n for n, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def test_every_copied_path_is_in_the_repository() -> None:
    for word, rest in instructions():
        if word == "COPY" and not rest.startswith("--from="):
            *sources, _ = shlex.split(rest)
            for source in sources:
                assert (ROOT / source).exists(), source


def test_the_extras_installed_are_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runs = " ".join(rest for word, rest in instructions() if word == "RUN")
    start = runs.index('".[') + 3
    extras = runs[start : runs.index("]", start)].split(",")
    assert set(extras) == {"serial", "mqtt", "web"}
    assert set(extras) <= set(project["optional-dependencies"])


def test_the_service_runs_unprivileged_with_its_journal_on_a_volume() -> None:
    stage = final_stage()
    users = [rest for word, rest in stage if word == "USER"]
    assert users == ["table-controller"]
    volumes = [json.loads(rest) for word, rest in stage if word == "VOLUME"]
    workdir = [rest for word, rest in stage if word == "WORKDIR"]
    assert volumes == [["/var/lib/table-controller"]]
    assert workdir == ["/var/lib/table-controller"]
    assert not [rest for word, rest in stage if word == "ADD"]  # COPY only: no URLs, no tars


def test_the_command_is_one_the_cli_accepts() -> None:
    stage = dict(final_stage())
    entrypoint = json.loads(stage["ENTRYPOINT"])
    command = json.loads(stage["CMD"])
    assert entrypoint == ["table-controller"]
    args = build_parser().parse_args(command)
    assert args.subcommand == "run"
    assert args.config == Path("/etc/table-controller/table.toml")
    copied = [rest for word, rest in final_stage() if word == "COPY"]
    assert "deploy/table.example.toml /etc/table-controller/table.toml" in copied


def test_the_display_listens_beyond_the_container_on_the_exposed_port() -> None:
    stage = final_stage()
    env = " ".join(rest for word, rest in stage if word == "ENV")
    exposed = [rest for word, rest in stage if word == "EXPOSE"]
    assert "TABLE_CONTROLLER_DISPLAY=0.0.0.0:8080" in env
    assert exposed == ["8080"]

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures of the MQTT contract tests: the official AsyncAPI 3.0 schema."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Installed by scripts/test.sh with npm (`@asyncapi/specs@6.11.1`), never committed.
ASYNCAPI_SPECS = ROOT / ".cache/asyncapi/node_modules/@asyncapi/specs"
ASYNCAPI_SPECS_VERSION = "6.11.1"


@pytest.fixture(scope="session")
def asyncapi_meta_schema() -> dict[str, Any]:
    """The official AsyncAPI 3.0.0 JSON Schema; skips locally if npm has not installed it."""
    package = ASYNCAPI_SPECS / "package.json"
    if not package.is_file():
        message = (
            f"{package} missing: npm install --no-save --prefix .cache/asyncapi "
            f"@asyncapi/specs@{ASYNCAPI_SPECS_VERSION} (scripts/test.sh does it)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    version = json.loads(package.read_text(encoding="utf-8"))["version"]
    assert version == ASYNCAPI_SPECS_VERSION, f"@asyncapi/specs {version} installed"
    schema: dict[str, Any] = json.loads(
        (ASYNCAPI_SPECS / "schemas/3.0.0-without-$id.json").read_text(encoding="utf-8")
    )
    return schema

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Giving the C heap's free pages back after the analyser's fold (in a fresh interpreter)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from table_controller.runtime.memory import release_free_memory

MEASURE = """
import json
from pathlib import Path
from table_controller.protection.advisor import warm_up
from table_controller.rules.variants import COMMISSION
from table_controller.runtime.memory import release_free_memory

def resident_kib():
    status = Path("/proc/self/status").read_text(encoding="ascii")
    return int(status.split("VmRSS:")[1].split()[0])

before = resident_kib()
warm_up(COMMISSION)
folded = resident_kib()
trimmed = release_free_memory()
print(json.dumps({"before": before, "folded": folded, "after": resident_kib(), "trimmed": trimmed}))
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_the_fold_leaves_little_resident_once_the_heap_is_trimmed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE], capture_output=True, text=True, check=True, timeout=60
    )
    kib = json.loads(done.stdout)
    assert kib["trimmed"]
    # The fold allocates and frees tens of MB of arrays; its own tables are about 2 MB.
    assert kib["after"] - kib["before"] < 12 * 1024, kib
    assert kib["after"] <= kib["folded"], kib


def test_trimming_is_harmless_to_repeat() -> None:
    first = release_free_memory()
    assert release_free_memory() == first

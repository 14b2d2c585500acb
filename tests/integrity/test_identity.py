# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The installed files against their RECORD, on file trees made in the test (no install)."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import subprocess
from pathlib import Path

from table_controller.integrity.identity import (
    EDITABLE_NOTE,
    InstallStatus,
    RecordedFile,
    check_install,
    identity_hash,
    package_files,
    record_hash,
    recorded_files,
)

FILES = {
    "table_controller/__init__.py": b"VERSION = 1\n",
    "table_controller/cli/run.py": b"def run(): ...\n",
    "drivers/shoe.py": b"# a driver\n",
    "simulators/virtual.py": "# é\n".encode(),
}


def make_install(root: Path) -> list[RecordedFile]:
    """The packages under ``root``, compiled bytecode beside them, and their RECORD rows."""
    recorded = []
    for path, data in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        recorded.append(RecordedFile(path, hashlib.sha256(data).hexdigest()))
    cache = root / "table_controller/__pycache__"
    cache.mkdir()
    (cache / "__init__.cpython-311.pyc").write_bytes(b"\x00compiled")
    script = root.parent / "bin/table-controller"
    script.parent.mkdir()
    script.write_bytes(b"#!python\n")
    script_hash = hashlib.sha256(b"#!python\n").hexdigest()
    recorded.append(RecordedFile("../bin/table-controller", script_hash))
    recorded.append(RecordedFile("table_controller-0.1.0.dist-info/RECORD", None))
    return recorded


def test_a_clean_install_is_verified_and_its_identity_is_what_sha256sum_gives(
    tmp_path: Path,
) -> None:
    root = tmp_path / "site"
    recorded = make_install(root)
    check = check_install(root, recorded, version="0.1.0")
    assert check.status is InstallStatus.VERIFIED
    assert (check.added, check.missing, check.changed) == ((), (), ())
    assert check.checked == 5
    assert check.files == 4
    # The documented recomputation, by the tools themselves.
    listing = subprocess.run(
        "find table_controller drivers simulators -type f ! -name '*.pyc'"
        " ! -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum",
        shell=True, cwd=root, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert check.sha256 == listing.split()[0]
    assert check.identity == {"version": "0.1.0", "sha256": check.sha256}


def test_an_added_a_missing_and_a_changed_file_are_each_named(tmp_path: Path) -> None:
    root = tmp_path / "site"
    recorded = make_install(root)
    before = check_install(root, recorded, version="0.1.0").sha256
    (root / "table_controller/backdoor.py").write_text("import os\n")
    (root / "drivers/shoe.py").unlink()
    (root / "table_controller/cli/run.py").write_text("def run(): return 'rigged'\n")
    (root / "table_controller/cli/__pycache__").mkdir()
    (root / "table_controller/cli/__pycache__/run.cpython-311.pyc").write_bytes(b"new")
    check = check_install(root, recorded, version="0.1.0")
    assert check.status is InstallStatus.MODIFIED
    assert check.added == ("table_controller/backdoor.py",)
    assert check.missing == ("drivers/shoe.py",)
    assert check.changed == ("table_controller/cli/run.py",)
    assert not check.clean
    assert check.sha256 != before
    assert check.as_json()["status"] == "modified"


def test_a_changed_recorded_bytecode_file_is_a_change_and_a_missing_one_is_not(
    tmp_path: Path,
) -> None:
    root = tmp_path / "site"
    recorded = make_install(root)
    compiled = "table_controller/__pycache__/__init__.cpython-311.pyc"
    recorded.append(RecordedFile(compiled, hashlib.sha256(b"\x00compiled").hexdigest()))
    assert check_install(root, recorded, version="1").status is InstallStatus.VERIFIED
    (root / compiled).write_bytes(b"\x00tampered")
    assert check_install(root, recorded, version="1").changed == (compiled,)
    (root / compiled).unlink()
    assert check_install(root, recorded, version="1").status is InstallStatus.VERIFIED


def test_an_editable_install_has_nothing_to_verify_against(tmp_path: Path) -> None:
    root = tmp_path / "src"
    make_install(root)
    recorded = [
        RecordedFile("__editable__.table_controller-0.1.0.pth", "ab" * 32),
        RecordedFile("table_controller-0.1.0.dist-info/METADATA", "cd" * 32),
    ]
    check = check_install(root, recorded, version="0.1.0")
    assert check.status is InstallStatus.EDITABLE
    assert check.clean
    assert check.notes == (EDITABLE_NOTE,)
    assert check.sha256 == check_install(root, [], version="0.1.0").sha256
    assert check.files == 4


def test_the_identity_hash_is_the_sha256sum_text_sorted_bytewise() -> None:
    hashes = {"b/x.py": "1" * 64, "a/Z.py": "2" * 64, "a/a.py": "3" * 64}
    text = "".join(f"{hashes[p]}  {p}\n" for p in ("a/Z.py", "a/a.py", "b/x.py"))
    assert identity_hash(hashes) == hashlib.sha256(text.encode()).hexdigest()


def test_package_files_leave_out_bytecode_and_other_directories(tmp_path: Path) -> None:
    make_install(tmp_path / "site")
    (tmp_path / "site/other").mkdir()
    (tmp_path / "site/other/x.py").write_text("")
    assert package_files(tmp_path / "site") == sorted(FILES)


def test_record_hashes_are_read_as_pip_writes_them() -> None:
    digest = hashlib.sha256(b"data").digest()
    text = "sha256=" + base64.urlsafe_b64encode(digest).decode().rstrip("=")
    assert record_hash(text) == digest.hex()
    assert record_hash("md5=abc") is None
    assert record_hash("sha256=") is None
    assert record_hash("sha256=!!!") is None
    assert record_hash("sha256=" + base64.urlsafe_b64encode(b"short").decode()) is None


def test_a_source_trees_egg_info_records_nothing_to_verify(tmp_path: Path) -> None:
    """``pip install -e`` leaves ``*.egg-info`` in the tree: sources listed, none hashed."""
    info = tmp_path / "table_controller.egg-info"
    info.mkdir()
    (info / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: table-controller\nVersion: 0.1\n")
    (info / "SOURCES.txt").write_text("table_controller/__init__.py\ntable_controller/run.py\n")
    egg_info = importlib.metadata.PathDistribution(info)
    assert egg_info.files  # what importlib.metadata offers for it: the sources, unhashed
    assert recorded_files(egg_info) == []

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The installed software's identity: its files checked against what the installer recorded.

Mostly pure functions over paths (:func:`check_install`); :func:`installed_identity` reads
``importlib.metadata`` for the running copy.

**The check.** An installer (pip) writes the distribution's ``RECORD``: every file it installed
with its SHA-256. Each recorded file with a hash is read again: a file that is gone is
*missing*, one whose hash differs *changed*. Every file under the package directories
(:data:`PACKAGES`) that ``RECORD`` does not list is *added*. Compiled bytecode is left out of
"added" (the interpreter writes it); a recorded ``.pyc`` is checked like any other file, but
one that is gone is no difference (the interpreter compiles it again from the checked source).

**The identity.** ``{"version": V, "sha256": H}``: ``V`` the distribution's version, ``H`` the
SHA-256, as lowercase hex, of the text that ``sha256sum`` prints for the files found on disk
under the package directories, bytecode (``__pycache__`` directories, ``*.pyc``) left out: one
line per file, ``<hex SHA-256 of the file's bytes>``, two spaces, the file's path relative to
the directory that holds the packages (``/`` between parts, e.g. ``table_controller/cli/run.py``),
a newline; the lines sorted by path, bytewise (UTF-8). From that directory::

    find table_controller drivers simulators -type f ! -name '*.pyc'
        ! -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum

(one command line).

**An editable install** (``pip install -e``, how the project is developed) records no package
file: there is nothing to verify against. The identity is then computed the same way over the
package sources the interpreter imports, and the outcome says so (neither a pass nor a mismatch).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import importlib.metadata
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final

#: The distribution whose files are checked.
DISTRIBUTION: Final = "table-controller"
#: The top-level package directories the distribution installs.
PACKAGES: Final = ("table_controller", "drivers", "simulators")
EDITABLE_NOTE: Final = "editable install: nothing recorded to verify against"
_CHUNK: Final = 1 << 16


class InstallStatus(enum.StrEnum):
    """The outcome of the check (the ``status`` of the journal's start row)."""

    VERIFIED = "verified"
    MODIFIED = "modified"
    EDITABLE = "editable"


@dataclass(frozen=True, slots=True)
class RecordedFile:
    """One ``RECORD`` row: a path relative to the install root and its hash (if recorded)."""

    path: str
    sha256: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallCheck:
    """What :func:`check_install` found."""

    version: str
    #: ``H`` of the module docstring.
    sha256: str
    status: InstallStatus
    #: Where the packages were found.
    root: Path
    added: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    #: Files of the identity (package files found on disk, bytecode left out).
    files: int = 0
    #: Recorded files whose hash was checked.
    checked: int = 0
    notes: tuple[str, ...] = field(default=())

    @property
    def identity(self) -> dict[str, str]:
        """``{"version", "sha256"}``: what the birth status and ``shoe_started`` carry."""
        return {"version": self.version, "sha256": self.sha256}

    @property
    def clean(self) -> bool:
        """No difference found (an editable install counts as clean: nothing to differ from)."""
        return self.status is not InstallStatus.MODIFIED

    def as_json(self) -> dict[str, object]:
        """The report as JSON data (``verify-install --json``)."""
        return {
            "software": self.identity,
            "status": self.status.value,
            "root": str(self.root),
            "files": self.files,
            "checked": self.checked,
            "added": list(self.added),
            "missing": list(self.missing),
            "changed": list(self.changed),
            "notes": list(self.notes),
        }


def file_sha256(path: Path) -> str:
    """The lowercase hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _is_bytecode(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return path.endswith(".pyc") or "__pycache__" in parts


def package_files(root: Path, packages: Iterable[str] = PACKAGES) -> list[str]:
    """Every file under the package directories of ``root``, bytecode left out, sorted.

    Paths are relative to ``root`` with ``/`` between parts; sorted bytewise (UTF-8).
    """
    found: list[str] = []
    for package in packages:
        top = root / package
        if not top.is_dir():
            continue
        for directory, subdirectories, names in os.walk(top):
            subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
            for name in names:
                relative = (Path(directory) / name).relative_to(root).as_posix()
                if not _is_bytecode(relative):
                    found.append(relative)
    return sorted(found, key=lambda text: text.encode())


def identity_hash(hashes: Mapping[str, str]) -> str:
    """``H``: SHA-256 of the ``sha256sum`` lines of ``{path: hex}``, sorted by path bytewise."""
    digest = hashlib.sha256()
    for path in sorted(hashes, key=lambda text: text.encode()):
        digest.update(f"{hashes[path]}  {path}\n".encode())
    return digest.hexdigest()


def record_hash(text: str) -> str | None:
    """A RECORD hash (``sha256=<urlsafe base64, unpadded>``) as lowercase hex; None otherwise."""
    algorithm, _, value = text.partition("=")
    if algorithm != "sha256" or not value:
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except ValueError:
        return None
    return raw.hex() if len(raw) == hashlib.sha256().digest_size else None


def is_editable(recorded: Iterable[RecordedFile], packages: Iterable[str] = PACKAGES) -> bool:
    """Whether ``RECORD`` lists no file of the packages (an editable install's)."""
    tops = set(packages)
    return not any(PurePosixPath(item.path).parts[0] in tops for item in recorded)


def check_install(
    root: Path,
    recorded: Iterable[RecordedFile],
    *,
    version: str,
    packages: Iterable[str] = PACKAGES,
) -> InstallCheck:
    """Check an install whose packages are under ``root`` against its ``RECORD`` rows.

    Recorded paths are relative to ``root`` (``../../../bin/x`` as pip writes a script's).
    """
    packages = tuple(packages)
    recorded = list(recorded)
    on_disk = package_files(root, packages)
    hashes = {path: file_sha256(root / path) for path in on_disk}
    identity = identity_hash(hashes)
    if is_editable(recorded, packages):
        return InstallCheck(
            version=version,
            sha256=identity,
            status=InstallStatus.EDITABLE,
            root=root,
            files=len(on_disk),
            notes=(EDITABLE_NOTE,),
        )
    listed = {PurePosixPath(os.path.normpath(item.path)).as_posix() for item in recorded}
    added = tuple(path for path in on_disk if path not in listed)
    missing: list[str] = []
    changed: list[str] = []
    checked = 0
    for item in recorded:
        if item.sha256 is None:
            continue  # RECORD itself, and what an installer writes after it (INSTALLER, ...)
        path = root / item.path
        if not path.is_file():
            if not _is_bytecode(item.path):
                missing.append(item.path)
            continue
        checked += 1
        found = hashes.get(PurePosixPath(os.path.normpath(item.path)).as_posix())
        if (found or file_sha256(path)) != item.sha256:
            changed.append(item.path)
    modified = bool(added or missing or changed)
    return InstallCheck(
        version=version,
        sha256=identity,
        status=InstallStatus.MODIFIED if modified else InstallStatus.VERIFIED,
        root=root,
        added=added,
        missing=tuple(missing),
        changed=tuple(changed),
        files=len(on_disk),
        checked=checked,
    )


def recorded_files(distribution: importlib.metadata.Distribution) -> list[RecordedFile]:
    """The distribution's ``RECORD`` rows (none when it has no ``RECORD``).

    A source tree's ``*.egg-info`` (left by ``pip install -e``, found first from that tree)
    lists its sources in ``SOURCES.txt`` with no hash, as they were at the install: no record.
    """
    if distribution.read_text("RECORD") is None:
        return []
    files = distribution.files or []
    return [
        RecordedFile(
            path=file.as_posix(),
            sha256=_hash_of(file),
        )
        for file in files
    ]


def _hash_of(file: importlib.metadata.PackagePath) -> str | None:
    hashed = file.hash
    return None if hashed is None else record_hash(f"{hashed.mode}={hashed.value}")


def running_root() -> Path:
    """The directory holding the ``table_controller`` package this interpreter imported."""
    import table_controller  # noqa: PLC0415 - the running copy, wherever it is

    return Path(table_controller.__file__).resolve().parent.parent


def installed_identity(name: str = DISTRIBUTION) -> InstallCheck:
    """Check the running copy of the distribution (``verify-install``, ``run`` at start).

    The check is of the install the interpreter imports from: when the packages imported are
    not those the found ``RECORD`` describes (a source tree on ``PYTHONPATH`` ahead of an
    install), it is computed over the imported sources, like an editable install's.
    """
    root = running_root()
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        from table_controller import __version__  # noqa: PLC0415

        return check_install(root, [], version=__version__)
    recorded = recorded_files(distribution)
    installed_root = Path(str(distribution.locate_file(""))).resolve()
    if installed_root != root:
        recorded = []  # not the copy running: nothing recorded for it
    return check_install(root, recorded, version=distribution.version)

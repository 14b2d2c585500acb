# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens' style sheets and scripts, served by name under ``/static/``.

Adapter (aiohttp). Each screen keeps its page and its own files in its sub-package's
``static/`` (``screens/dealer/static/``, ``screens/board/static/``); what every page loads (the
common style and script, the texts' loader, the font rules) is in ``screens/static/``. A server
serves the files of the screens it shows side by side under one ``/static/``, so a page names
``/static/screen.js`` whichever server serves it. The pages themselves are served at their own
addresses (``/``, ``/board``), never under ``/static/``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Final

from aiohttp import web

#: What every screen's page loads: ``screen.css``, ``screen.js``, ``i18n.js``, ``fonts.css``.
SHARED_STATIC_DIR: Final = Path(__file__).resolve().parents[1] / "static"
#: A page is served at its own address, not as an asset.
PAGE_SUFFIX: Final = ".html"


def asset_files(*directories: Path) -> dict[str, Path]:
    """The files of ``directories`` a page loads, by name; a name in two of them is an error."""
    files: dict[str, Path] = {}
    for directory in directories:
        for path in sorted(directory.iterdir()):
            if not path.is_file() or path.suffix == PAGE_SUFFIX:
                continue
            if path.name in files:
                raise ValueError(f"{path.name} is both {files[path.name]} and {path}")
            files[path.name] = path
    return files


def serve_assets(
    files: Mapping[str, Path],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """``GET /static/{name}``: one of ``files``; any other name is not found."""

    async def asset(request: web.Request) -> web.StreamResponse:
        path = files.get(request.match_info["name"])
        if path is None:
            raise web.HTTPNotFound
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    return asset

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the screens' web servers share: the site, its listener's defences, event streams.

Loads aiohttp: the service imports this face only with a screen configured.
"""

from table_controller.screens.web.assets import SHARED_STATIC_DIR, asset_files, serve_assets
from table_controller.screens.web.event_streams import HEARTBEAT_S, StreamHub, json_text
from table_controller.screens.web.listener import AcceptFailures
from table_controller.screens.web.policy import no_icon, security_headers
from table_controller.screens.web.site import SiteServer

__all__ = [
    "HEARTBEAT_S",
    "SHARED_STATIC_DIR",
    "AcceptFailures",
    "SiteServer",
    "StreamHub",
    "asset_files",
    "json_text",
    "no_icon",
    "security_headers",
    "serve_assets",
]

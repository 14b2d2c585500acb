# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What both screens' web servers share: the site, its listener's defences, event streams.

Loads aiohttp: the service imports this face only with a screen configured.
"""

from table_controller.screens.web.listener import AcceptFailures
from table_controller.screens.web.site import SiteServer

__all__ = [
    "AcceptFailures",
    "SiteServer",
]

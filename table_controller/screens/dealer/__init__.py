# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer's display: its web application, its view of the table and its commands.

Loads aiohttp: the service imports this face only with the display configured.
"""

from table_controller.screens.dealer.app import DisplayFeeds, DisplayServer

__all__ = [
    "DisplayFeeds",
    "DisplayServer",
]

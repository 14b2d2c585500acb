# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The players' board: its web application and its view of the table.

Loads aiohttp: the service imports this face only with the board configured.
"""

from table_controller.screens.board.app import BoardFeed, BoardServer

__all__ = [
    "BoardFeed",
    "BoardServer",
]

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The rules of the game: cards, the tableau, bets, variants and exact odds. Pure."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens: the dealer's display and the players' board, their languages and PINs."""

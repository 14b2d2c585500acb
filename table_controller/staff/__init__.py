# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who works the table: the staff register, sign-in at the edge, and the game's pace."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What happened at the table, read back: the recall of the last rounds, and game pace."""

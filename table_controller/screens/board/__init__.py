# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The players' board: its web application and its view of the table."""

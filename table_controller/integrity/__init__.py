# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the table proves about itself: its software's identity and its device key."""

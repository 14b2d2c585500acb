# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The connections to the broker: the table's link, its sending, republishing and subscribers."""

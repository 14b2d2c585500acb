# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Async drivers for card-shoe readers. Never imports table_controller."""

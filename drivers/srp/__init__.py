# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1, the checksummed shoe reader protocol (docs/shoe-protocol.md). Pure."""

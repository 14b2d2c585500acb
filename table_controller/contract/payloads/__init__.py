# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The payloads the table publishes, one frozen type per message type."""

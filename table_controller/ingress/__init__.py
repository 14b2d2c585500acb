# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress: a command read from bytes or data, and who may give it."""

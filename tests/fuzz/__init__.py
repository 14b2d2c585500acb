# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzz suites for the input edges: shoe decoders, commands, settings, records, variant file."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""table-controller: the software beside a live baccarat table."""

__version__ = "0.1.0"

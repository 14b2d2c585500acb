# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable, hash-chained input journal: its file format, its one writer and its lock."""

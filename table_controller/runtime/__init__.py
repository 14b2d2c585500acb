# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The runtime: the only place where time, I/O and ordering live (journal, shoe link, service)."""

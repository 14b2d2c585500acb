# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A virtual card shoe speaking the shoe protocols, with faults on demand.

Never imports table_controller.
"""

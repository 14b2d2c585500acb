# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The casino's side: a reference backend that stores every message of every table once."""

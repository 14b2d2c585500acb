# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer's display: its web application, its view of the table and its commands."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What both screens' web servers share: the site, its listener's defences, event streams."""

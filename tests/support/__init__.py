# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fakes and builders shared by the tests."""

# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The wire contract: codes, payload types, the envelope and sealing, the commands and schemas."""

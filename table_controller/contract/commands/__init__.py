# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The commands of the MQTT contract: their arguments, messages and error codes."""

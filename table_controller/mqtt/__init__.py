# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The MQTT transport: settings and topics, the durable outbox, resend, and what consumers keep."""

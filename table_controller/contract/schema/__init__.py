# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The JSON Schemas and the AsyncAPI document, generated from the contract's types."""

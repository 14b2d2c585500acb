# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The JSON Schemas and the AsyncAPI document, generated from the contract's types."""

from table_controller.contract.schema.asyncapi import generated_files

__all__ = [
    "generated_files",
]

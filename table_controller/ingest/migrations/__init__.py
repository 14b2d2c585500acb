# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest schema's alembic migrations, run to head by ``IngestStore.open``."""

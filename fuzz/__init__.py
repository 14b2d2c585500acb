# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""atheris harnesses for the input edges (optional long runs; not part of CI)."""

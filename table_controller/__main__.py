# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``python -m table_controller``: the same as the ``table-controller`` console script."""

import sys

from table_controller.cli import main

sys.exit(main())

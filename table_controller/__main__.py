"""``python -m table_controller``: the same as the ``table-controller`` console script."""

import sys

from table_controller.cli import main

sys.exit(main())

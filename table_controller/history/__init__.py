# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What happened at the table, read back: the recall of the last rounds, and game pace."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.history.pace import (
        HOUR_S,
        Pace,
        Span,
        Timeline,
        figures_of,
        seconds_of,
        stamp_of,
    )
    from table_controller.history.recall import (
        RECALLS_PER_MINUTE,
        RecallBook,
        carries_recall,
        recall_answer,
        recall_reply,
        recalled_again,
        with_disputes_sealed,
    )

__all__ = [
    "HOUR_S",
    "RECALLS_PER_MINUTE",
    "Pace",
    "RecallBook",
    "Span",
    "Timeline",
    "carries_recall",
    "figures_of",
    "recall_answer",
    "recall_reply",
    "recalled_again",
    "seconds_of",
    "stamp_of",
    "with_disputes_sealed",
]

__getattr__ = lazy_face(
    __name__,
    {
        "pace": ("HOUR_S", "Pace", "Span", "Timeline", "figures_of", "seconds_of", "stamp_of"),
        "recall": (
            "RECALLS_PER_MINUTE",
            "RecallBook",
            "carries_recall",
            "recall_answer",
            "recall_reply",
            "recalled_again",
            "with_disputes_sealed",
        ),
    },
)

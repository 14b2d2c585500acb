# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Where a virtual shoe's card order comes from: a seed, the system's RNG, or a stacked file.

Adapter: the only module of the simulator that uses randomness or reads a stack file. A
seeded ``random.Random`` gives reproducible shoes (tests, demonstrations); a
``secrets.SystemRandom`` gives the unpredictable shoes of a virtual table. The order it makes
goes into ``deck.Shoe``, which knows nothing of where it came from.

A stack file lists the cards in draw order: one or several codes per line, separated by
spaces or commas; ``#`` starts a comment that runs to the end of the line; ``10H`` and
lower case are accepted.
"""

from __future__ import annotations

import random
import re
import secrets
from pathlib import Path
from typing import Final

from simulators.virtual_shoe.deck import normalise_card_code, unshuffled_codes

_SEPARATORS: Final = re.compile(r"[\s,]+")


class StackError(ValueError):
    """A stack file that does not list cards; the message names the line and the text."""


def seeded_order(decks: int, seed: int) -> tuple[str, ...]:
    """The same shuffled order of ``decks`` decks every time for the same seed."""
    cards = list(unshuffled_codes(decks))
    random.Random(seed).shuffle(cards)  # noqa: S311 - reproducibility is the point here
    return tuple(cards)


def secure_order(decks: int) -> tuple[str, ...]:
    """An unpredictable shuffled order from the operating system's cryptographic RNG."""
    cards = list(unshuffled_codes(decks))
    secrets.SystemRandom().shuffle(cards)
    return tuple(cards)


def parse_stack(text: str) -> tuple[str, ...]:
    """The cards a stack file's text lists, in order.

    Args:
        text: The file's contents.

    Returns:
        The card codes, first drawn first.

    Raises:
        StackError: A word that is not a card, or no card at all.
    """
    cards: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for word in _SEPARATORS.split(line.split("#", 1)[0]):
            if not word:
                continue
            code = normalise_card_code(word)
            if code is None:
                raise StackError(f"line {number}: {word!r} is not a card (e.g. QH, TD, 10S)")
            cards.append(code)
    if not cards:
        raise StackError("the stack lists no card")
    return tuple(cards)


def read_stack(path: Path) -> tuple[str, ...]:
    """The cards listed in the stack file at ``path``.

    Raises:
        StackError: The file cannot be read or does not list cards.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StackError(f"cannot read stack file {str(path)!r}: {error}") from error
    try:
        return parse_stack(text)
    except StackError as error:
        raise StackError(f"{path}: {error}") from error

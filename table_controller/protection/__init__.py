# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Game protection: the live exact edge of every bet, dynamic windows and shuffle integrity.

Pure: no I/O, no clock, no randomness (``plot.py`` aside, an edge module that draws a file).
Everything here decides from data the runtime hands in: the cards that left the shoe, the
variant, the round number. The runtime runs the costly part (the exact analyser, about a
millisecond per shoe composition) between rounds, never on the dealing path.
"""

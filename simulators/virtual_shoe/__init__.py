# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The virtual card shoe: a deck, the shoe side of SRP/1 and Bee-Tek, faults, servers, dealers.

Pure cores: ``deck``, ``device``, ``beetek``, ``faults``, ``scenarios``. Adapters: ``shuffle``
(randomness), ``server`` (pty, TCP, in-memory pipe) and the asyncio half of ``dealer``.
Never imports table_controller.
"""

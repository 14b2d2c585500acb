# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the tests share, each once.

Fakes stand in for an adapter where a pure core or the service is tested alone
(``links.MemoryLink``, ``links.MemorySink``). The rest is support for real components: a
free port, a seeded shoe and a scripted dealer, ``table-controller run`` as a subprocess, and
virtual tables driven through the real service.
"""

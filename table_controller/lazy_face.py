# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A package face that imports each of its parts when one of its names is first used.

The adapter packages' faces (``runtime``, ``mqtt``, ``screens`` ...) name in ``__all__`` what
other packages may use and import it here, on demand (a module ``__getattr__``, PEP 562), so
that importing a package loads only the parts a configuration uses: ``run`` without a broker,
metrics or a device key never loads the MQTT client, ``prometheus_client`` or
``cryptography``. The names are imported under ``TYPE_CHECKING`` too, for the type checker;
``tests/test_architecture.py`` checks that the three lists of a face agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_face"]


def lazy_face(package: str, parts: Mapping[str, Iterable[str]]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``'s face: ``parts`` maps a module to the names it gives.

    A name, once imported, is kept in the package's namespace, so the next use is a plain
    attribute read.
    """
    module_of = {name: f"{package}.{module}" for module, names in parts.items() for name in names}

    def attribute(name: str) -> object:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return attribute

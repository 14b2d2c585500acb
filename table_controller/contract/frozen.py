# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A faster ``__init__`` for the frozen dataclasses the table builds on every input.

Pure: no I/O, no clock, no randomness.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__`` (its
own ``__setattr__`` refuses), a lookup and a generic call per field: the payloads and decisions
of one round cost more to build than the rules cost to decide them. :func:`fast_init` gives a
slotted frozen dataclass an ``__init__`` with the same parameters and defaults that stores
each field through its slot's descriptor instead, about twice as fast. Nothing
else changes: ``dataclasses.fields()``, equality, hashing, ``repr`` and immutability are the
dataclass's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

_Frozen = TypeVar("_Frozen", bound=type[Any])
_Value = TypeVar("_Value")
_Parameters = ParamSpec("_Parameters")


def fast_init(cls: _Frozen) -> _Frozen:
    """Give ``cls`` (a frozen, slotted dataclass) the faster ``__init__``.

    Applied above ``@dataclass``; a class outside what it reproduces exactly (not frozen or
    slotted, ``__post_init__``, fields left out of ``__init__``, keyword-only fields mixed with
    others) raises.
    """
    if not cls.__dataclass_params__.frozen:
        raise TypeError(f"{cls.__name__} is not frozen: its own __init__ stores fields as fast")
    scope, parameters, lines = _stores(cls)
    exec(f"def __init__(self, {parameters}):\n{lines}    pass\n", scope)  # noqa: S102 - see _stores
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init
    return cls


def builder(cls: Callable[_Parameters, _Value]) -> Callable[_Parameters, _Value]:
    """A function that builds ``cls`` (a slotted dataclass, frozen or not) from the same arguments.

    Calling a class with keywords packs them into a dict and unpacks them again for
    ``__init__``; a function takes them as they are. For the payloads built on every card.
    """
    if not isinstance(cls, type):
        raise TypeError(f"{cls!r} is not a class")
    scope, parameters, lines = _stores(cls)
    scope["_new"], scope["_cls"] = object.__new__, cls
    source = f"def build({parameters}):\n    self = _new(_cls)\n{lines}    return self\n"
    exec(source, scope)  # noqa: S102 - see _stores
    build = scope["build"]
    build.__qualname__ = f"builder({cls.__qualname__})"  # type: ignore[attr-defined]
    return build  # type: ignore[return-value]


def _stores(cls: type[Any]) -> tuple[dict[str, object], str, str]:
    """The parameters of ``cls``'s ``__init__`` and the lines that store them in ``self``.

    With the names those lines use. The text is built from the class's own fields only.
    """
    fields = dataclasses.fields(cls)
    keyword_only = {field.kw_only for field in fields}
    if ("__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__")
            or not all(field.init for field in fields) or len(keyword_only) > 1):
        raise TypeError(f"{cls.__name__}: only slotted dataclasses without __post_init__, their "
                        "fields all keyword-only or none, are built field by field here")
    scope: dict[str, object] = {"_MISSING": dataclasses.MISSING}
    parameters: list[str] = []
    lines: list[str] = []
    for field in fields:
        name = field.name
        scope[f"_set_{name}"] = getattr(cls, name).__set__  # the slot's own descriptor
        if field.default is not dataclasses.MISSING:
            scope[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            scope[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=_MISSING")
            lines.append(f"    if {name} is _MISSING: {name} = _factory_{name}()\n")
        else:
            parameters.append(name)
        lines.append(f"    _set_{name}(self, {name})\n")
    star = "*, " if parameters and keyword_only == {True} else ""
    return scope, star + ", ".join(parameters), "".join(lines)

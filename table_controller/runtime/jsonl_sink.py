# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A message sink that appends every published message to a JSON-lines file.

Adapter. Each line is ``{"key": ..., "topic": ..., "retain": ..., "message": <envelope>}``.
The ``seq`` of the envelope goes on across restarts, and a key already in the file is
skipped, so replaying the journal after a crash fills in the tail and duplicates nothing.
Until the MQTT outbox is configured, this is where ``run`` publishes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import IO

from table_controller.contract import (
    EdgeFields,
    OutgoingMessage,
    Seal,
    dumps,
    sealed,
    with_edge_fields,
)


class JsonLinesSink:
    """Appends messages to ``path`` (flushed per input), numbering them with ``seq``.

    ``edge_fields`` and ``seal`` are the outbox's (``contract/sealing.py``): the copy carries
    the same ``software`` and is signed the same way.
    """

    def __init__(
        self,
        path: Path,
        *,
        table_id: str,
        topic_root: str,
        edge_fields: EdgeFields | None = None,
        seal: Seal | None = None,
    ) -> None:
        self._edge_fields = edge_fields
        self._seal = seal
        self._table_id = table_id
        self._root = topic_root
        self._keys: set[str] = set()
        self._seq = 0
        if path.exists():
            with path.open(encoding="utf-8") as existing:
                for line in existing:
                    if line.strip():
                        entry = json.loads(line)
                        self._keys.add(entry["key"])
                        self._seq = max(self._seq, int(entry["message"]["seq"]))
        self._file: IO[str] = path.open("a", encoding="utf-8")

    @property
    def seq(self) -> int:
        """The ``seq`` of the last message written."""
        return self._seq

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Write the messages not yet in the file, in order."""
        for message in messages:
            if message.key in self._keys:
                continue
            self._seq += 1
            wire = sealed(
                with_edge_fields(
                    message.enveloped(table_id=self._table_id, seq=self._seq, ts=message.ts),
                    self._edge_fields,
                ),
                self._seal,
            )
            entry = {
                "key": message.key,
                "topic": f"{self._root}/{message.topic}",
                "retain": message.retain,
                "message": wire,
            }
            self._file.write(dumps(entry) + "\n")  # type: ignore[arg-type]
            self._keys.add(message.key)
        self._file.flush()

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        """The write of a live input's messages (numbered when written, on the writer thread)."""
        return partial(self.add, messages)

    def close(self) -> None:
        self._file.close()

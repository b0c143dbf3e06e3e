"""What a process keeps of work that never changes once done (a heist's state after its resolved
nights, a finished heist's nights, the player model's earlier nights): a bounded memory, the
least recently used entry dropped first, one lock for the threads of a web process. Pure
Python, imported by the engine's neighbours and the selectors alike."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable


class Kept[V]:
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def pop(self, key: Hashable) -> V | None:
        with self._lock:
            return self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

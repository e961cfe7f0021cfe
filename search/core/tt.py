"""The compiled core's transposition table: numpy arrays, today's replacement rule (:mod:`search.tt`), in numba.

A table of ``n`` slots (a power of two, indexed by the low bits of the position's polyglot key) is two arrays:
``keys`` (``uint64``, the full key of the slot's position) and ``data`` (``int32``, shape ``(n, 5)``: the move
packed as :mod:`search.core` packs moves (0 for none), the score (mate scores relative to the node, as
:func:`search.tt.score_to_tt` makes them), the depth, the bound flag (:data:`search.tt.EXACT`, ``LOWER``,
``UPPER``) and the age of the search that wrote it, ``-1`` for an empty slot). The replacement rule is
:meth:`search.tt.TranspositionTable.store`'s: a slot is written when it is empty, holds the same key, was written by
an older search or holds a shallower result; a missing move keeps the move stored for the same key.
:class:`CoreTable` is the Python side (size, clearing, age, UCI ``hashfull``); :func:`tt_probe` and
:func:`tt_store` run inside the compiled search.
"""

from __future__ import annotations

import numpy as np

from search.core.jit import njit
from search.tt import EXACT, LOWER, UPPER

__all__ = ["D_AGE", "D_DEPTH", "D_FLAG", "D_MOVE", "D_SCORE", "ENTRY_BYTES", "EXACT", "LOWER", "UPPER", "CoreTable",
           "tt_probe", "tt_store"]

D_MOVE, D_SCORE, D_DEPTH, D_FLAG, D_AGE = 0, 1, 2, 3, 4
"""Columns of a slot's ``data`` row."""
ENTRY_BYTES = 28
"""Bytes of one slot: an 8-byte key and five 4-byte fields."""


class CoreTable:
    """The table's arrays and the search counter that ages them (module docstring); ``megabytes`` MiB."""

    __slots__ = ("age", "data", "keys")

    def __init__(self, megabytes: float = 16) -> None:
        self.keys = np.zeros(1, np.uint64)
        self.data = np.zeros((1, 5), np.int32)
        self.age = 0
        self.resize(megabytes)

    def resize(self, megabytes: float) -> None:
        """Reallocate to about ``megabytes`` MiB (a power-of-two number of slots, at least 1024), empty."""
        want = max(1024, int(megabytes * (1 << 20)) // ENTRY_BYTES)
        size = 1 << (want.bit_length() - 1)
        self.keys = np.zeros(size, np.uint64)
        self.data = np.zeros((size, 5), np.int32)
        self.clear()

    def clear(self) -> None:
        """Empty every slot; the age starts again at 0."""
        self.keys[:] = 0
        self.data[:] = 0
        self.data[:, D_AGE] = -1
        self.age = 0

    def next_search(self) -> int:
        """Start a search: a new age (16 bits, as today's table), which makes every earlier entry replaceable."""
        self.age = (self.age + 1) & 0xFFFF
        return self.age

    def __len__(self) -> int:
        return len(self.keys)

    def usage_permille(self) -> int:
        """Slots written by the current search per thousand, sampled from the first thousand slots (UCI
        ``hashfull``)."""
        sample = self.data[:1000, D_AGE]
        return int(np.count_nonzero(sample == self.age)) * 1000 // max(len(sample), 1)


@njit(cache=True, inline="always")
def tt_probe(keys, data, key):  # type: ignore[no-untyped-def]
    """The slot index holding ``key`` (``uint64``), or -1."""
    i = np.int64(key & np.uint64(len(keys) - 1))
    if keys[i] == key and data[i, D_AGE] >= 0:
        return i
    return -1


@njit(cache=True, inline="always")
def tt_store(keys, data, key, depth, flag, score, move, age):  # type: ignore[no-untyped-def]
    """Store a result in ``key``'s slot by the replacement rule (module docstring); ``move`` 0 keeps the move stored
    for the same key. True when the slot was written."""
    i = np.int64(key & np.uint64(len(keys) - 1))
    e_age = data[i, D_AGE]
    same = keys[i] == key and e_age >= 0
    if e_age < 0 or same or e_age != age or depth >= data[i, D_DEPTH]:
        if move == 0 and same:
            move = data[i, D_MOVE]
        keys[i] = key
        data[i, D_MOVE] = move
        data[i, D_SCORE] = score
        data[i, D_DEPTH] = depth
        data[i, D_FLAG] = flag
        data[i, D_AGE] = age
        return True
    return False

"""The bounded transposition table: its bound flags, its replacement rule and how mate scores go through it.

Positions are found by :func:`search.conventions.position_key` (re-exported here, where the search's callers
have always found it).
"""

from __future__ import annotations

import chess

from search.conventions import MATE_BOUND, position_key

__all__ = ["ENTRY_BYTES", "EXACT", "LOWER", "UPPER", "NullTable", "TranspositionTable", "position_key",
           "score_from_tt", "score_to_tt"]

EXACT, LOWER, UPPER = 0, 1, 2
"""Bound flags of a stored score: exact, a lower bound (fail high), an upper bound (fail low)."""

ENTRY_BYTES = 200
"""Approximate memory of one stored entry (a 6-tuple and its objects), used to size the table."""


def score_to_tt(score: int, ply: int) -> int:
    """``score`` of a node ``ply`` plies from the root as the table stores it: a mate counted from the node
    (``score + ply`` for a mate given, ``score - ply`` for one suffered), anything else unchanged.

    >>> from search.conventions import MATE
    >>> score_to_tt(MATE - 7, 3) == MATE - 4, score_to_tt(-(MATE - 7), 3) == -(MATE - 4), score_to_tt(-35, 3)
    (True, True, -35)
    """
    return score + ply if score >= MATE_BOUND else (score - ply if score <= -MATE_BOUND else score)


def score_from_tt(stored: int, ply: int) -> int:
    """A stored score (:func:`score_to_tt`) read back at a node ``ply`` plies from the root.

    >>> from search.conventions import MATE
    >>> score_from_tt(score_to_tt(MATE - 7, 3), 5) == MATE - 9, score_from_tt(12, 5)
    (True, 12)
    """
    return stored - ply if stored >= MATE_BOUND else (stored + ply if stored <= -MATE_BOUND else stored)


class TranspositionTable:
    """A fixed number of slots, indexed by the low bits of the key.

    Each slot holds ``(key, depth, flag, score, move, age)`` or ``None``. Scores are stored as the
    engine hands them over (mate scores already made relative to the node). A slot is replaced when
    it is empty, holds the same key, was written by an older search, or holds a shallower result.
    """

    __slots__ = ("age", "mask", "slots")

    def __init__(self, megabytes: float = 16) -> None:
        self.slots: list[tuple[int, int, int, int, chess.Move | None, int] | None] = []
        self.mask = 0
        self.age = 0
        self.resize(megabytes)

    def resize(self, megabytes: float) -> None:
        """Reallocate to about ``megabytes`` MiB (a power-of-two number of slots, at least 1024)."""
        want = max(1024, int(megabytes * (1 << 20)) // ENTRY_BYTES)
        size = 1 << (want.bit_length() - 1)
        self.slots = [None] * size
        self.mask = size - 1

    def clear(self) -> None:
        self.slots = [None] * len(self.slots)
        self.age = 0

    def __len__(self) -> int:
        return len(self.slots)

    def usage_permille(self) -> int:
        """Filled slots per thousand, sampled from the first thousand slots (UCI ``hashfull``)."""
        sample = self.slots[:1000]
        return sum(1 for e in sample if e is not None and e[5] == self.age) * 1000 // max(len(sample), 1)

    def probe(self, key: int) -> tuple[int, int, int, int, chess.Move | None, int] | None:
        e = self.slots[key & self.mask]
        return e if e is not None and e[0] == key else None

    def store(self, key: int, depth: int, flag: int, score: int, move: chess.Move | None) -> bool:
        """Store a result in slot ``key & self.mask`` by the replacement rule (class docstring; the one home of
        it): ``depth`` is the search's measure of its budget, ``score`` what the search stores (or, for the
        comparison search, the slot's index, its leaf kept beside the table). A missing ``move`` keeps the move
        already stored for the same key. True when the slot was written."""
        slots = self.slots
        i = key & self.mask
        e = slots[i]
        if e is None or e[0] == key or e[5] != self.age or depth >= e[1]:
            if move is None and e is not None and e[0] == key:
                move = e[4]
            slots[i] = (key, depth, flag, score, move, self.age)
            return True
        return False


class NullTable(TranspositionTable):
    """A table that stores nothing: one slot that stays empty. ``Engine(use_tt=False)`` uses it, so the
    search runs the same code with every probe missing."""

    __slots__ = ()

    def __init__(self, megabytes: float = 0) -> None:
        super().__init__(megabytes)

    def resize(self, megabytes: float) -> None:
        """Always one empty slot, whatever ``megabytes`` says."""
        self.slots = [None]
        self.mask = 0

    def store(self, key: int, depth: int, flag: int, score: int, move: chess.Move | None) -> bool:
        """Store nothing."""
        return False

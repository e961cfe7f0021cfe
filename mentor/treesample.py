"""Positions from a search tree: where a player's own search evaluates (``mimic label --source search:SPEC``), so
that the mentor labels what the pupil's search compares (DAgger's "label the states the learner visits").

The player (any evaluator a player spec names: an organism, a net, the expert) plays itself from the openings with
our engine at the spec's limit (``@nodes=2000`` when it gives none). Its evaluator is wrapped (:class:`Sampler`) so
that every position the search asks it to evaluate is seen, and one in ``every`` is kept: chosen by a keyed hash of
the position (splitmix64 of its key and the seed), not by the order of the calls, so the choice is the same whatever
the search's order and a position visited twice is kept once. Game ``g`` is seeded with ``(seed, g)`` (its opening
and first random plies); games run in parallel (:func:`search.runtime.workers.parallel_map`), each worker building
the player from its spec through the registry it is given (mentor/ never imports the kinds). The sampling rate,
seed, limit and spec are recorded in the label file's sidecar.

May import: chess, ``search/`` (the engine, the searches' table, the openings, the workers), ``mentor.samplers``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import chess
import numpy as np

from search.base import Evaluator, IncrementalEvaluator, Limit
from search.conventions import position_key
from search.players.spec import PlayerRegistry
from search.prob import make_engine
from search.runtime.errors import SettingsError
from search.runtime.workers import dropping_results, parallel_map

DEFAULT_LIMIT = Limit(nodes=2000)
"""The search of a player whose spec sets no limit."""
MASK = (1 << 64) - 1


def splitmix64(x: int) -> int:
    """A 64-bit mix (Steele, Lea & Flood's SplitMix64 finaliser): nearby keys give unrelated values.

    >>> splitmix64(0), splitmix64(1) != splitmix64(2)
    (0, True)
    """
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & MASK
    return x ^ (x >> 31)


class Sampler:
    """An evaluator that keeps one in ``every`` of the positions it is asked about (by a keyed hash of the position,
    see the module docstring) and answers with ``inner``'s evaluation (centipawns, side to move) unchanged."""

    def __init__(self, inner: Evaluator, every: int, seed: int) -> None:
        self.inner, self.every, self.salt = inner, every, splitmix64(seed + 0x9E3779B97F4A7C15 & MASK)
        self.name = getattr(inner, "name", type(inner).__name__)
        self.kept: dict[int, str] = {}  # position key -> FEN, in the order first kept
        self.seen = 0

    def _see(self, board: chess.Board) -> None:
        self.seen += 1
        key = position_key(board)
        if splitmix64(key ^ self.salt) % self.every == 0 and key not in self.kept:
            self.kept[key] = board.fen()

    def evaluate(self, board: chess.Board) -> int:
        self._see(board)
        return self.inner.evaluate(board)


class IncrementalSampler(Sampler):
    """A :class:`Sampler` around an incremental evaluator (a perspective net): the engine's updates go through."""

    inner: Any

    def refresh(self, board: chess.Board) -> None:
        self.inner.refresh(board)

    def push(self, board: chess.Board, move: chess.Move) -> None:
        self.inner.push(board, move)

    def pop(self) -> None:
        self.inner.pop()

    def evaluate_current(self, board: chess.Board) -> int:
        self._see(board)
        return int(self.inner.evaluate_current(board))


def sampler(inner: Evaluator, every: int, seed: int) -> Sampler:
    """The sampler of ``inner``: incremental when ``inner`` is."""
    cls = IncrementalSampler if isinstance(inner, IncrementalEvaluator) else Sampler
    return cls(inner, every, seed)


def tree_game(game: int, spec: str, registry: PlayerRegistry, openings: Sequence[str], seed: int, every: int,
              random_plies: int = 2, max_plies: int = 160) -> tuple[list[str], int]:
    """Game ``game``: the player of ``spec`` plays itself from an opening (plus ``random_plies`` random plies), and the
    positions its search evaluated that the sampler kept (FENs, each once) and how many evaluations it saw."""
    s = registry.parse(spec)
    inner = registry(s)
    watch = sampler(inner, every, seed)
    engine = make_engine(watch, s.search, policy=registry.policy(s))
    limit = s.limit if s.limit is not None else DEFAULT_LIMIT
    rng = np.random.default_rng([seed, game])
    board = chess.Board(openings[int(rng.integers(len(openings)))])
    for _ in range(random_plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[int(rng.integers(len(moves)))])
    engine.new_game()
    while not board.is_game_over(claim_draw=False) and board.ply() < max_plies:
        result = engine.search(board, limit)
        if result.move is None:
            break
        board.push(result.move)
    return list(watch.kept.values()), watch.seen


def tree_positions(spec: str, registry: PlayerRegistry, openings: Sequence[str], n: int, seed: int, every: int,
                   jobs: int = 1, stats: dict[str, int] | None = None) -> Iterator[tuple[str, str]]:
    """``(FEN, id)`` of up to ``n`` distinct positions kept from the searches of the player of ``spec`` (games 0, 1,
    ... in order, ``2 * jobs`` at a time); ``stats`` counts games and evaluations seen."""
    if every < 1:
        raise SettingsError(f"--tree-every must be at least 1, got {every}")
    registry.parse(spec)  # a bad spec: one line before any game
    seen: set[str] = set()
    stats = stats if stats is not None else {}
    game, found = 0, 0
    while found < n:
        games = list(range(game, game + max(2 * abs(jobs), 2)))
        game += len(games)
        results = parallel_map(tree_game, games, jobs, args=(spec, registry, openings, seed, every))
        with dropping_results():  # the games ahead of the last one read are dropped on purpose
            done = list(_until(results, n - found))
            close = getattr(results, "close", None)
            if close is not None:
                close()
        for g, (fens, evaluated) in zip(games, done, strict=False):
            stats["games"] = stats.get("games", 0) + 1
            stats["evaluated"] = stats.get("evaluated", 0) + evaluated
            for k, fen in enumerate(fens):
                if fen in seen:
                    stats["duplicates"] = stats.get("duplicates", 0) + 1
                    continue
                seen.add(fen)
                found += 1
                yield fen, f"search:{seed}:{g}:{k}"
                if found >= n:
                    return


def _until(results: Iterator[tuple[list[str], int]], wanted: int) -> Iterator[tuple[list[str], int]]:
    """The games' results in order, until they hold ``wanted`` positions (duplicates counted: a bound, not a
    count; the caller takes what it needs)."""
    held = 0
    for fens, evaluated in results:
        yield fens, evaluated
        held += len(fens)
        if held >= wanted:
            return

"""Choosing a move from an experience book: the book layer over any player and the pure DeepRed player.

Owns :class:`BookChooser` (the best Wilson lower bound among the moves seen often enough, or a seeded random
move where the book knows nothing) and the ``deepred:PATH`` player kind (:data:`DEEPRED`). Imports chess,
:mod:`search.book` and :mod:`search.players.spec` only.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess

from search.book.tree import Book, Edge
from search.players.spec import PlayerKind, PlayerSpec

DEFAULT_MIN_GAMES = 3
"""A book move is played only when it has been seen in at least this many games (``?min=N``)."""


class BookChooser:
    """Chooses a move from a book: among the moves of the position seen in at least ``min_games`` games,
    the one with the best Wilson lower bound of its score (:func:`wilson_lower`, the mover's view; ties:
    more games, then the move's UCI text). ``None`` where no move qualifies, unless ``seed`` is given: the
    pure DeepRed player then plays a random legal move there.

    ``explore`` (the pure DeepRed player learning by playing): a move qualifies only if it has also scored (a
    win or a draw). Where every move seen has only lost, the player moves at random again instead of repeating
    a lost move, and a line that once won or drew is replayed. Without it, the first move to reach
    ``min_games`` games is played for ever however it fared, and a player that has only lost never learns.

    The random moves are reproducible: a game's moves come from ``random.Random`` seeded with the seed, the
    number of games the book held when the game began, and the FEN of its first position, so two games from
    the same start differ once the book has learned from the first (``--learn``).
    """

    def __init__(self, path: str | Path, min_games: int = DEFAULT_MIN_GAMES, seed: int | None = None,
                 explore: bool = False) -> None:
        self.book = Book(path, readonly=True)
        self.min_games = min_games
        self.seed = seed
        self.explore = explore
        self._rng: random.Random | None = None

    def new_game(self) -> None:
        self._rng = None

    def best(self, board: chess.Board) -> Edge | None:
        """The book's move for ``board`` (see the class docstring), ``None`` when none qualifies."""
        known = [e for e in self.book.edges(board) if e.n >= self.min_games and board.is_legal(e.move)
                 and (e.wins + e.draws > 0 or not self.explore)]
        if not known:
            return None
        return max(known, key=lambda e: (e.lower, e.n, _reverse(e.move.uci())))

    def choose(self, board: chess.Board) -> chess.Move | None:
        edge = self.best(board)
        if edge is not None or self.seed is None:
            return edge.move if edge is not None else None
        legal = list(board.legal_moves)
        if not legal:
            return None
        if self._rng is None:
            self._rng = random.Random(f"{self.seed}|{self.book.game_count()}|{board.fen()}")
        return self._rng.choice(legal)

    def close(self) -> None:
        self.book.close()


def _reverse(text: str) -> tuple[int, ...]:
    """A key that sorts strings in reverse (so that ``max`` prefers the alphabetically first move)."""
    return tuple(-ord(c) for c in text)


class NoEvaluation:
    """The evaluator under the pure DeepRed player (``deepred:PATH``): never consulted, since DeepRed moves
    from its book or at random; it scores every position 0."""

    def evaluate(self, board: chess.Board) -> int:
        return 0


def _deepred(spec: PlayerSpec) -> NoEvaluation:
    return NoEvaluation()


DEEPRED = PlayerKind("deepred", "book", "the pure DeepRed player: its book's best move (seen in at least N games), "
                     "a random legal move (seeded) where it knows nothing; explore=1: also where every "
                     "move it knows has only lost", _deepred)
"""The ``deepred:PATH[?min=N&seed=N&explore=0|1]`` kind, for the one registry (``evolve.players``)."""


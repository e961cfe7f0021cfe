"""Synthetic game sets whose players are known organisms: the tests' recognition set and ``mimic recognize``'s
worked example in docs/recognition.md (``python tools/synthetic_games.py synthetic.pgn``).

Two random organisms, Alpha (``Organism.random(1)``) and Beta (``Organism.random(2)``), play each other with
colours alternating: the first :data:`SKIP` plies are random (seeded), then each side plays its 1-ply choice.
May import ``mentor`` and ``organisms`` (see ARCHITECTURE.md); prints nothing.
"""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np

from mentor.target import quiet_leaf
from organisms import Organism

SKIP = 6
"""Random plies at the start of every synthetic game, and the plies the clones skip (so they see only
the organisms' own moves)."""

NAMES = ("Alpha, Ann", "Beta, Bob")
"""The players' ``White``/``Black`` headers: Alpha is ``Organism.random(1)``, Beta ``Organism.random(2)``."""


def one_ply_choice(board: chess.Board, organism: Organism) -> chess.Move:
    """The organism's 1-ply move: the first legal move whose child, resolved by the capture-only quiescence
    the clones use, scores best for the mover (centipawns, the mover's view; a mate first) — the choice rule
    of ``evolve.data.moves``, written one position at a time."""
    best, pick = None, None
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        if child.is_checkmate():
            return move
        leaf, _ = quiet_leaf(child)
        v = organism.evaluate(leaf)
        v = v if leaf.turn == board.turn else -v
        if best is None or v > best:
            best, pick = v, move
    assert pick is not None
    return pick


def synthetic_games(n: int, plies: int = 36, seed: int = 0) -> list[chess.pgn.Game]:
    """``n`` games of Alpha (random organism 1) against Beta (random organism 2), colours alternating: the
    first :data:`SKIP` plies random (seeded), then each side's 1-ply choice, up to ``plies`` plies. The first
    ``k`` games of ``synthetic_games(n)`` are ``synthetic_games(k)`` for any ``k <= n``."""
    organisms = (Organism.random(1), Organism.random(2))
    rng = np.random.default_rng(seed)
    games = []
    for g in range(n):
        board, game = chess.Board(), chess.pgn.Game()
        white = g % 2
        game.headers.update(Event="synthetic", Date=f"2026.01.{g % 28 + 1:02d}", Round=str(g + 1),
                            White=NAMES[white], Black=NAMES[1 - white])
        node: chess.pgn.GameNode = game
        for ply in range(plies):
            if board.is_game_over():
                break
            legal = list(board.legal_moves)
            who = white if board.turn == chess.WHITE else 1 - white
            move = legal[int(rng.integers(len(legal)))] if ply < SKIP else one_ply_choice(board, organisms[who])
            node = node.add_variation(move)
            board.push(move)
        game.headers["Result"] = board.result() if board.is_game_over() else "*"
        games.append(game)
    return games


def pgn_text(games: list[chess.pgn.Game]) -> str:
    """The games as one PGN text, each followed by a blank line (the tests' ``synthetic.pgn``)."""
    return "".join(f"{g}\n\n" for g in games)

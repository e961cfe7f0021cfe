"""A short match, expert against material, in our engine at equal fixed depth (prints the score).

    python benchmarks/expert_vs_material.py [--pairs 10] [--depth 3] [--seed 1]

Openings: ``--pairs`` random 4-ply openings from the start position (seeded), each played twice with
colours swapped. A game ends by the rules (mate, stalemate, threefold, 50 moves, insufficient
material) or is adjudicated after 200 plies by the expert's static evaluation (±300 cp or a draw).
This stands in until the match runner (mimic match) exists.
"""

from __future__ import annotations

import argparse
import random
import sys

import chess

from organisms import Expert, Material
from search import Engine, Limit


def play(white: Engine, black: Engine, board: chess.Board, limit: Limit, judge: Expert) -> float:
    """White's score: 1, 0.5 or 0."""
    white.new_game()
    black.new_game()
    while not board.is_game_over(claim_draw=True):
        if board.ply() >= 200:
            v = judge.evaluate(board) * (1 if board.turn == chess.WHITE else -1)
            return 1.0 if v > 300 else 0.0 if v < -300 else 0.5
        engine = white if board.turn == chess.WHITE else black
        board.push(engine.search(board, limit).move)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    return 1.0 if outcome.winner is chess.WHITE else 0.0 if outcome.winner is chess.BLACK else 0.5


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    expert, material = Engine(Expert(), hash_mb=8), Engine(Material(), hash_mb=8)
    judge = Expert()
    limit = Limit(depth=args.depth)
    wins = draws = losses = 0
    for _ in range(args.pairs):
        opening = chess.Board()
        for _ in range(4):
            opening.push(rng.choice(list(opening.legal_moves)))
        for expert_white in (True, False):
            board = opening.copy()
            s = play(expert, material, board, limit, judge) if expert_white else 1 - play(
                material, expert, board, limit, judge)
            wins += s == 1
            draws += s == 0.5
            losses += s == 0
            print(f"{opening.fen()}  expert {'white' if expert_white else 'black'}: {s}", flush=True)
    n = wins + draws + losses
    print(f"expert vs material, depth {args.depth}: +{wins} ={draws} -{losses}  "
          f"score {(wins + draws / 2) / n:.1%} of {n} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())

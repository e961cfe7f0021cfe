"""Where an evaluation departs from the expert's on the positions a search evaluates (issue 26's diagnostic).

    python benchmarks/eval_gap.py SEARCHER [SPEC ...] --games PGN [--first 4] [--every 4] [--nodes 2000]
        [--sample 0.05] [--seed 0] [--reference expert] [--by imbalance|threat]

SEARCHER (a player spec with an evaluation, e.g. ``pnet:PATH``) searches every ``--every``-th position of the first
``--first`` games of PGN at ``--nodes`` nodes; a seeded ``--sample`` share of the positions its search evaluates
(static evaluations, quiescence stand-pats included) is kept. For SEARCHER and each SPEC (e.g. the organism taught
by the same labels), the static evaluation of those positions (centipawns, side to move) is compared with the
built-in expert's: the mean |difference| and the mean difference (negative: below the expert), by the size of the
position's material imbalance (|material balance| at 100 / 320 / 330 / 500 / 900 cp). An evaluation trained to
imitate the expert that drifts from it as the imbalance grows under-values (or over-values) winning material,
which a search exploits. ``--by threat`` groups the positions instead by who can win material at once (a capture
whose static exchange gains material: the side to move's, the other side's were it to move, both, neither; in check
apart): an evaluation taught on quiet positions only (the labels' quiet leaves) meets the others first in a
quiescence search's stand-pats. ``--reference SPEC`` compares with another evaluation instead of the expert:
with a mean of nets (``train-pnet --members``) as the reference and its members as the SPECs, the cells are how far
each member strays from the mean, the member-to-member noise that averaging removes. Prints a Markdown table;
passes or fails nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.pgn
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import PLAYERS
from search.base import Limit
from search.conventions import material_balance
from search.engine import Engine
from search.see import see

BUCKETS = ((0, 150), (150, 400), (400, 900), (900, None))
"""Material imbalance buckets, centipawns (|material balance|), lower bound included."""

THREATS = ("quiet", "side to move wins material", "other side wins material", "both win material", "in check")
"""The ``--by threat`` groups: who has a capture whose static exchange gains material (:func:`threat`)."""


def _wins_material(board: chess.Board) -> bool:
    """Whether the side to move has a capture (pseudo-legal) whose static exchange gains material."""
    return any(see(board, m) > 0 for m in board.generate_pseudo_legal_captures())


def threat(board: chess.Board) -> int:
    """``board``'s index in :data:`THREATS`: in check, or who of the two sides could win material at once (the other
    side as if it were to move: the turn passed, no en passant)."""
    if board.is_check():
        return THREATS.index("in check")
    other = board.copy(stack=False)
    other.turn, other.ep_square = not board.turn, None
    ours, theirs = _wins_material(board), _wins_material(other)
    return 3 if ours and theirs else 1 if ours else 2 if theirs else 0


def imbalance_groups(boards: list[chess.Board]) -> tuple[list[str], list[np.ndarray]]:
    """The material imbalance buckets' headings and masks."""
    imbalance = np.array([abs(material_balance(b)) for b in boards])
    heads = [f"imbalance {lo}-{hi} cp" if hi is not None else f"imbalance >= {lo} cp" for lo, hi in BUCKETS]
    return heads, [(imbalance >= lo) & (imbalance < (hi if hi is not None else np.inf)) for lo, hi in BUCKETS]


def threat_groups(boards: list[chess.Board]) -> tuple[list[str], list[np.ndarray]]:
    """The :data:`THREATS` groups' headings and masks."""
    group = np.array([threat(b) for b in boards])
    return list(THREATS), [group == i for i in range(len(THREATS))]


GROUPS = {"imbalance": ("by material imbalance (the absolute material balance at 100, 320, 330, 500, 900 cp a "
                        "piece)", imbalance_groups),
          "threat": ("by who could win material at once (a capture whose static exchange gains material)",
                     threat_groups)}
"""The ``--by`` groupings: the caption's words and the function giving headings and masks."""


def searched_positions(spec: str, pgn: str, first: int, every: int, nodes: int, share: float,
                       seed: int) -> list[chess.Board]:
    """A seeded ``share`` of the positions ``spec``'s search evaluates when searching every ``every``-th position
    of the first ``first`` games of ``pgn`` at ``nodes`` nodes."""
    ev = PLAYERS(spec)
    name = "evaluate_current" if hasattr(ev, "evaluate_current") else "evaluate"
    inner = getattr(ev, name)
    rng = random.Random(seed)
    kept: list[chess.Board] = []

    def recording(board: chess.Board) -> int:
        if rng.random() < share:
            kept.append(board.copy(stack=False))
        return int(inner(board))

    setattr(ev, name, recording)  # before the engine binds it
    engine = Engine(ev)
    with open(pgn) as fh:
        for _ in range(first):
            game = chess.pgn.read_game(fh)
            if game is None:
                break
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply % every == 0:
                    engine.search(board.copy(), Limit(nodes=nodes))
                board.push(move)
    return kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("searcher", help="the player spec whose search visits the positions (compared too)")
    ap.add_argument("specs", nargs="*", help="more player specs with an evaluation to compare on them")
    ap.add_argument("--games", required=True, help="a PGN whose games' positions are searched")
    ap.add_argument("--first", type=int, default=4, help="games of the PGN used (default: 4)")
    ap.add_argument("--every", type=int, default=4, help="search every N-th position of a game (default: 4)")
    ap.add_argument("--nodes", type=int, default=2000, help="nodes a search (default: 2000)")
    ap.add_argument("--sample", type=float, default=0.05, help="share of the evaluated positions kept (0.05)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reference", default="expert",
                    help="the evaluation the others are compared with (a player spec; default: expert)")
    ap.add_argument("--by", choices=sorted(GROUPS), default="imbalance",
                    help="group the positions by material imbalance or by who could win material (default: imbalance)")
    args = ap.parse_args()
    boards = searched_positions(args.searcher, args.games, args.first, args.every, args.nodes, args.sample,
                                args.seed)
    reference = PLAYERS(args.reference)
    base = np.array([reference.evaluate(b) for b in boards], dtype=np.float64)
    caption, grouping = GROUPS[args.by]
    heads, masks = grouping(boards)
    print(f"Positions: {len(boards)} of those `{args.searcher}`'s search evaluated (a share of {args.sample:g}, "
          f"seed {args.seed}) searching every {args.every}th position of the first {args.first} games "
          f"of {args.games} at {args.nodes} nodes, {caption}. Cells: mean absolute difference from "
          f"{'the expert' if args.reference == 'expert' else f'`{args.reference}`'}'s evaluation (mean "
          "difference), centipawns, side to move; n = positions in the bucket.\n")
    print("| evaluation | all | " + " | ".join(heads) + " |")
    print("|---" * (2 + len(heads)) + "|")
    print("| (positions) | " + f"n = {len(boards)} | " + " | ".join(f"n = {int(m.sum())}" for m in masks) + " |")
    for spec in [args.searcher, *args.specs]:
        ev = PLAYERS(spec)
        diff = np.array([ev.evaluate(b) for b in boards], dtype=np.float64) - base
        cells = [f"{np.abs(diff[m]).mean():.1f} ({diff[m].mean():+.1f})" if m.any() else "–"
                 for m in [np.ones(len(diff), dtype=bool), *masks]]
        print(f"| `{spec}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

"""How well evaluations and comparators order *close* positions, the ones a search compares.

    python benchmarks/close_pairs.py SPEC [SPEC ...] [--labels results/data/sf-selfplay-d8/labels.epd.gz]
                                     [--lines 30000] [--pairs 800] [--seed 1]

A DeepChess comparator is measured on pairs of a won game's and a lost game's positions (pair accuracy, issue 42:
0.984), pairs far apart; a search compares positions a move or two apart. Here the pairs are two positions of one
self-play game ``K`` plies apart (K = 1: the other side to move; 2: the same side; 10), both quiet (not in check, the
mentor's best move neither a capture nor a promotion: :meth:`mentor.labels.Label.quiet`, what a static evaluation
and DeepChess's data are meant for), kept when the mentor's scores of the two (White's view; ``|score|`` at most
1,500 cp) differ by a band of centipawns, and each player orders them:
a comparator (``cmp:PATH``) by ``better(a, b)``, any other player by its static evaluation from White's view. The
mentor's order is the truth. For a comparator two more figures: how often ``better(a, b) == better(b, a)`` (an order
never says both or neither), and how often ``better(p, p.mirror())`` (the comparison search's draw test) agrees with
the sign of the mentor's score where ``|score| >= 50``.

``--siblings N`` adds the pairs a search compares most: two children of one position (plies apart 0: the same side
to move, a move apart each from their parent). Of N quiet positions of the same games (every one at ``|score|`` at
most 400 cp), each child by a quiet move (no capture, promotion or check), labelled by Stockfish at ``--depth``
(``label_samples``, the labeller ``mimic label`` runs) and kept when quiet itself; every two siblings of one
position whose scores differ by a band make a pair (not sampled: a position's siblings are all its quiet children).

Label lines are the file's first ``--lines`` (games in file order; a comparator trained on the same file saw some of
these games, so its figure is an upper bound). Up to ``--pairs`` pairs a row, a seeded sample. Prints a Markdown
table; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import PLAYERS
from mentor.labeller import MentorConfig, label_samples
from mentor.labels import Label, read_labels
from mentor.pool import find_stockfish
from mentor.samplers import Sample
from search.base import Comparator
from search.compare import as_comparator

ROOT = Path(__file__).resolve().parents[1]
ROWS = ((1, 30, 100), (1, 100, 300), (2, 30, 100), (2, 100, 300), (2, 300, 1500), (10, 30, 100), (10, 100, 300))
"""The pairs: (plies apart, the least and the most difference of the mentor's scores, cp)."""

SIBLING_BANDS = ((20, 60), (60, 200), (200, 1500))
"""The sibling pairs' bands of the mentor's difference, cp."""

Game = list[tuple[chess.Board, int, int]]
Pair = tuple[tuple[chess.Board, int, int], tuple[chess.Board, int, int]]


def white_score(label: Label) -> int | None:
    """The mentor's score of a kept label from White's view (cp): one with an id, quiet, at most 1,500 cp (not a
    mate); ``None`` for the others."""
    if label.id is None or abs(label.ce) > 1500 or not label.quiet():
        return None
    return label.ce if label.board.turn == chess.WHITE else -label.ce


def games_of(path: Path, lines: int) -> dict[str, Game]:
    """The first ``lines`` labels by game (the id without its last field), each quiet position with the mentor's
    score from White's view (cp) and its ply in the game; labels beyond 1,500 cp, mates and positions that are not
    quiet left out."""
    games: dict[str, Game] = {}
    for i, label in enumerate(read_labels(path)):
        if i >= lines:
            break
        if (white := white_score(label)) is None or label.id is None:
            continue
        game, _, ply = label.id.rpartition(":")
        games.setdefault(game, []).append((label.board, white, int(ply)))
    return games


def pairs_of(games: dict[str, Game], k: int, lo: int, hi: int, most: int, rng: np.random.Generator
             ) -> list[Pair]:
    """Up to ``most`` pairs (a seeded sample) of quiet positions of one game ``k`` plies apart whose mentor's scores
    differ by ``lo`` to ``hi`` cp (``hi`` excluded)."""
    found = []
    for g in games.values():
        by_ply = {p[2]: p for p in g}
        found += [(a, b) for a in g if (b := by_ply.get(a[2] + k)) is not None and lo <= abs(a[1] - b[1]) < hi]
    return [found[i] for i in sorted(rng.choice(len(found), min(most, len(found)), replace=False))]


def sibling_pairs(games: dict[str, Game], roots: int, depth: int, jobs: int) -> dict[tuple[int, int], list[Pair]]:
    """Pairs of quiet children of one position (see the module docstring) by band of the mentor's difference: up to
    ``roots`` positions, evenly spread over ``games``, each child labelled by Stockfish at ``depth``."""
    stockfish = find_stockfish()
    if stockfish is None:
        raise SystemExit("--siblings needs Stockfish (apt-get install stockfish)")
    parents = [p[0] for g in games.values() for p in g if abs(p[1]) <= 400]
    parents = parents[::max(1, len(parents) // roots)][:roots]
    samples = []
    for i, b in enumerate(parents):
        for m in b.legal_moves:
            if not (b.is_capture(m) or m.promotion or b.gives_check(m)):
                child = b.copy(stack=False)
                child.push(m)
                samples.append(Sample(child, "siblings", id=f"{i}:{m.uci()}"))
    children: dict[str, list[tuple[chess.Board, int, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        label_samples(samples, MentorConfig("uci", command=(stockfish,), depth=depth), Path(tmp) / "siblings.epd",
                      jobs=jobs)
        for label in read_labels(Path(tmp) / "siblings.epd"):
            if (white := white_score(label)) is not None and label.id is not None:
                children.setdefault(label.id.split(":")[0], []).append((label.board, white, 0))
    bands: dict[tuple[int, int], list[Pair]] = {band: [] for band in SIBLING_BANDS}
    for kids in children.values():
        for x, y in itertools.combinations(kids, 2):
            for lo, hi in SIBLING_BANDS:
                if lo <= abs(x[1] - y[1]) < hi:
                    bands[lo, hi].append((x, y))
    return bands


def agreement(order: Comparator, pairs: list[Pair]) -> str:
    """The share of ``pairs`` ``order`` orders as the mentor's scores (White's view) do."""
    return f"{np.mean([order.better(a[0], b[0]) == (a[1] > b[1]) for a, b in pairs]):.3f}" if pairs else "–"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="+", help="player specs: expert, organism:PATH, pnet:PATH, net:PATH, cmp:PATH")
    ap.add_argument("--labels", type=Path, default=ROOT / "results" / "data" / "sf-selfplay-d8" / "labels.epd.gz",
                    help="self-play labels with game ids (mimic datagen; default: results/data/sf-selfplay-d8, "
                         "made by bash results/data/run.sh sf-selfplay-d8)")
    ap.add_argument("--lines", type=int, default=30_000)
    ap.add_argument("--pairs", type=int, default=800)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--siblings", type=int, default=0, metavar="N",
                    help="also pairs of siblings: the quiet children of N positions, labelled by Stockfish")
    ap.add_argument("--depth", type=int, default=8, help="the siblings' Stockfish depth")
    ap.add_argument("--jobs", type=int, default=2, help="Stockfish processes labelling the siblings")
    args = ap.parse_args()
    if not args.labels.exists():
        raise SystemExit(f"{args.labels} is missing (bash results/data/run.sh sf-selfplay-d8 makes it)")
    players = [PLAYERS(s) for s in args.specs]
    orders = [as_comparator(p) for p in players]  # an evaluation orders by its score from White's view
    games = games_of(args.labels, args.lines)
    rng = np.random.default_rng(args.seed)
    shown = args.labels.resolve().relative_to(ROOT) if args.labels.resolve().is_relative_to(ROOT) else args.labels
    print(f"Pairs of positions of one game from the first {args.lines:,} lines of {shown} ({len(games)} games), "
          "ordered by the mentor's score; the share each player orders the same way.\n")
    print("| plies apart | mentor's difference (cp) | pairs | " + " | ".join(args.specs) + " |")
    print("|---|---|---|" + "---|" * len(args.specs))
    for k, lo, hi in ROWS:
        pairs = pairs_of(games, k, lo, hi, args.pairs, rng)
        print(f"| {k} | {lo}-{hi} | {len(pairs)} | " + " | ".join(agreement(o, pairs) for o in orders) + " |",
              flush=True)
    if args.siblings:
        for (lo, hi), pairs in sibling_pairs(games, args.siblings, args.depth, args.jobs).items():
            print(f"| 0 (siblings) | {lo}-{hi} | {len(pairs)} | " + " | ".join(agreement(o, pairs) for o in orders)
                  + " |", flush=True)
    positions = [p for g in games.values() for p in g if abs(p[1]) >= 50]
    positions = [positions[i] for i in rng.choice(len(positions), min(args.pairs, len(positions)), replace=False)]
    for spec, p in zip(args.specs, players, strict=True):
        if isinstance(p, Comparator):
            pairs = pairs_of(games, 2, 30, 1500, args.pairs, rng)
            both = np.mean([p.better(a[0], b[0]) == p.better(b[0], a[0]) for a, b in pairs])
            draw = np.mean([p.better(b, b.mirror()) == (w > 0) for b, w, _ in positions])
            print(f"\n{spec}: better(a, b) == better(b, a) in {both:.3f} of {len(pairs)} pairs (2 plies apart); "
                  f"better(p, p.mirror()) agrees with the sign of the mentor's score in {draw:.3f} of {len(positions)} "
                  "positions (|score| >= 50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What evaluation noise costs a search (issue 26's diagnostic): the expert plus position-keyed noise against the
expert, at equal nodes.

    python benchmarks/noisy_expert.py SIGMA [SIGMA ...] [--games 40] [--nodes 2000] [--jobs 2] [--smooth]
        [--out DIR]

For each SIGMA (centipawns), the player ``noisy`` evaluates a position as the built-in expert does plus a noise
drawn from a normal distribution of standard deviation SIGMA, seeded by the position's Zobrist key (so the same
position always gets the same noise: a deterministic evaluation whose error is independent from one position to the
next, as an overfitted net's can be; its mean absolute error is SIGMA x 0.80). With ``--smooth`` the noise is keyed
by the material and pawn structure only (the same for every position sharing them: an error that a search cannot
exploit by shuffling pieces). It plays ``--games`` games against the expert at ``--nodes`` nodes a move, the shipped
openings, both colours, and the score line is printed (PGNs in ``--out``). A learned evaluation whose mean absolute
error against the expert is E should, if its errors were this noise, score about what SIGMA = E / 0.8 scores here.
Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import chess.polyglot
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evolve.players import PLAYERS
from organisms import Expert
from search.games.game import TimeControl
from search.games.match import MatchSettings, run_match
from search.games.openings import default_openings_path, load_openings
from search.players.spec import PlayerKind, PlayerRegistry, PlayerSpec


class NoisyExpert:
    """The expert's evaluation plus deterministic position-keyed Gaussian noise (centipawns, side to move)."""

    name = "noisy-expert"

    def __init__(self, sigma: float, smooth: bool = False) -> None:
        self.sigma, self.smooth = sigma, smooth
        self.expert = Expert()

    def _key(self, board: chess.Board) -> int:
        if not self.smooth:
            return chess.polyglot.zobrist_hash(board)
        # Material and pawns only, from the side to move's view (so a colour mirror gets the same noise).
        us, them = board.turn, not board.turn
        counts = [len(board.pieces(pt, c)) for c in (us, them) for pt in chess.PIECE_TYPES[:5]]
        pawns = [int(board.pieces(chess.PAWN, c).mirror() if c == chess.BLACK else board.pieces(chess.PAWN, c))
                 for c in (us, them)]
        return hash((tuple(counts), *pawns)) & ((1 << 63) - 1)

    def evaluate(self, board: chess.Board) -> int:
        noise = np.random.default_rng(self._key(board)).normal(0.0, self.sigma)
        return self.expert.evaluate(board) + round(noise)


def _noisy(spec: PlayerSpec) -> NoisyExpert:
    text = spec.arg or "0"
    smooth = text.startswith("s")
    return NoisyExpert(float(text.lstrip("s")), smooth)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sigmas", type=float, nargs="+", help="noise standard deviations, centipawns")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smooth", action="store_true", help="noise keyed by material and pawns only")
    ap.add_argument("--out", type=Path, default=Path("/tmp/noisy-expert"))
    args = ap.parse_args()
    registry = PlayerRegistry([*PLAYERS, PlayerKind("noisy", "path", "the expert plus position-keyed noise", _noisy)])
    args.out.mkdir(parents=True, exist_ok=True)
    openings = load_openings(default_openings_path())
    for sigma in args.sigmas:
        arg = f"{'s' if args.smooth else ''}{sigma:g}"
        pgn = args.out / f"noisy-{arg}.pgn"
        summary = run_match(MatchSettings(f"noisy:{arg}", "expert", games=args.games, jobs=args.jobs,
                                          openings=openings, tc=TimeControl(nodes=args.nodes)),
                            registry, pgn, resume=True)
        n = summary.wins + summary.draws + summary.losses
        score = (summary.wins + summary.draws / 2) / max(n, 1)
        print(f"sigma {sigma:g} cp{' (smooth)' if args.smooth else ''}: +{summary.wins} ={summary.draws} "
              f"-{summary.losses} of {n}, score {score:.3f} against the expert at {args.nodes} nodes",
              flush=True)


if __name__ == "__main__":
    main()

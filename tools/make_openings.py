"""Make the default opening set (search/data/openings.epd) from the champions' games.

    python tools/make_openings.py [--plies 8] [--min-games 5] [--count 50] [--depth 16] [--max-cp 40]

How the openings are chosen:

1. The position after ``--plies`` plies (8: four moves each) of every game in data/player-games/*.pgn.
2. Positions reached in at least ``--min-games`` different games: established opening theory that world
   champions chose, not a one-off.
3. Balanced: Debian's Stockfish at ``--depth`` scores them within ``--max-cp`` centipawns of 0.
4. The ``--count`` most frequent of those, so that the set covers the main openings in proportion to
   their use (each becomes a pair of games, colours swapped, in a match).

The output EPD carries ``id`` and a ``c0`` comment: the moves, how many games reached the position, and
Stockfish's score.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import chess

from mentor.labeller import find_stockfish
from mentor.uci_client import UciEngine
from search.formats.pgn import read_games
from search.runtime.provenance import provenance

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plies", type=int, default=8)
    ap.add_argument("--min-games", type=int, default=5)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--max-cp", type=int, default=40)
    ap.add_argument("--out", default=str(ROOT / "search" / "data" / "openings.epd"))
    args = ap.parse_args()
    stockfish = find_stockfish()
    if stockfish is None:
        print("Stockfish is needed to check the balance (apt-get install stockfish)", file=sys.stderr)
        return 2
    seen: Counter[str] = Counter()
    lines: dict[str, str] = {}
    games = 0
    for path in sorted((ROOT / "data" / "player-games").glob("*.pgn")):
        for _, game in read_games(path, on_error=lambda msg: None):
            board = game.board()
            moves = []
            for move in game.mainline_moves():
                if board.ply() == args.plies:
                    break
                moves.append(board.san(move))
                board.push(move)
            if board.ply() < args.plies or board.is_game_over():
                continue
            games += 1
            key = board.epd()
            seen[key] += 1
            lines.setdefault(key, " ".join(
                (f"{i // 2 + 1}." if i % 2 == 0 else "") + m for i, m in enumerate(moves)).replace(". ", "."))
    popular = [(key, n) for key, n in seen.most_common() if n >= args.min_games]
    engine = UciEngine([stockfish])
    chosen = []
    for key, n in popular:
        board = chess.Board()
        board.set_epd(key)
        a = engine.analyse(board.fen(), depth=args.depth)
        if a.mate is None and a.score is not None and abs(a.score) <= args.max_cp:
            white = a.score if board.turn == chess.WHITE else -a.score
            chosen.append((key, n, white))
        if len(chosen) == args.count:
            break
    engine_name = engine.name
    engine.close()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:  # pure EPD: what describes the file goes in the JSON beside it
        for i, (key, n, white) in enumerate(chosen, 1):
            fh.write(f'{key} id "open.{i:03d}"; c0 "{lines[key]} ({n} games, Stockfish {white / 100:+.2f})";\n')
    side = {"description": f"{len(chosen)} balanced openings: positions after {args.plies} plies reached in at least "
                           f"{args.min_games} of the {games} champion games, |Stockfish depth {args.depth}| <= "
                           f"{args.max_cp} cp, most frequent first.",
            "command": f"python tools/make_openings.py --plies {args.plies} --min-games {args.min_games} --count "
                       f"{args.count} --depth {args.depth} --max-cp {args.max_cp}",
            "mentor": engine_name, "provenance": provenance()}
    Path(f"{out}.json").write_text(json.dumps(side, indent=2) + "\n")
    print(f"{len(chosen)} openings from {len(popular)} popular positions of {games} games -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

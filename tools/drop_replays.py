"""Drop the games of a match PGN that replay an opening already played with the same colours, so that a resumed
match (``mimic match --resume`` with more openings) plays new games in their rounds.

    python tools/drop_replays.py results/pupil-study/sp200k/vs-expert-2000n.pgn

Why: a match cycles through its openings, and at a fixed number of nodes mimic's engines search the same way every
time, so 200 games from the 50 shipped openings are 100 distinct games played twice (docs/playing.md). A game's key is
its start position (the ``FEN`` header, else the standard start) and its two players by colour; the first game of
each key stays, in file order, every later one is dropped. Each game's bytes are kept as they are (read by the
match's own reader, search.games.pgnlog.read_pgn_games; a torn game at the end is left out, as a resumed match drops
it). Prints what it did; rewrites the file (atomically) only when it drops something. Exit status: 0 when nothing
was dropped, 3 when some games were (so a script knows their rounds are to be played again), 2 on bad usage.
"""

from __future__ import annotations

import sys
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from search.games.pgnlog import read_pgn_games  # noqa: E402
from search.runtime.atomic import atomic_open  # noqa: E402


def key(headers: chess.pgn.Headers) -> tuple[str, str, str]:
    """(start FEN, White, Black) of one game's headers."""
    return headers.get("FEN", "startpos"), headers.get("White", ""), headers.get("Black", "")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[0])
    games, torn = read_pgn_games(path)
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for chunk, headers in games:
        if (k := key(headers)) not in seen:
            seen.add(k)
            kept.append(chunk)
    dropped = len(games) - len(kept)
    print(f"{path}: {len(games)} games, {dropped} replaying an earlier opening and colours dropped")
    if dropped or torn:
        with atomic_open(path, "wb") as fh:
            fh.write(b"".join(kept))
    return 3 if dropped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

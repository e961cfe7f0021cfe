"""Drop the games of a match PGN that replay an opening already played with the same colours, so that a resumed
match (``mimic match --resume`` with more openings) plays new games in their rounds.

    python tools/drop_replays.py results/pupil-study/sp200k/vs-expert-2000n.pgn

Why: a match cycles through its openings, and at a fixed number of nodes mimic's engines search the same way every
time, so 200 games from the 50 shipped openings are 100 distinct games played twice (docs/playing.md). A game's key is
its start position (the ``FEN`` header, else the standard start) and its two players by colour; the first game of
each key stays, in file order, every later one is dropped. Each game's text is kept byte for byte. Prints what it
did; rewrites the file (through a temporary file beside it) only when it drops something. Exit status: 0 when
nothing was dropped, 3 when some games were (so a script knows their rounds are to be played again), 2 on bad usage.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

GAME_START = re.compile(r"^\[Event ", re.M)
HEADER = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]', re.M)


def split_games(text: str) -> list[str]:
    """The PGN text of each game, as written (every game starts at an ``[Event`` line)."""
    starts = [m.start() for m in GAME_START.finditer(text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def key(game: str) -> tuple[str, str, str]:
    """(start FEN, White, Black) of one game's text."""
    headers = dict(HEADER.findall(game.split("\n\n", 1)[0]))
    return headers.get("FEN", "startpos"), headers.get("White", ""), headers.get("Black", "")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[0])
    text = path.read_text()
    games = split_games(text)
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for game in games:
        if key(game) not in seen:
            seen.add(key(game))
            kept.append(game)
    dropped = len(games) - len(kept)
    print(f"{path}: {len(games)} games, {dropped} replaying an earlier opening and colours dropped")
    if dropped:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text[: text.find(games[0])] + "".join(kept))
        os.replace(tmp, path)
    return 3 if dropped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

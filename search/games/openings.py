"""Openings: where the games of a match or a round robin start.

Owns :class:`Opening` (a root FEN plus the opening moves played before the players take over) and reading
openings from an EPD or PGN file; the openings shipped with mimic are ``search/data/openings.epd``. Imports
chess and :mod:`search.formats` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess

from search.formats.epd import read_epd
from search.formats.pgn import read_games


@dataclass(frozen=True)
class Opening:
    """A start: the root ``fen`` plus the opening ``moves`` (UCI) played before the engines take over."""

    name: str
    fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()

    def board(self) -> chess.Board:
        b = chess.Board(self.fen)
        for m in self.moves:
            b.push_uci(m)
        return b


def load_openings(path: str | Path, on_error: Callable[[str], None] | None = None) -> list[Opening]:
    """Openings from an EPD file (each position) or a PGN file (each game's moves from its start); either may be gzip
    (``.pgn.gz``, ``.epd.gz``: read as the plain one)."""
    path = Path(path)
    if path.name.lower().removesuffix(".gz").endswith(".pgn"):
        out = []
        for line, game in read_games(path, on_error):
            moves = tuple(m.uci() for m in game.mainline_moves())
            name = game.headers.get("Opening") or game.headers.get("ECO") or f"{path.name}:{line}"
            out.append(Opening(name, game.board().fen(), moves))
        return out
    report = (lambda e: on_error(str(e))) if on_error else None
    return [Opening(r.id, r.board.fen()) for r in read_epd(path, report)]


def default_openings_path() -> Path:
    """The openings shipped with mimic: ``search/data/openings.epd``."""
    return Path(__file__).resolve().parent.parent / "data" / "openings.epd"


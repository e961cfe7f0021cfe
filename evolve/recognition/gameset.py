"""Game sets: the games of ``mimic recognize``'s PGN files, once each, and the game sides of the trained players.

Every game of every PGN file given is read once (:func:`read_game_set`); a game that appears in two files (two
players' files, say) counts once: games are deduplicated by a *game key*, the BLAKE2 hash of the ``Date`` and
``Result`` headers, the starting position and the moves (UCI). Each side of a game is a *game side*; a side belongs
to a trained player when its ``White``/``Black`` header names that player (:func:`evolve.data.moves.player_matches`,
or equals one of the player's aliases, ``--alias "NAME=Header text"``); a side that names two of the players is
left out and counted.

Also :data:`Progress`, the callback through which the recognition library reports its work (it never prints).

May import chess, numpy, :mod:`search.formats.pgn`, :mod:`evolve.data.moves` and :mod:`organisms.feature_cache`
(the parsed files' cache).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import chess
import chess.pgn
import numpy as np

from evolve.data.moves import normal_name, player_matches
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from search.formats.pgn import read_games
from search.runtime.errors import InputError, MimicError, SettingsError
from search.runtime.files import read_regular

Progress: TypeAlias = Callable[[str, int, int], None]
"""``on_progress(stage, done, total)``: called with ``done`` 0 when a stage starts, then as its work units complete,
the last call of a stage with ``done == total``. The stages and their units are listed by each entry point
(:func:`evolve.recognition.training.train`, :func:`evolve.recognition.classification.classify`,
:func:`evolve.recognition.experiments.experiment`)."""

GAMES = "games"
"""The stage of reading the PGN files; its units are the files."""


class GameFileError(InputError, OSError):
    """A PGN file of games that cannot be read (missing, no permission): ``FILE: reason``, as ``OSError`` says it."""


class GameSetError(InputError, ValueError):
    """Games that cannot be trained on: a player without games, without training games or training positions; one
    line naming the player and what to change."""


@dataclass
class Side:
    """One side of one game: the game's index in :attr:`GameSet.games`, the colour, the header text, and
    the trained player it belongs to (``None`` for none)."""

    game: int
    color: bool
    header: str
    player: str | None


@dataclass
class GameSet:
    """Well-formed games (deduplicated when read for training), their keys and ``FILE:LINE`` sources, and
    the game sides that count."""

    games: list[tuple[str, list[str]]] = field(default_factory=list)  # (starting FEN, UCI moves)
    keys: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    files: list[int] = field(default_factory=list)  # per game: the index of its file in the paths read
    sides: list[Side] = field(default_factory=list)
    read: int = 0  # well-formed games read, duplicates included
    duplicates: int = 0
    ambiguous: int = 0  # sides naming two trained players, left out
    malformed: int = 0
    errors: list[str] = field(default_factory=list)


def parse_aliases(texts: Sequence[str]) -> dict[str, list[str]]:
    """``--alias "NAME=Header text"`` options as {NAME: [header texts]}; a text without ``=`` is refused
    (:class:`~search.runtime.errors.SettingsError`).

    >>> parse_aliases(["Tal=Tal, M.", "Tal=M. Tal"])
    {'Tal': ['Tal, M.', 'M. Tal']}
    """
    out: dict[str, list[str]] = {}
    for text in texts:
        name, eq, header = text.partition("=")
        if not eq or not name.strip() or not header.strip():
            raise SettingsError(f"--alias takes NAME=Header text, got {text!r}")
        out.setdefault(name.strip(), []).append(header.strip())
    return out


def side_player(header: str, players: Sequence[str], aliases: dict[str, list[str]],
                exclude: Sequence[str] = ()) -> list[str]:
    """The trained players a ``White``/``Black`` header names: by :func:`player_matches`, or equal (case and
    spaces aside) to one of the player's aliases; none when the header equals one of ``exclude`` (a
    namesake: ``--exclude "Anand,Vignesh"``).

    >>> side_player("Tal, Mihail", ["Tal", "Petrosian"], {})
    ['Tal']
    >>> side_player("M. Tal", ["Tal", "Petrosian"], {"Tal": ["M. Tal"]})
    ['Tal']
    """
    h = normal_name(header)
    if any(normal_name(e) == h for e in exclude):
        return []
    return [p for p in players
            if player_matches(header, p) or any(normal_name(a) == h for a in aliases.get(p, ()))]


def game_key(game: chess.pgn.Game, fen: str, moves: Sequence[str]) -> str:
    """The key that tells one game from another across files: the ``Date`` and ``Result`` headers, the
    starting position and the moves (BLAKE2, 16 bytes, hex)."""
    h = game.headers
    text = "|".join([h.get("Date", "?").strip(), h.get("Result", "*").strip(), fen, " ".join(moves)])
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def read_game_set(paths: Sequence[str | Path], players: Sequence[str], aliases: dict[str, list[str]] | None = None,
                  *, dedupe: bool = True, all_sides: bool = False, exclude: Sequence[str] = (),
                  on_error: Callable[[str], None] | None = None, on_progress: Progress | None = None,
                  cache: Path | None = None) -> GameSet:
    """Every well-formed game of ``paths`` (malformed ones reported ``FILE:LINE: reason`` and skipped), once
    each when ``dedupe``; the sides of trained players (every side when ``all_sides``, for queries); a header
    in ``exclude`` names no player. Each file's games are parsed once and kept in ``cache`` (a folder; see
    :func:`parsed_games`) when given. ``on_progress``: stage :data:`GAMES`, one unit a file."""
    aliases = aliases or {}
    gs = GameSet()
    seen: set[str] = set()

    def bad(msg: str) -> None:
        gs.malformed += 1
        gs.errors.append(msg)
        if on_error is not None:
            on_error(msg)

    if on_progress is not None:
        on_progress(GAMES, 0, len(paths))
    for done, path in enumerate(paths, 1):
        for line, fen, moves, key, white, black in parsed_games(path, bad, cache):
            gs.read += 1
            if dedupe and key in seen:
                gs.duplicates += 1
                continue
            seen.add(key)
            index = len(gs.games)
            gs.games.append((fen, moves))
            gs.keys.append(key)
            gs.sources.append(f"{path}:{line}")
            gs.files.append(done - 1)
            for color, header in ((chess.WHITE, white), (chess.BLACK, black)):
                named = side_player(header, players, aliases, exclude)
                if len(named) > 1:
                    gs.ambiguous += 1
                    continue
                if named or all_sides:
                    gs.sides.append(Side(index, color, header, named[0] if named else None))
        if on_progress is not None:
            on_progress(GAMES, done, len(paths))
    return gs


GAMES_VERSION = 1
"""Bumped whenever what :func:`parsed_games` keeps of a file changes."""

_PARSED = ("line", "fen", "moves", "game_key", "white", "black", "errors")
"""The arrays of a parsed file's cache (``key`` and ``digest`` are the cache's own)."""

Parsed = tuple[int, str, list[str], str, str, str]
"""A well-formed game as :func:`parsed_games` gives it: (first line, starting FEN, UCI moves, game key, ``White``
and ``Black`` headers)."""


def parsed_games(path: str | Path, bad: Callable[[str], None], cache: Path | None = None) -> list[Parsed]:
    """Every well-formed game of the PGN file ``path`` (:func:`search.formats.pgn.read_games`; each malformed one
    reported to ``bad`` as ``FILE:LINE: reason``). With ``cache`` (a folder, ``$MIMIC_CACHE/games``), read back from
    one ``.npz`` keyed by the file's bytes and its path (:func:`organisms.feature_cache.save_keyed_npz`), its
    malformed games reported again; parsing 20,000 games takes a minute, reading them back a second. A file that
    cannot be read is a :class:`GameFileError`."""
    key = None
    if cache is not None:
        try:
            data = read_regular(path, "PGN file")
        except OSError:
            data = None  # read_games reports it
        if data is not None:
            digest = hashlib.blake2b(data, digest_size=20)
            digest.update(f"|{path}|games-v{GAMES_VERSION}".encode())
            key = digest.hexdigest()
            got = load_keyed_npz(cache / f"games-{key}.npz", _PARSED, key)
            if got is not None and len({len(got[n]) for n in _PARSED if n != "errors"}) == 1:
                for msg in got["errors"].tolist():
                    bad(str(msg))
                return [(int(line), str(fen), str(moves).split(), str(k), str(w), str(b)) for line, fen, moves, k, w, b
                        in zip(*(got[n].tolist() for n in _PARSED[:-1]), strict=True)]
    errors: list[str] = []

    def report(msg: str) -> None:
        errors.append(msg)
        bad(msg)

    out: list[Parsed] = []
    try:
        for line, game in read_games(path, report):
            fen = game.board().fen()
            moves = [m.uci() for m in game.mainline_moves()]
            out.append((line, fen, moves, game_key(game, fen, moves), game.headers.get("White", ""),
                        game.headers.get("Black", "")))
    except OSError as exc:
        if isinstance(exc, MimicError):
            raise
        raise GameFileError(exc.errno, exc.strerror or str(exc), exc.filename if exc.filename is not None
                            else str(path)) from exc
    if cache is not None and key is not None:
        columns = list(zip(*out, strict=True)) if out else [()] * 6
        arrays = {"line": np.array(columns[0], dtype=np.int64), "errors": np.array(errors, dtype=str),
                  **{n: np.array([" ".join(c) if n == "moves" else c for c in col], dtype=str)
                     for n, col in zip(_PARSED[1:-1], columns[1:], strict=True)}}
        save_keyed_npz(cache / f"games-{key}.npz", arrays, _PARSED, key)
    return out

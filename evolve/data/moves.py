"""A player's moves as training data for the move-agreement objective (``--objective moves``).

From a PGN file and a player's name, :func:`load_moves` builds the positions where that player moved
(from ply ``skip_plies`` + 1 on, positions with one legal move dropped) and, for each, every legal move's
child *resolved* to a quiet position by a capture sequence that does not depend on any organism: the
capture-only quiescence of :func:`mentor.target.quiet_leaf` (material values, MVV-LVA order, stand
pat; none from a child in check). An organism's score of a move is then linear in its weights:
``sign · weights · features(resolved child)``, where ``sign`` turns the resolved child's side-to-move
view into the mover's view (−1 when the opponent is to move there, the usual case after an even number
of captures; +1 after an odd number). A move that mates scores :data:`MATE_SCORE` and one that
stalemates 0, whatever the organism (their children are game over: no evaluation applies).

Children are stored move by move in ``board.legal_moves`` order, position after position, in one
(children, 9) array of :func:`organisms.features.bitboard_row` rows with ``offsets`` marking each
position's segment; ``played`` is the index (into the children) of the move the player made. Replaying
and resolving the games runs in :func:`search.runtime.workers.parallel_map` workers; the result is cached as one
``.npz`` (no pickle) under ``$MIMIC_CACHE/moves/``, keyed by a BLAKE2 hash of the PGN file's bytes, the
player's name, ``skip_plies`` and :data:`FORMAT_VERSION`, sealed with a digest keyed with the user's secret
cache key (:func:`organisms.feature_cache.save_keyed_npz`). The features of the resolved children are
cached by :func:`organisms.features.feature_matrix`, keyed by the rows and the feature set's version.

Malformed games (an illegal move, a bad FEN header, another variant) are reported as
``FILE:LINE: reason`` (:func:`search.formats.pgn.read_games`), counted and skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn
import numpy as np

from evolve.data.cache import file_digest
from mentor.target import quiet_leaf
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.features import bitboard_row, feature_matrix
from search.formats.pgn import read_games
from search.runtime.cachekey import cache_root
from search.runtime.errors import SettingsError
from search.runtime.workers import parallel_map

FORMAT_VERSION = 2
"""Bumped whenever what :func:`extract_moves` computes or how it is stored changes (resolution rules, stored
arrays; 2: a keyed digest instead of a checksum)."""

MATE_SCORE = 30_000.0
"""The mover's score of a move that mates (centipawns): above any evaluation, so it is always chosen."""

CHUNK_GAMES = 50
"""Games per worker task."""

MAX_ERRORS = 1000
"""Malformed games whose messages are kept (all are counted)."""

_ARRAYS = ("rows", "sign", "fixed", "offsets", "played", "game", "counts", "errors")


def normal_name(text: str) -> str:
    """Case folded, runs of white space made one space, none around commas."""
    return re.sub(r"\s*,\s*", ",", " ".join(text.split())).casefold()


def player_matches(header: str, name: str) -> bool:
    """Whether a PGN ``White``/``Black`` header names the player ``name``, as a person would expect.

    A header matches when it equals ``name``, or when its surname (the part before the first comma)
    equals ``name``; case, runs of spaces and spaces around the comma are ignored. Never a substring:
    ``Tal`` matches ``Tal, Mihail`` but not ``Tseshkovsky, Vitaly``. A header naming several players
    (a consultation or engine-assisted game: ``Alekhine/Reilly``, ``Anand,V / FRITZ7``, any header with
    a ``/`` or a ``:``, as in ``Anand,Viswanathan:Borgialli,Mihail Harasic``) matches only when equal to
    ``name``. Namesakes share a surname: ``Anand`` matches ``Anand,Vignesh`` too, and ``Kasparov`` matches
    ``Kasparov,Georgy``; give the full header (``Anand,V``) to keep only one spelling, or leave the
    namesake's header out (``mimic recognize --exclude``).

    >>> player_matches("Tal, Mihail", "Tal"), player_matches("Tseshkovsky, Vitaly", "Tal")
    (True, False)
    >>> player_matches("Karpov,Ana", "karpov"), player_matches("Alekhine/Reilly", "Alekhine")
    (True, False)
    """
    h, n = normal_name(header), normal_name(name)
    if not n:
        return False
    if h == n:
        return True
    if "/" in h or ":" in h:
        return False
    surname, comma, _ = h.partition(",")
    return bool(comma) and surname == n


def player_colors(game: chess.pgn.Game, name: str) -> list[chess.Color]:
    """The colours ``name`` played in ``game`` (:func:`player_matches` on the White and Black headers;
    both when both match, as in one Karpov game of ``data/player-games``)."""
    return [c for c, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
            if player_matches(game.headers.get(tag, ""), name)]


def resolve_child(board: chess.Board, move: chess.Move) -> tuple[tuple[int, ...], float, float]:
    """The child of ``board`` after ``move``, resolved (see the module docstring): its quiet leaf's
    :func:`~organisms.features.bitboard_row`, the sign that turns the leaf's side-to-move view into the
    mover's, and the mover's fixed score (:data:`MATE_SCORE` for mate, 0 for stalemate, NaN otherwise)."""
    mover = board.turn
    child = board.copy(stack=False)
    child.push(move)
    fixed = float("nan")
    if child.is_check():
        if child.is_checkmate():
            fixed = MATE_SCORE
    elif not any(child.generate_legal_moves()):
        fixed = 0.0
    leaf, _ = quiet_leaf(child)
    return bitboard_row(leaf), (1.0 if leaf.turn == mover else -1.0), fixed


@dataclass
class MoveData:
    """A player's positions and their resolved children (see the module docstring)."""

    rows: np.ndarray  # (M, 9) uint64 bitboard rows of the resolved children
    sign: np.ndarray  # (M,) float64 +1 / -1: the leaf's side-to-move view -> the mover's
    fixed: np.ndarray  # (M,) float64 mover's fixed score (mate, stalemate), NaN for an evaluated child
    offsets: np.ndarray  # (N + 1,) int64: position i's children are offsets[i]:offsets[i + 1]
    played: np.ndarray  # (N,) int64 index into the children of the move the player made
    game: np.ndarray  # (N,) int64 index of the position's game among the player's games
    games: int = 0  # well-formed games read
    player_games: int = 0  # of which the player played
    single_move: int = 0  # player positions dropped: one legal move
    malformed: int = 0
    errors: list[str] = field(default_factory=list)  # FILE:LINE: reason (the first MAX_ERRORS)
    source: str = ""
    player: str = ""
    skip_plies: int = 10
    cached: bool = False

    @property
    def n(self) -> int:
        return len(self.played)

    def describe(self) -> str:
        return (f"{self.games} games in {self.source}, {self.player_games} of them by {self.player!r}: "
                f"{self.n} positions where the player moved (plies after the first {self.skip_plies}; "
                f"{self.single_move} with one legal move left out), {len(self.rows)} resolved children "
                f"({len(self.rows) / max(self.n, 1):.1f} a position), {self.malformed} malformed games skipped")

    def malformed_report(self, limit: int = 5) -> list[str]:
        """For the console: how many games were skipped as malformed, and the first ``limit`` of them
        as ``FILE:LINE: reason`` (empty when none were)."""
        if not self.malformed:
            return []
        more = f" (first {limit} shown)" if self.malformed > limit else ""
        return [f"{self.source}: {self.malformed} malformed games skipped{more}:",
                *(f"  {e}" for e in self.errors[:limit])]


def extract_games(games: list[tuple[int, str, list[str], list[bool]]], skip_plies: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Replay and resolve games given as (index, FEN, UCI moves, player's colours); runs in a worker.
    Returns rows, sign, fixed, segment lengths, played (index within its segment), game index, and the
    count of single-move positions."""
    rows: list[tuple[int, ...]] = []
    sign: list[float] = []
    fixed: list[float] = []
    lengths: list[int] = []
    played: list[int] = []
    game_of: list[int] = []
    single = 0
    for index, fen, moves, colors in games:
        board = chess.Board(fen)
        for ply, uci in enumerate(moves):
            move = chess.Move.from_uci(uci)
            if ply >= skip_plies and board.turn in colors:
                legal = list(board.legal_moves)
                if len(legal) == 1:
                    single += 1
                else:
                    for m in legal:
                        r, s, f = resolve_child(board, m)
                        rows.append(r)
                        sign.append(s)
                        fixed.append(f)
                    lengths.append(len(legal))
                    played.append(legal.index(move))
                    game_of.append(index)
            board.push(move)
    return (np.array(rows, dtype=np.uint64).reshape(-1, 9), np.array(sign), np.array(fixed),
            np.array(lengths, dtype=np.int64), np.array(played, dtype=np.int64), np.array(game_of, dtype=np.int64),
            single)


def moves_cache_dir() -> Path:
    """``$MIMIC_CACHE/moves`` (``~/.cache/mimic/moves`` by default), beside the feature cache."""
    return cache_root() / "moves"


def moves_key(path: str | Path, player: str, skip_plies: int) -> str:
    """The cache key of a PGN file's extracted moves: its content, the player, the skipped plies, the format."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(file_digest(path).encode())
    digest.update(f"|player={normal_name(player)}|skip={skip_plies}|moves-v{FORMAT_VERSION}".encode())
    return digest.hexdigest()


def extract_moves(path: str | Path, player: str, skip_plies: int = 10, n_jobs: int = 1,
                  use_cache: bool = True, cache_dir: str | Path | None = None,
                  on_error: Callable[[str], None] | None = None) -> MoveData:
    """The player's positions and resolved children in the PGN file ``path`` (see the module
    docstring), from the cache when it holds them. ``on_error`` receives each malformed game's
    ``FILE:LINE: reason`` as it is read (not on a cache hit: the data's ``errors`` keep them)."""
    if skip_plies < 0:
        raise SettingsError(f"skip_plies is a number of plies (>= 0), got {skip_plies}")
    if not normal_name(player):
        raise SettingsError("the move objective needs a player's name (--player)")
    cache_path = key = None
    if use_cache:
        key = moves_key(path, player, skip_plies)
        cache_path = Path(cache_dir or moves_cache_dir()) / f"{key}.npz"
        cached = _read_cached(cache_path, key)
        if cached is not None:
            cached.errors = [f"{path}:{e}" for e in cached.errors]
            cached.source, cached.player, cached.skip_plies = str(path), player, skip_plies
            return cached
    errors: list[str] = []
    prefix = f"{path}:"

    def bad(msg: str) -> None:
        errors.append(msg[len(prefix):] if msg.startswith(prefix) else msg)  # stored as LINE: reason
        if on_error is not None:
            on_error(msg)

    games: list[tuple[int, str, list[str], list[bool]]] = []
    n_games = 0
    for _, game in read_games(path, bad):
        n_games += 1
        colors = player_colors(game, player)
        if colors:
            games.append((len(games), game.board().fen(), [m.uci() for m in game.mainline_moves()], colors))
    chunks = [games[i:i + CHUNK_GAMES] for i in range(0, len(games), CHUNK_GAMES)]
    parts = list(parallel_map(extract_games, chunks, n_jobs, args=(skip_plies,)))
    lengths = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    played = (np.concatenate([p[4] for p in parts]) if parts else np.zeros(0, dtype=np.int64)) + offsets[:-1]
    data = MoveData(
        np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, 9), dtype=np.uint64),
        np.concatenate([p[1] for p in parts]) if parts else np.zeros(0),
        np.concatenate([p[2] for p in parts]) if parts else np.zeros(0),
        offsets, played.astype(np.int64),
        np.concatenate([p[5] for p in parts]) if parts else np.zeros(0, dtype=np.int64),
        n_games, len(games), sum(p[6] for p in parts), len(errors), errors[:MAX_ERRORS],
        str(path), player, skip_plies)
    if cache_path is not None and key is not None:
        _write_cached(cache_path, key, data)
    data.errors = [f"{path}:{e}" for e in data.errors]
    return data


def _arrays(d: MoveData) -> dict[str, np.ndarray]:
    return {"rows": np.ascontiguousarray(d.rows, dtype=np.uint64), "sign": np.asarray(d.sign, dtype=np.float64),
            "fixed": np.asarray(d.fixed, dtype=np.float64), "offsets": np.asarray(d.offsets, dtype=np.int64),
            "played": np.asarray(d.played, dtype=np.int64), "game": np.asarray(d.game, dtype=np.int64),
            "counts": np.array([d.games, d.player_games, d.single_move, d.malformed], dtype=np.int64),
            "errors": np.array(d.errors, dtype=np.str_).reshape(-1)}


def _read_cached(path: Path, key: str) -> MoveData | None:
    """The extracted moves stored in ``path``, or ``None`` when missing, unreadable, for another key,
    inconsistent, or its keyed digest does not verify."""
    a = load_keyed_npz(path, _ARRAYS, key)
    if a is None:
        return None
    m, n = len(a["sign"]), len(a["played"])
    if (a["rows"].shape != (m, 9) or a["fixed"].shape != (m,) or a["offsets"].shape != (n + 1,)
            or a["game"].shape != (n,) or a["counts"].shape != (4,)):
        return None
    games, player_games, single, malformed = (int(x) for x in a["counts"])
    return MoveData(a["rows"], a["sign"], a["fixed"], a["offsets"], a["played"], a["game"], games, player_games,
                    single, malformed, [str(e) for e in a["errors"]], cached=True)


def _write_cached(path: Path, key: str, data: MoveData) -> bool:
    return save_keyed_npz(path, _arrays(data), _ARRAYS, key)


def split_by_game(data: MoveData, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training, held-out) position indices, split by game (seeded) so that no game's positions are on
    both sides."""
    from evolve.data.dataset import split

    train_games, held_games = split(int(data.game.max()) + 1 if data.n else 0, held_out, seed)
    return np.flatnonzero(np.isin(data.game, train_games)), np.flatnonzero(np.isin(data.game, held_games))


def load_moves(path: str | Path, player: str, skip_plies: int = 10, layout: str = "paper", n_jobs: int = 1,
               use_cache: bool = True, cache_dir: str | Path | None = None,
               on_error: Callable[[str], None] | None = None) -> tuple[MoveData, np.ndarray]:
    """:func:`extract_moves` and the features (``layout``, float32) of every resolved child, both cached."""
    data = extract_moves(path, player, skip_plies, n_jobs=n_jobs, use_cache=use_cache,
                         cache_dir=Path(cache_dir) / "moves" if cache_dir is not None else None, on_error=on_error)
    features = feature_matrix(data.rows, n_jobs=n_jobs, cache_dir=cache_dir, use_cache=use_cache,
                              layout=layout)
    return data, features

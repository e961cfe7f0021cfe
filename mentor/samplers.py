"""Position samplers: random playouts, positions from PGN games, every position of an EPD file.

Every sampler is seeded, yields :class:`Sample` objects deduplicated by position key, and counts what
it skipped in a :class:`SampleStats`. A malformed PGN game or EPD line is reported (a warning naming
the file and line) through ``on_error``, counted, and skipped.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from search.conventions import RESULTS
from search.formats.epd import EpdError, read_epd
from search.formats.pgn import read_games as _read_games
from search.runtime.errors import MimicError
from search.see import see
from search.tt import position_key


@dataclass
class Sample:
    """A position to label. ``result``: the game's result when known; ``plies_to_end``: plies from
    this position to the end of its game (``None`` when not from a game)."""

    board: chess.Board
    source: str
    result: str | None = None
    plies_to_end: int | None = None
    id: str | None = None


@dataclass
class SampleStats:
    yielded: int = 0
    duplicates: int = 0
    game_over: int = 0
    in_check: int = 0
    not_quiet: int = 0
    malformed: int = 0
    games: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if isinstance(v, int)}


class SourceError(MimicError, ValueError):
    """A malformed input record; ``str()`` reads ``FILE:LINE: reason``."""


ErrorHook = Callable[[str], None]


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


class _Dedup:
    def __init__(self, stats: SampleStats) -> None:
        self.seen: set[int] = set()
        self.stats = stats

    def fresh(self, board: chess.Board) -> bool:
        key = position_key(board)
        if key in self.seen:
            self.stats.duplicates += 1
            return False
        self.seen.add(key)
        return True


def is_quiet(board: chess.Board) -> bool:
    """Not in check, and no capture that wins material by static exchange."""
    if board.is_check():
        return False
    return all(see(board, m) <= 0 for m in board.generate_legal_captures())


def random_playouts(n: int, seed: int = 0, min_plies: int = 8, max_plies: int = 100,
                    skip_check: bool = False, stats: SampleStats | None = None) -> Iterator[Sample]:
    """``n`` distinct positions, each the end of a random playout of ``min_plies``–``max_plies`` plies
    from the start position. Positions that are game over (or in check, with ``skip_check``) are
    dropped and replaced."""
    stats = stats if stats is not None else SampleStats()
    rng = random.Random(seed)
    dedup = _Dedup(stats)
    while stats.yielded < n:
        board = chess.Board()
        for _ in range(rng.randint(min_plies, max_plies)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over(claim_draw=False) or board.is_repetition(3):
            stats.game_over += 1
            continue
        if skip_check and board.is_check():
            stats.in_check += 1
            continue
        if not dedup.fresh(board):
            continue
        stats.yielded += 1
        yield Sample(board.copy(stack=False), "random")


def read_games(path: str | Path, on_error: ErrorHook | None = None,
               stats: SampleStats | None = None) -> Iterator[tuple[int, chess.pgn.Game]]:
    """:func:`search.formats.pgn.read_games`, counting games and malformed ones in ``stats``."""
    stats = stats if stats is not None else SampleStats()
    report = on_error or _warn

    def bad(msg: str) -> None:
        stats.malformed += 1
        stats.errors.append(msg)
        report(msg)

    for start, game in _read_games(path, bad):
        stats.games += 1
        yield start, game


def pgn_positions(path: str | Path, n: int | None = None, seed: int = 0, skip_plies: int = 10,
                  per_game: int = 3, random_move: bool = False, quiet: bool = False,
                  on_error: ErrorHook | None = None, stats: SampleStats | None = None) -> Iterator[Sample]:
    """Up to ``n`` positions (all, with ``None``) from the games of a PGN file.

    Per game: skip the first ``skip_plies`` plies, take ``per_game`` mainline positions at random;
    with ``random_move``, play one random legal move from each (Giraffe's trick for variety); with
    ``quiet``, keep only quiet positions (see :func:`is_quiet`). Game-over positions are dropped.
    """
    stats = stats if stats is not None else SampleStats()
    rng = random.Random(seed)
    dedup = _Dedup(stats)
    for start, game in read_games(path, on_error, stats):
        result = game.headers.get("Result")
        result = result if result in RESULTS else None
        board = game.board()
        boards = []
        for move in game.mainline_moves():
            board.push(move)
            boards.append(board.copy(stack=False))
        total = len(boards)
        candidates = list(range(skip_plies, total))
        picks = sorted(rng.sample(candidates, min(per_game, len(candidates))))
        for i in picks:
            b = boards[i]
            if random_move:
                moves = list(b.legal_moves)
                if not moves:
                    stats.game_over += 1
                    continue
                b = b.copy(stack=False)
                b.push(rng.choice(moves))
                b = b.copy(stack=False)
            if b.is_game_over(claim_draw=False):
                stats.game_over += 1
                continue
            if quiet and not is_quiet(b):
                stats.not_quiet += 1
                continue
            if not dedup.fresh(b):
                continue
            stats.yielded += 1
            yield Sample(b, f"{Path(path).name}:{start}", result, total - 1 - i)
            if n is not None and stats.yielded >= n:
                return


def epd_positions(path: str | Path, n: int | None = None, on_error: ErrorHook | None = None,
                  stats: SampleStats | None = None) -> Iterator[Sample]:
    """Every position of an EPD file (the first ``n``), keeping its ``id``, its game's ``c9`` result and ``c2`` plies to
    the end (a relabelled game position keeps its move number, ``fmvn``, with them)."""
    stats = stats if stats is not None else SampleStats()
    report = on_error or _warn
    dedup = _Dedup(stats)

    def bad(err: EpdError) -> None:
        stats.malformed += 1
        stats.errors.append(str(err))
        report(str(err))

    for rec in read_epd(path, bad):
        if rec.board.is_game_over(claim_draw=False):
            stats.game_over += 1
            continue
        if not dedup.fresh(rec.board):
            continue
        result = rec.ops.get("c9")
        plies = str(rec.ops.get("c2", ""))
        stats.yielded += 1
        yield Sample(rec.board, f"{Path(path).name}:{rec.line_no}",
                     str(result) if result in RESULTS else None, int(plies) if plies.isdigit() else None,
                     str(rec.ops["id"]) if "id" in rec.ops else None)
        if n is not None and stats.yielded >= n:
            return


@dataclass(frozen=True, kw_only=True)
class SamplerOptions:
    """Options shared by the samplers (see each sampler for their meaning)."""

    min_plies: int = 8
    max_plies: int = 100
    skip_check: bool = False
    skip_plies: int = 10
    per_game: int = 3
    random_move: bool = False
    quiet: bool = False
    fill: bool = False
    """When a source runs out before its share, take the rest from the sources that have more (:func:`collect`)."""


TREE_PREFIX = "search:"
"""A source ``search:SPEC``: the positions where the player of SPEC's search evaluates (:mod:`mentor.treesample`)."""


@dataclass(frozen=True)
class TreeSource:
    """What a ``search:SPEC`` source needs beyond its spec: the registry that builds players from specs (mentor/
    never imports the kinds), the start positions (FEN), one position kept in ``every`` evaluated, and workers."""

    registry: Any
    openings: tuple[str, ...]
    every: int = 50
    jobs: int = 1

    def samples(self, spec: str, n: int, seed: int, stats: SampleStats) -> Iterator[Sample]:
        from mentor.treesample import tree_positions

        counts: dict[str, int] = {}
        for fen, id_ in tree_positions(spec, self.registry, self.openings, n, seed, self.every, self.jobs, counts):
            stats.yielded += 1
            yield Sample(chess.Board(fen), f"search:{spec}", id=id_)
        stats.games += counts.get("games", 0)
        stats.duplicates += counts.get("duplicates", 0)


def source_kind(source: str) -> str | None:
    """What a ``--source`` names: ``random``, ``pgn`` (a name ending ``.pgn``), ``epd`` (``.epd``: positions or a label
    file), ``search`` (``search:SPEC``), else ``None``. A name ending ``.gz`` is the same kind as without it: gzip
    files are read as the plain ones (:mod:`search.formats.gz`).

    >>> [source_kind(s) for s in ("random", "a.PGN", "l.epd.gz", "g.pgn.gz", "search:expert", "x.txt")]
    ['random', 'pgn', 'epd', 'pgn', 'search', None]
    """
    if source == "random":
        return "random"
    if source.startswith(TREE_PREFIX):
        return "search"
    name = source.lower().removesuffix(".gz")
    return "pgn" if name.endswith(".pgn") else "epd" if name.endswith(".epd") else None


def collect(sources: list[str], n: int, seed: int = 0, options: SamplerOptions | None = None,
            on_error: ErrorHook | None = None, tree: TreeSource | None = None) -> tuple[list[Sample], SampleStats]:
    """``n`` positions from ``sources`` (:func:`source_kind`: ``random``, ``*.pgn``, ``*.epd``, either gzip,
    ``search:SPEC``: where that player's search evaluates, :mod:`mentor.treesample`, with the registry, openings, rate
    and workers of ``tree``), split
    evenly between them (the first takes the remainder), deduplicated across sources. A source may run out before
    its share (a PGN file of few games): fewer than ``n`` then, unless ``options.fill``, when the shortfall is split
    evenly again between the sources not yet run out, each going on where it stopped, until ``n`` or all have run
    out. The first pass is the same either way, so filling only adds positions after it."""
    o = options or SamplerOptions()
    stats = SampleStats()
    samples: list[Sample] = []
    seen: set[int] = set()
    share = [n // len(sources) + (1 if i < n % len(sources) else 0) for i in range(len(sources))]
    iterators: list[Iterator[Sample]] = []
    for k, (source, want) in enumerate(zip(sources, share, strict=True)):
        sub_seed = seed * 1000 + k
        kind = source_kind(source)
        if kind == "random":
            it: Iterator[Sample] = random_playouts(10**9, sub_seed, o.min_plies, o.max_plies, o.skip_check, stats)
        elif kind == "pgn":
            it = pgn_positions(source, None, sub_seed, o.skip_plies, o.per_game, o.random_move, o.quiet,
                               on_error, stats)
        elif kind == "epd":
            it = epd_positions(source, None, on_error, stats)
        elif kind == "search":
            if tree is None:
                raise SourceError(f"source {source!r}: a search-tree source needs the player registry")
            it = tree.samples(source[len(TREE_PREFIX):], want, sub_seed, stats)
        else:
            raise SourceError(f"unknown source {source!r}: random, FILE.pgn, FILE.epd (either may be gzip: .pgn.gz, "
                              ".epd.gz) or search:SPEC")
        iterators.append(it)
    live = list(range(len(sources)))
    wants = share
    while True:
        short = []
        for k, want in zip(live, wants, strict=True):
            if _take(iterators[k], want, samples, seen, stats) < want:
                short.append(k)
        deficit = n - len(samples)
        live = [k for k in live if k not in short and not sources[k].startswith(TREE_PREFIX)]
        if not o.fill or deficit <= 0 or not live:
            break
        wants = [deficit // len(live) + (1 if i < deficit % len(live) else 0) for i in range(len(live))]
    stats.yielded = len(samples)
    return samples, stats


def _take(it: Iterator[Sample], want: int, samples: list[Sample], seen: set[int], stats: SampleStats) -> int:
    """Up to ``want`` new positions (not in ``seen``) from ``it`` onto ``samples``; how many it gave."""
    taken = 0
    if want <= 0:
        return 0
    for s in it:
        key = position_key(s.board)
        if key in seen:
            stats.duplicates += 1
            continue
        seen.add(key)
        samples.append(s)
        taken += 1
        if taken >= want:
            break
    return taken

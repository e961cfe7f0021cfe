"""``mimic recognize``: clone each player from their games, and tell who played a game.

**Training** (:func:`train`). Every game of every PGN file given is read once (:func:`read_game_set`); a
game that appears in two files (two players' files, say) counts once: games are deduplicated by a *game
key*, the BLAKE2 hash of the ``Date`` and ``Result`` headers, the starting position and the moves (UCI).
Each side of a game is a *game side*; a side belongs to a trained player when its ``White``/``Black``
header names that player (:func:`evolve.data.moves.player_matches`, or equals one of the player's aliases,
``--alias "NAME=Header text"``); a side that names two of the players is left out and counted.
The deduplicated games are split, seeded, into training / validation / test *by game* (both sides of a
game are in the same part, so no game's positions are in two parts), and the split is written to
``DIR/split.json``. With ``max_games`` each player keeps at most that many training game sides (a
seeded choice), by default as many as the player with the fewest has: equal training data per player; with
``max_held`` at most that many validation and test sides each (a seeded choice, for large game sets).

One organism per player is evolved by the move-agreement objective of :class:`evolve.ga.objectives.MoveAgreement`
on the player's training sides (the validation sides are its held-out positions), the players in
parallel (:func:`search.runtime.workers.parallel`). A *shared* organism is evolved the same way on all players'
training sides together: a baseline that knows every player's strength and nobody's style.

**Scoring** (:func:`measure`). A clone's *measure* of a position is, by ``score``:

* ``likelihood`` (default): the log-probability (nats) of the move played under softmax(β · score) over
  the position's resolved children, β fitted on the clone's training positions;
* ``agreement``: 1 when the clone's 1-ply choice is the move played, else 0.

The measure of a query (a game side, or a group of ``k`` game sides of one player) is the mean over its
positions. A clone that agrees with everyone (a strong organism, whose evaluation is nearer every strong
player's) would win every query on the raw measure. So the **score** of a clone on a query is the raw
measure *minus the clone's normalisation*, its average over all players' validation game sides (the mean
over players of the clone's mean measure on that player's validation positions: each player weighs the
same). A clone wins a query when it explains the query's moves better than it explains the average
player's. Positions where a move mates are left out (every organism mates there).

**Baselines** (in :func:`experiment`, on the same split): chance (1 / players); the *shared organism*:
its measure of a query beside each player's mean measure on their validation sides, the nearest wins
(one number per query: strength, not style); a *centipawn-loss profile* (the maia-individual stylometry
baseline): every move's loss in centipawns against a mentor at a fixed depth (our engine with the
built-in expert at depth 1 by default, any evaluator spec with ``@depth=N``), as a histogram over
:data:`CP_BINS`, classified by the nearest centroid (Euclidean) of the players' training histograms.

May import everything below ``evolve`` (the DESIGN table) and ``evolve``'s own modules; nothing imports it
but the command line.
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np

from evolve.data.cache import load_keyed_npz, save_keyed_npz
from evolve.data.moves import CHUNK_GAMES, extract_games, normal_name, player_matches
from evolve.data.moves import FORMAT_VERSION as MOVES_FORMAT
from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.objectives import Gathered, MoveAgreement, agrees
from organisms import Organism
from organisms.features import default_cache_dir, feature_matrix
from organisms.genome import DEFAULT_ENCODING, layout_genome
from search.formats.pgn import read_games
from search.runtime.provenance import describe, provenance

SCORES = ("likelihood", "agreement")
"""What a clone's measure of a position is (see the module docstring)."""

KS: tuple[int | None, ...] = (1, 4, 16, None)
"""The group sizes of an experiment; ``None`` is all of a player's test game sides in one group."""

CP_BINS = (0, 1, 10, 25, 50, 100, 200, 400)
"""Lower edges (cp) of the centipawn-loss histogram's bins; the last bin is open (400 cp and more)."""

CP_CAP = 1000
"""A move's centipawn loss is capped here (a missed mate is not worth 29,000 cp of style)."""

MANIFEST = "recognize.json"
SPLIT = "split.json"
SHARED = "shared"
"""The shared organism's name in the manifest and its file ``DIR/shared.json``."""


# ---------------------------------------------------------------------------------------------- game sides
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
    sides: list[Side] = field(default_factory=list)
    read: int = 0  # well-formed games read, duplicates included
    duplicates: int = 0
    ambiguous: int = 0  # sides naming two trained players, left out
    malformed: int = 0
    errors: list[str] = field(default_factory=list)


def parse_aliases(texts: Sequence[str]) -> dict[str, list[str]]:
    """``--alias "NAME=Header text"`` options as {NAME: [header texts]}; a text without ``=`` is refused.

    >>> parse_aliases(["Tal=Tal, M.", "Tal=M. Tal"])
    {'Tal': ['Tal, M.', 'M. Tal']}
    """
    out: dict[str, list[str]] = {}
    for text in texts:
        name, eq, header = text.partition("=")
        if not eq or not name.strip() or not header.strip():
            raise ValueError(f"--alias takes NAME=Header text, got {text!r}")
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
                  on_error: Callable[[str], None] | None = None) -> GameSet:
    """Every well-formed game of ``paths`` (malformed ones reported ``FILE:LINE: reason`` and skipped), once
    each when ``dedupe``; the sides of trained players (every side when ``all_sides``, for queries); a header
    in ``exclude`` names no player."""
    aliases = aliases or {}
    gs = GameSet()
    seen: set[str] = set()

    def bad(msg: str) -> None:
        gs.malformed += 1
        gs.errors.append(msg)
        if on_error is not None:
            on_error(msg)

    for path in paths:
        for line, game in read_games(path, bad):
            gs.read += 1
            fen = game.board().fen()
            moves = [m.uci() for m in game.mainline_moves()]
            key = game_key(game, fen, moves)
            if dedupe and key in seen:
                gs.duplicates += 1
                continue
            seen.add(key)
            index = len(gs.games)
            gs.games.append((fen, moves))
            gs.keys.append(key)
            gs.sources.append(f"{path}:{line}")
            for color, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
                header = game.headers.get(tag, "")
                named = side_player(header, players, aliases, exclude)
                if len(named) > 1:
                    gs.ambiguous += 1
                    continue
                if named or all_sides:
                    gs.sides.append(Side(index, color, header, named[0] if named else None))
    return gs


# ---------------------------------------------------------------------------------------------- positions
@dataclass
class Positions:
    """The positions where the given game sides moved (from ply ``skip_plies`` + 1, one-move positions
    left out), each with its resolved children (see :mod:`evolve.data.moves`) and their features."""

    features: np.ndarray  # (children, genes) float32
    sign: np.ndarray
    fixed: np.ndarray
    offsets: np.ndarray
    played: np.ndarray
    side: np.ndarray  # (positions,) index of the position's side in the sides given

    @property
    def n(self) -> int:
        return len(self.played)

    def objective(self) -> MoveAgreement:
        return MoveAgreement(self.features, self.sign, self.fixed, self.offsets, self.played)


_RESOLVED = ("rows", "sign", "fixed", "lengths", "played", "side")
"""The arrays of a cached extraction (:func:`resolve_sides`)."""


def resolved_key(entries: Sequence[tuple[int, str, list[str], list[bool]]], skip_plies: int) -> str:
    """The cache key of the resolved children of some game sides: each side's start, moves and colour, in
    order, the skipped plies and :data:`evolve.data.moves.FORMAT_VERSION`."""
    digest = hashlib.blake2b(digest_size=20)
    for _, fen, moves, colors in entries:
        digest.update(f"{fen}|{' '.join(moves)}|{''.join('w' if c else 'b' for c in colors)}\n".encode())
    digest.update(f"|skip={skip_plies}|moves-v{MOVES_FORMAT}|sides-v1".encode())
    return digest.hexdigest()


def resolve_sides(entries: Sequence[tuple[int, str, list[str], list[bool]]], skip_plies: int, jobs: int = 1,
                  cache: Path | None = None) -> dict[str, np.ndarray]:
    """The resolved children of game sides given as (index, FEN, UCI moves, [colour]) (see
    :func:`evolve.data.moves.extract_games`): ``rows``, ``sign``, ``fixed``, segment ``lengths``, ``played``
    (within its segment) and ``side`` (the entry's index), from ``cache`` (a folder) when it holds them.
    Resolving is the slow part (about 0.3 ms a child, some 35 children a position): a second ``train``,
    ``classify`` or ``experiment`` on the same sides reads it back."""
    path = key = None
    if cache is not None:
        key = resolved_key(entries, skip_plies)
        path = cache / f"sides-{key}.npz"
        got = load_keyed_npz(path, _RESOLVED, key)
        if got is not None:
            return got
    chunks = [list(entries[i:i + CHUNK_GAMES]) for i in range(0, len(entries), CHUNK_GAMES)]
    if jobs == 1 or len(chunks) <= 1:
        parts = [extract_games(c, skip_plies) for c in chunks]
    else:
        from joblib import delayed

        from search.runtime.workers import parallel

        parts = list(parallel(jobs)(delayed(extract_games)(c, skip_plies) for c in chunks))
    if not parts:
        parts = [extract_games([], skip_plies)]
    out = {"rows": np.concatenate([p[0] for p in parts]).reshape(-1, 9).astype(np.uint64),
           "sign": np.concatenate([p[1] for p in parts]).astype(np.float64),
           "fixed": np.concatenate([p[2] for p in parts]).astype(np.float64),
           "lengths": np.concatenate([p[3] for p in parts]).astype(np.int64),
           "played": np.concatenate([p[4] for p in parts]).astype(np.int64),
           "side": np.concatenate([p[5] for p in parts]).astype(np.int64)}
    if path is not None and key is not None:
        save_keyed_npz(path, out, _RESOLVED, key)
    return out


def extract_positions(gs: GameSet, sides: Sequence[int], skip_plies: int, layout: str, jobs: int = 1,
                      cache_dir: str | Path | None = None, use_cache: bool = True) -> Positions:
    """:class:`Positions` of the game sides ``gs.sides[i]`` for ``i`` in ``sides`` (in that order). The
    features are cached under ``cache_dir`` (default ``$MIMIC_CACHE/features``), the resolved children in
    ``moves/`` beside it."""
    entries = [(j, gs.games[gs.sides[i].game][0], gs.games[gs.sides[i].game][1], [gs.sides[i].color])
               for j, i in enumerate(sides)]
    features_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    r = resolve_sides(entries, skip_plies, jobs, features_dir.parent / "moves" if use_cache else None)
    offsets = np.concatenate([[0], np.cumsum(r["lengths"])]).astype(np.int64)
    features = (feature_matrix(r["rows"], n_jobs=jobs, cache_dir=features_dir, use_cache=use_cache,
                               layout=layout) if len(r["rows"])
                else np.zeros((0, len(layout_genome(layout).names)), dtype=np.float32))
    return Positions(np.asarray(features, dtype=np.float32), r["sign"], r["fixed"], offsets,
                     r["played"] + offsets[:-1], r["side"])


def subset(pos: Positions, rows: np.ndarray) -> Positions:
    """The positions ``rows`` (sorted) of ``pos`` with their children only (what a worker is sent)."""
    starts, ends = pos.offsets[rows], pos.offsets[rows + 1]
    lengths = ends - starts
    idx = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)]) if len(rows) else \
        np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return Positions(pos.features[idx], pos.sign[idx], pos.fixed[idx], offsets,
                     pos.played[rows] - starts + offsets[:-1], pos.side[rows])


# ---------------------------------------------------------------------------------------------- measures
def position_measures(weights: np.ndarray, betas: np.ndarray, pos: Positions, score: str
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(organisms, positions) measures of every position (see the module docstring) and the positions'
    indices (those where no move mates)."""
    objective = pos.objective()
    rows = objective.rows
    w = np.atleast_2d(weights)
    if not len(rows):
        return np.zeros((len(w), 0)), rows
    s, g = objective.scores(w, rows)
    if score == "agreement":
        return agrees(s, g).astype(np.float64), rows
    return _log_probabilities(s, g, np.asarray(betas, dtype=np.float64)), rows


def _log_probabilities(s: np.ndarray, g: Gathered, beta: np.ndarray) -> np.ndarray:
    """(organisms, positions) log softmax(β · score) of the played child, β one per organism."""
    best = np.maximum.reduceat(s, g.starts, axis=1)
    d = (s - np.repeat(best, g.lengths, axis=1)).astype(np.float64) * beta[:, None]
    z = np.add.reduceat(np.exp(d), g.starts, axis=1)
    return d[:, g.played] - np.log(z)


def side_means(values: np.ndarray, side_of: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """(organisms, groups): each organism's mean of ``values`` (organisms, positions) over the positions
    of each group of sides (``side_of``: each position's side; NaN for a group without positions). Sums per
    side once (``bincount``), then per group: linear in positions plus the groups' sizes.

    >>> side_means(np.array([[1.0, 0.0, 1.0, 1.0]]), np.array([0, 0, 1, 2]), [[0], [1, 2], [3]]).tolist()
    [[0.5, 1.0, nan]]
    """
    arrays = [np.asarray(g, dtype=np.int64) for g in groups]
    n_sides = max([int(side_of.max()) + 1 if len(side_of) else 0] + [int(g.max()) + 1 for g in arrays if len(g)])
    counts = np.bincount(side_of, minlength=n_sides).astype(np.float64)
    sums = np.array([np.bincount(side_of, weights=v, minlength=n_sides) for v in values]).reshape(len(values), -1)
    out = np.full((values.shape[0], len(arrays)), np.nan)
    for j, g in enumerate(arrays):
        n = counts[g].sum()
        if n:
            out[:, j] = sums[:, g].sum(axis=1) / n
    return out


def side_counts(side_of: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """The number of positions of each group of sides."""
    n_sides = max([int(side_of.max()) + 1 if len(side_of) else 0] + [max(g) + 1 for g in groups if len(g)])
    counts = np.bincount(side_of, minlength=n_sides)
    return np.array([int(counts[list(g)].sum()) for g in groups], dtype=np.int64)


# ---------------------------------------------------------------------------------------------- training
@dataclass(frozen=True, kw_only=True)
class TrainSettings:
    """One ``mimic recognize train`` (built by keyword). ``max_games``: training game sides kept per player
    (``None``: as many as the player with the fewest has; 0: all). ``max_held``: validation and test game
    sides kept per player, each (``None``: all): a seeded choice that bounds the work of a large game set
    while the split stays by game. ``validation`` and ``test``: shares of the games. ``score``:
    ``likelihood`` or ``agreement`` (what classification compares)."""

    games: tuple[str, ...]
    players: tuple[str, ...]
    out: str
    ga: GASettings
    aliases: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_games: int | None = None
    max_held: int | None = None
    validation: float = 0.2
    test: float = 0.2
    skip_plies: int = 10
    genome: str = "paper"
    encoding: str = DEFAULT_ENCODING
    moves_loss: str = "agreement"
    score: str = "likelihood"
    shared: bool = True
    jobs: int = 1

    def __post_init__(self) -> None:
        if not self.players:
            raise ValueError("--players names no player")
        if len({normal_name(p) for p in self.players}) != len(self.players):
            raise ValueError("--players names a player twice")
        if not (0 <= self.validation < 1 and 0 <= self.test < 1 and self.validation + self.test < 1):
            raise ValueError("--validation and --test are shares of the games, together below 1")
        if self.score not in SCORES:
            raise ValueError(f"unknown score {self.score!r} (one of {', '.join(SCORES)})")
        if self.max_games is not None and self.max_games < 0:
            raise ValueError("--max-games is a number of game sides (0: all)")
        if self.max_held is not None and self.max_held < 1:
            raise ValueError("--max-held is a number of game sides, at least 1")
        parse_aliases(self.aliases)


PARTS = ("train", "validation", "test")
NORMS = ("validation", "query")
"""What ``classify`` subtracts from a clone's measure: its average on the validation sides or on the query file's."""


def split_games(n: int, validation: float, test: float, seed: int) -> np.ndarray:
    """Each game's part (0 train, 1 validation, 2 test), seeded: a random permutation, the first
    ``round(n · test)`` games to test, the next ``round(n · validation)`` to validation."""
    perm = np.random.default_rng([seed, 0x5EC09]).permutation(n)
    k_test, k_val = round(n * test), round(n * validation)
    part = np.zeros(n, dtype=np.int64)
    part[perm[:k_test]] = 2
    part[perm[k_test:k_test + k_val]] = 1
    return part


@dataclass
class Trained:
    """What :func:`train` made: the manifest (also in ``DIR/recognize.json``), the game set, the split and
    the positions of every kept side (training sides beyond ``max_games`` are not kept)."""

    manifest: dict[str, Any]
    games: GameSet
    part: np.ndarray  # per game
    sides: dict[str, dict[str, list[int]]]  # player -> part -> indices into games.sides
    positions: Positions  # of the sides in `order`
    order: list[int]  # the sides extracted, indices into games.sides; positions.side indexes this list
    weights: np.ndarray  # (players, genes) the clones'
    betas: np.ndarray
    shared_weights: np.ndarray | None
    shared_beta: float


def _train_one(pos: Positions, train_rows: np.ndarray, held_rows: np.ndarray, layout: str, encoding: str,
               ga: GASettings, loss: str) -> tuple[np.ndarray, float, float, float, float, float]:
    """One clone (runs in a worker): (bits, training loss, held-out loss, β fitted on the training
    positions, training agreement, held-out agreement)."""
    genome = layout_genome(layout, encoding)
    objective = MoveAgreement(pos.features, pos.sign, pos.fixed, pos.offsets, pos.played, loss=loss)
    ev = Evolution(genome, objective, train_rows, held_rows, ga)
    ev.run()
    bits, train_loss, held_loss = ev.winner()
    w = genome.decode(bits[None, :])
    rows = np.intersect1d(train_rows, objective.rows)
    beta = float(objective.log_likelihood(w, rows)[1][0])
    held = np.intersect1d(held_rows, objective.rows)
    agree_held = float(objective.agreement(w, held)[0]) if len(held) else float("nan")
    return bits, train_loss, held_loss, beta, float(objective.agreement(w, rows)[0]), agree_held


def train(settings: TrainSettings, command: str, on_error: Callable[[str], None] | None = None,
          cache_dir: str | Path | None = None) -> Trained:
    """Read, split, extract and evolve one clone per player (and the shared organism); write DIR (see the
    module docstring). Raises ``ValueError`` naming a player without games."""
    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    out = Path(settings.out)
    aliases = parse_aliases(settings.aliases)
    players = list(settings.players)
    gs = read_game_set(settings.games, players, aliases, exclude=settings.exclude, on_error=on_error)
    missing = [p for p in players if not any(s.player == p for s in gs.sides)]
    if missing:
        raise ValueError(f"no games of player{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                         f"in {', '.join(settings.games)}")
    part = split_games(len(gs.games), settings.validation, settings.test, settings.ga.seed)
    sides: dict[str, dict[str, list[int]]] = {p: {k: [] for k in PARTS} for p in players}
    for i, s in enumerate(gs.sides):
        assert s.player is not None
        sides[s.player][PARTS[part[s.game]]].append(i)
    for p in players:
        if not sides[p]["train"]:
            raise ValueError(f"player {p!r} has no training games (of {sum(len(v) for v in sides[p].values())} "
                             "game sides; more games or a smaller --test/--validation)")
    counts = [len(sides[p]["train"]) for p in players]
    cap = min(counts) if settings.max_games is None else (settings.max_games or max(counts))
    rng = np.random.default_rng([settings.ga.seed, 0xCA9])
    for p in players:
        kept = sides[p]["train"]
        if len(kept) > cap:
            sides[p]["train"] = sorted(rng.choice(kept, size=cap, replace=False).tolist())
    if settings.max_held is not None:
        held_rng = np.random.default_rng([settings.ga.seed, 0x4E1D])
        for p in players:
            for k in ("validation", "test"):
                if len(sides[p][k]) > settings.max_held:
                    sides[p][k] = sorted(held_rng.choice(sides[p][k], size=settings.max_held, replace=False).tolist())
    order = sorted({i for p in players for k in PARTS for i in sides[p][k]})
    where = {side: j for j, side in enumerate(order)}
    pos = extract_positions(gs, order, settings.skip_plies, settings.genome, settings.jobs, cache_dir)
    seconds["games, resolved children and features"] = time.perf_counter() - t0

    def rows_of(side_ids: Sequence[int]) -> np.ndarray:
        return np.flatnonzero(np.isin(pos.side, [where[i] for i in side_ids]))

    t0 = time.perf_counter()
    jobs_in: list[tuple[str, Positions, np.ndarray, np.ndarray]] = []
    for p in players:
        rows = rows_of(sides[p]["train"] + sides[p]["validation"])
        sub = subset(pos, rows)
        train_rows = np.flatnonzero(np.isin(rows, rows_of(sides[p]["train"])))
        held_rows = np.flatnonzero(np.isin(rows, rows_of(sides[p]["validation"])))
        if not len(train_rows):
            raise ValueError(f"player {p!r}: no training positions (games shorter than --skip-plies?)")
        jobs_in.append((p, sub, train_rows, held_rows))
    if settings.shared:
        all_train = [i for p in players for i in sides[p]["train"]]
        all_val = [i for p in players for i in sides[p]["validation"]]
        rows = rows_of(all_train + all_val)
        sub = subset(pos, rows)
        jobs_in.append((SHARED, sub, np.flatnonzero(np.isin(rows, rows_of(all_train))),
                        np.flatnonzero(np.isin(rows, rows_of(all_val)))))
    args = [(sub, tr, he, settings.genome, settings.encoding, settings.ga, settings.moves_loss)
            for _, sub, tr, he in jobs_in]
    if settings.jobs == 1 or len(args) == 1:
        results = [_train_one(*a) for a in args]
    else:
        from joblib import delayed

        from search.runtime.workers import parallel

        results = list(parallel(settings.jobs)(delayed(_train_one)(*a) for a in args))
    seconds["evolution (all organisms)"] = time.perf_counter() - t0

    genome = layout_genome(settings.genome, settings.encoding)
    out.mkdir(parents=True, exist_ok=True)
    entries: dict[str, dict[str, Any]] = {}
    weights = np.zeros((len(players), len(genome.names)))
    betas = np.zeros(len(players))
    shared_w: np.ndarray | None = None
    shared_beta = float("nan")
    for (name, _, tr, he), (bits, train_loss, held_loss, beta, a_train, a_held) in zip(jobs_in, results,
                                                                                          strict=True):
        file = f"{SHARED}.json" if name == SHARED else f"clone-{_file_name(name)}.json"
        organism = Organism(genome, bits, meta={"player": name, "objective": "moves", "moves_loss": settings.moves_loss,
                                                "train_error": train_loss, "held_out_error": held_loss,
                                                "seed": settings.ga.seed, "command": command})
        organism.save(out / file)
        entry = {"organism": file, "train_loss": train_loss, "held_out_loss": held_loss, "beta": beta,
                 "train_agreement": a_train, "validation_agreement": a_held,
                 "train_positions": len(tr), "validation_positions": len(he)}
        if name == SHARED:
            shared_w, shared_beta = organism.weights, beta
            entries[name] = entry
        else:
            i = players.index(name)
            weights[i], betas[i] = organism.weights, beta
            entries[name] = {**entry, "aliases": aliases.get(name, []),
                             **{f"{k}_sides": len(sides[name][k]) for k in PARTS},
                             "train_sides_before_cap": counts[i]}

    # The normalisation: each clone's mean measure on each player's validation sides, averaged over players.
    vals, rows = position_measures(weights, betas, pos, settings.score)
    side_of = pos.side[rows]
    val_groups = [[where[i] for i in sides[p]["validation"]] or [where[i] for i in sides[p]["train"]]
                  for p in players]
    cross = side_means(vals, side_of, val_groups)  # (clones, players)
    normal = np.nanmean(cross, axis=1)
    for i, p in enumerate(players):
        entries[p]["normalisation"] = float(normal[i])
        entries[p]["validation_measure_by_player"] = {q: float(cross[i, j]) for j, q in enumerate(players)}
    no_validation = [p for p in players if not sides[p]["validation"]]

    manifest = {"format": "mimic-recognize", "version": 1, "command": command, "provenance": provenance(),
                "settings": {**{k: v for k, v in asdict(settings).items() if k != "ga"}, "ga": asdict(settings.ga),
                             "max_games_applied": cap},
                "players": players, "clones": entries, "split": SPLIT,
                "games": {"files": list(settings.games), "read": gs.read, "unique": len(gs.games),
                          "duplicates": gs.duplicates, "ambiguous_sides": gs.ambiguous, "malformed": gs.malformed,
                          "parts": {k: int((part == j).sum()) for j, k in enumerate(PARTS)}},
                "positions": int(pos.n), "seconds": seconds,
                "notes": ([f"no validation game sides for {', '.join(no_validation)}: their training sides stand in "
                           "for them in the normalisation"] if no_validation else [])}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    split = {"seed": settings.ga.seed, "validation": settings.validation, "test": settings.test,
             "games": [{"key": gs.keys[g], "source": gs.sources[g], "part": PARTS[part[g]]}
                       for g in range(len(gs.games))],
             "sides": {p: {k: [{"game": gs.keys[gs.sides[i].game], "color": "white" if gs.sides[i].color else "black",
                                "header": gs.sides[i].header, "source": gs.sources[gs.sides[i].game]}
                               for i in sides[p][k]] for k in PARTS} for p in players}}
    (out / SPLIT).write_text(json.dumps(split, indent=1) + "\n")
    return Trained(manifest, gs, part, sides, pos, order, weights, betas, shared_w, shared_beta)


def _file_name(name: str) -> str:
    """A player's name as a file name: letters, digits, ``-`` and ``_`` kept, the rest ``_``.

    >>> _file_name("Anand, V")
    'Anand__V'
    """
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


# ---------------------------------------------------------------------------------------------- classification
@dataclass
class Query:
    """One query: game sides (their sources), the true player when known, each clone's score."""

    sides: list[str]  # FILE:LINE colour
    player: str  # the trained player the sides' header names, "" when none
    header: str
    positions: int
    scores: dict[str, float]

    @property
    def ranking(self) -> list[str]:
        """Players by score, best first (ties: the order of the players)."""
        names = list(self.scores)
        return sorted(names, key=lambda n: (-self.scores[n] if np.isfinite(self.scores[n]) else np.inf,
                                            names.index(n)))

    @property
    def predicted(self) -> str:
        return self.ranking[0] if self.positions else ""

    def rank_of(self, player: str) -> int | None:
        """1-based rank of ``player`` (``None`` when no positions)."""
        return self.ranking.index(player) + 1 if self.positions and player in self.scores else None


def group_sides(labels: Sequence[str], k: int | None) -> list[list[int]]:
    """Groups of ``k`` indices with the same label, in order; an incomplete last group of a label is
    dropped unless ``k`` is 1; ``None``: one group per label.

    >>> group_sides(["a", "b", "a", "a", "b"], 2)
    [[0, 2], [1, 4]]
    >>> group_sides(["a", "b", "a"], None)
    [[0, 2], [1]]
    """
    by: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by.setdefault(label, []).append(i)
    out: list[list[int]] = []
    for members in by.values():
        if k is None:
            out.append(members)
        else:
            out += [members[i:i + k] for i in range(0, len(members) - k + 1, k)]
    return out


def score_groups(vals: np.ndarray, side_of: np.ndarray, groups: Sequence[Sequence[int]], normal: np.ndarray
                 ) -> np.ndarray:
    """(groups, clones): each clone's mean measure over each group's positions minus its normalisation."""
    return (side_means(vals, side_of, groups) - np.asarray(normal)[:, None]).T


def load_clones(folder: str | Path) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The manifest of a trained DIR, the clones' weights (players, genes) and their β."""
    folder = Path(folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    if manifest.get("format") != "mimic-recognize":
        raise ValueError(f"{folder / MANIFEST}: not a mimic recognize manifest")
    players = manifest["players"]
    organisms = [Organism.load(folder / manifest["clones"][p]["organism"]) for p in players]
    return (manifest, np.array([o.weights for o in organisms]),
            np.array([manifest["clones"][p]["beta"] for p in players], dtype=np.float64))


def classify(folder: str | Path, query: str | Path, k: int | None = 1, jobs: int = 1,
             on_error: Callable[[str], None] | None = None, cache_dir: str | Path | None = None,
             held_out: bool = False, norm: str = "validation") -> list[Query]:
    """Score every game side of ``query`` (or every group of ``k`` sides with the same header player; see
    :func:`group_sides`) by every clone of ``folder``; with ``held_out``, only the sides of games that the
    split of ``folder`` did not use for training or validation (its test games, and games it never saw).

    ``norm``: what each clone's measure is measured against (see the module docstring). ``validation``: its
    average over all trained players' validation game sides (``recognize.json``). ``query``: its average over
    the query file's own players (the sides grouped by header, each header weighing the same), for a query
    file from another population than the training games (other openings, another era), where the
    validation averages do not carry over; it needs a query file with several players' games in it."""
    if norm not in NORMS:
        raise ValueError(f"unknown normalisation {norm!r} (one of {', '.join(NORMS)})")
    manifest, weights, betas = load_clones(folder)
    players = manifest["players"]
    st = manifest["settings"]
    aliases = parse_aliases(st.get("aliases", []))
    gs = read_game_set([query], players, aliases, dedupe=False, all_sides=True, exclude=st.get("exclude", []),
                       on_error=on_error)
    used = used_games(folder)
    if held_out:
        gs.sides = [sd for sd in gs.sides if gs.keys[sd.game] not in used]
    seen = len({sd.game for sd in gs.sides if gs.keys[sd.game] in used})  # queried games the clones trained on
    if seen and on_error is not None:
        on_error(f"{query}: {seen} of its {len(gs.games)} games were training or validation games of these clones "
                 f"({Path(folder) / SPLIT}): their scores are not held-out figures")
    order = list(range(len(gs.sides)))
    pos = extract_positions(gs, order, st["skip_plies"], st["genome"], jobs, cache_dir)
    vals, rows = position_measures(weights, betas, pos, st["score"])
    labels = [s.player or f"?{normal_name(s.header)}" for s in gs.sides]
    if norm == "query":
        normal = np.nanmean(side_means(vals, pos.side[rows], group_sides(labels, None)), axis=1)
    else:
        normal = np.array([manifest["clones"][p]["normalisation"] for p in players])
    groups = group_sides(labels, k)
    scores = score_groups(vals, pos.side[rows], groups, normal)
    counts = side_counts(pos.side[rows], groups)
    out = []
    for j, group in enumerate(groups):
        first = gs.sides[group[0]]
        out.append(Query([f"{gs.sources[gs.sides[i].game]} {'white' if gs.sides[i].color else 'black'}"
                          for i in group], first.player or "", first.header, int(counts[j]),
                         {p: float(scores[j, c]) for c, p in enumerate(players)}))
    return out


def used_games(folder: str | Path) -> set[str]:
    """The keys of the games that the split of ``folder`` put in training or validation (none when the
    folder has no readable ``split.json``)."""
    try:
        split = json.loads((Path(folder) / SPLIT).read_text())
        return {g["key"] for g in split["games"] if g["part"] != "test"}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def write_csv(path: str | Path, queries: Sequence[Query], players: Sequence[str], k: int | None = 1) -> None:
    """One row per query: ``query``, ``k``, ``player`` (the trained player the header names, empty when
    none), ``header``, ``predicted``, ``rank`` (the true player's), ``positions``, ``sides``, then one
    ``score:NAME`` column per player."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["query", "k", "player", "header", "predicted", "rank", "positions", "sides",
                    *(f"score:{p}" for p in players)])
        for i, q in enumerate(queries):
            rank = q.rank_of(q.player) if q.player else None
            w.writerow([i + 1, "all" if k is None else k, q.player, q.header, q.predicted,
                        "" if rank is None else rank, q.positions, "; ".join(q.sides),
                        *(f"{q.scores[p]:.6f}" if np.isfinite(q.scores[p]) else "" for p in players)])


def read_csv_accuracy(path: str | Path) -> tuple[float, float, int]:
    """Top-1 and top-3 accuracy recounted from a query CSV (rows with a known player and positions), and
    the number of such rows. The top-3 is recounted from the score columns."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["player"] and int(r["positions"]) > 0]
    top1 = top3 = 0
    for r in rows:
        scores = {k[6:]: float(v) for k, v in r.items() if k.startswith("score:") and v}
        ranked = sorted(scores, key=lambda n: -scores[n])
        top1 += r["predicted"] == r["player"]
        top3 += r["player"] in ranked[:3]
    n = len(rows)
    return (top1 / n if n else float("nan"), top3 / n if n else float("nan"), n)


# ---------------------------------------------------------------------------------------------- centipawn loss
def cp_losses(entries: Sequence[tuple[int, str, list[str], bool]], skip_plies: int, mentor: str,
              max_positions: int | None = None) -> list[tuple[int, list[int]]]:
    """Every move's loss in centipawns against ``mentor`` (an evaluator spec of :data:`evolve.players.PLAYERS`
    with ``@depth=N``, depth 1 when none, searched with its ``@search=``) at the positions where each (side, FEN,
    UCI moves, colour) moved from ply ``skip_plies`` + 1 on, one-move positions left out (the clones' positions,
    those where a move mates included): the mentor's score of its best move minus its score of the move played
    (both searched at the same depth, the played one with ``root_moves``), capped at :data:`CP_CAP`. At most
    ``max_positions`` a side (the first)."""
    from evolve.players import PLAYERS
    from search.base import Limit
    from search.prob import make_engine

    spec = PLAYERS.parse(mentor)
    if spec.is_external:
        raise ValueError(f"the centipawn-loss mentor must be one of our evaluators (expert@depth=N, organism:...), "
                         f"got {mentor!r}")
    depth = spec.limit.depth if spec.limit is not None and spec.limit.depth else 1
    engine = make_engine(PLAYERS(spec), spec.search, hash_mb=8, policy=PLAYERS.policy(spec))
    limit = Limit(depth=depth)
    out = []
    for side, fen, moves, color in entries:
        board = chess.Board(fen)
        losses: list[int] = []
        for ply, uci in enumerate(moves):
            move = chess.Move.from_uci(uci)
            if (ply >= skip_plies and board.turn == color and board.legal_moves.count() > 1
                    and (max_positions is None or len(losses) < max_positions)):
                best = engine.search(board, limit).score
                mine = engine.search(board, limit, root_moves=[move]).score
                losses.append(int(min(max(best - mine, 0), CP_CAP)))
            board.push(move)
        out.append((side, losses))
    return out


def cp_histogram(losses: Sequence[int]) -> np.ndarray:
    """The share of moves in each bin of :data:`CP_BINS` (zeros for no moves).

    >>> cp_histogram([0, 0, 5, 500]).tolist()
    [0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25]
    """
    if not len(losses):
        return np.zeros(len(CP_BINS))
    idx = np.searchsorted(np.array(CP_BINS), np.asarray(losses), side="right") - 1
    return np.bincount(idx, minlength=len(CP_BINS)) / len(losses)


# ---------------------------------------------------------------------------------------------- experiment
@dataclass(frozen=True, kw_only=True)
class ExperimentSettings:
    """``mimic recognize experiment``: the training settings, the centipawn-loss mentor and how many
    positions a side it looks at (``None``: all)."""

    train: TrainSettings
    mentor: str = "expert@depth=1"
    cp_positions: int | None = None


def _k_name(k: int | None) -> str:
    return "all" if k is None else str(k)


def _accuracy(scores: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Top-1 and top-3 of (queries, players) scores (higher is better; ties: the first player)."""
    if not len(truth):
        return float("nan"), float("nan")
    order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), axis=1, kind="stable")
    return float(np.mean(order[:, 0] == truth)), float(np.mean((order[:, :3] == truth[:, None]).any(axis=1)))


def experiment(settings: ExperimentSettings, command: str, on_error: Callable[[str], None] | None = None,
               cache_dir: str | Path | None = None) -> dict[str, Any]:
    """Train, classify the held-out test game sides at each k of :data:`KS`, run the baselines on the same
    split, and write summary.md, confusion.png, accuracy.png and queries-kK.csv into the folder."""
    st = settings.train
    tr = train(st, command, on_error=on_error, cache_dir=cache_dir)
    out = Path(st.out)
    players = list(st.players)
    P = len(players)
    t0 = time.perf_counter()
    where = {side: j for j, side in enumerate(tr.order)}
    vals, rows = position_measures(tr.weights, tr.betas, tr.positions, st.score)
    side_of = tr.positions.side[rows]
    normal = np.array([tr.manifest["clones"][p]["normalisation"] for p in players])
    shared_vals = None
    if tr.shared_weights is not None:
        shared_vals = position_measures(tr.shared_weights, np.array([tr.shared_beta]), tr.positions, st.score)[0]
        shared_centroid = side_means(shared_vals, side_of, [[where[i] for i in tr.sides[p]["validation"]
                                                             or tr.sides[p]["train"]] for p in players])[0]
    # The centipawn-loss profile: training histograms (centroids) and every test side's losses.
    cp_sides = sorted({i for p in players for k in ("train", "test") for i in tr.sides[p][k]})
    entries = [(i, tr.games.games[tr.games.sides[i].game][0], tr.games.games[tr.games.sides[i].game][1],
                tr.games.sides[i].color) for i in cp_sides]
    chunks = [entries[i:i + 10] for i in range(0, len(entries), 10)]
    if st.jobs == 1 or len(chunks) <= 1:
        parts = [cp_losses(c, st.skip_plies, settings.mentor, settings.cp_positions) for c in chunks]
    else:
        from joblib import delayed

        from search.runtime.workers import parallel

        parts = list(parallel(st.jobs)(delayed(cp_losses)(c, st.skip_plies, settings.mentor, settings.cp_positions)
                                       for c in chunks))
    losses = {side: ls for part in parts for side, ls in part}
    centroids = np.array([cp_histogram([x for i in tr.sides[p]["train"] for x in losses[i]]) for p in players])
    seconds_cp = time.perf_counter() - t0

    results: dict[str, Any] = {"k": {}, "players": players}
    test_sides = [(i, p) for p in players for i in tr.sides[p]["test"]]
    for k in KS:
        groups = group_sides([p for _, p in test_sides], k)
        side_groups = [[test_sides[j][0] for j in g] for g in groups]
        truth = np.array([players.index(test_sides[g[0]][1]) for g in groups], dtype=np.int64)
        pos_groups = [[where[i] for i in g] for g in side_groups]
        scores = score_groups(vals, side_of, pos_groups, normal) if groups else np.zeros((0, P))
        npos = side_counts(side_of, pos_groups)
        queries = [Query([f"{tr.games.sources[tr.games.sides[i].game]} "
                          f"{'white' if tr.games.sides[i].color else 'black'}" for i in g],
                         players[truth[j]], tr.games.sides[g[0]].header, int(npos[j]),
                         {p: float(scores[j, c]) for c, p in enumerate(players)})
                    for j, g in enumerate(side_groups)]
        write_csv(out / f"queries-k{_k_name(k)}.csv", queries, players, k)
        keep = npos > 0
        row: dict[str, Any] = {"queries": int(keep.sum())}
        row["clones"] = _accuracy(scores[keep], truth[keep])
        row["chance"] = (1 / P, min(3, P) / P)
        if shared_vals is not None:
            q = side_means(shared_vals, side_of, pos_groups)[0] if groups else np.zeros(0)
            row["shared"] = _accuracy(-np.abs(q[:, None] - shared_centroid[None, :])[keep], truth[keep])
        hists = np.array([cp_histogram([x for i in g for x in losses[i]])
                          for g in side_groups]).reshape(-1, len(CP_BINS))
        has = np.array([sum(len(losses[i]) for i in g) > 0 for g in side_groups], dtype=bool)
        d = -np.linalg.norm(hists[:, None, :] - centroids[None, :, :], axis=2) if len(side_groups) else np.zeros((0, P))
        row["cp_loss"] = _accuracy(d[has], truth[has])
        per_player = {}
        for c, p in enumerate(players):
            mine = keep & (truth == c)
            per_player[p] = (*_accuracy(scores[mine], truth[mine]), int(mine.sum()))
        row["per_player"] = per_player
        confusion = np.zeros((P, P), dtype=np.int64)
        if keep.any():
            pred = np.argsort(-np.nan_to_num(scores[keep], nan=-np.inf), axis=1, kind="stable")[:, 0]
            np.add.at(confusion, (truth[keep], pred), 1)
        row["confusion"] = confusion.tolist()
        results["k"][_k_name(k)] = row
    results["seconds_cp_loss"] = seconds_cp
    plot_confusion(out / "confusion.png", results, players)
    plot_accuracy(out / "accuracy.png", results)
    write_summary(out / "summary.md", results, tr, settings, command)
    return results


def plot_confusion(path: Path, results: dict[str, Any], players: Sequence[str]) -> None:
    """One confusion matrix per k (rows: who played, columns: the top-ranked clone), counts in the cells."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = list(results["k"])
    P = len(players)
    size = max(3.0, 0.45 * P + 1.5)
    fig, axes = plt.subplots(1, len(ks), figsize=(size * len(ks), size + 0.6), squeeze=False)
    for ax, k in zip(axes[0], ks, strict=True):
        m = np.array(results["k"][k]["confusion"], dtype=float)
        share = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
        for i in range(P):
            for j in range(P):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=8,
                            color="white" if share[i, j] > 0.5 else "black")
        top1 = results["k"][k]["clones"][0]
        ax.set_title(f"k = {k}: top-1 {top1:.0%}" if np.isfinite(top1) else f"k = {k}: no queries", fontsize=10)
        ax.set_xticks(range(P), players, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(P), players, fontsize=8)
        ax.set_xlabel("predicted (top-ranked clone)")
        ax.set_ylabel("who played")
    fig.suptitle("Player recognition on held-out game sides: row = who played, shade = share of the row")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_accuracy(path: Path, results: dict[str, Any]) -> None:
    """Top-1 accuracy against k: the clones, the shared organism, the centipawn-loss profile, chance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = list(results["k"])
    x = np.arange(len(ks))
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label, style in (("clones", "personal clones", "o-"), ("shared", "one shared organism", "s--"),
                              ("cp_loss", "centipawn-loss profile", "^--"), ("chance", "chance", ":")):
        if key in results["k"][ks[0]]:
            ax.plot(x, [results["k"][k][key][0] for k in ks], style, label=label)
    ax.set_xticks(x, [f"k = {k}" for k in ks])
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("top-1 accuracy (held-out test queries)")
    ax.set_xlabel("game sides per query")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(x: float) -> str:
    return f"{x:.1%}" if np.isfinite(x) else "–"


def write_summary(path: Path, results: dict[str, Any], tr: Trained, settings: ExperimentSettings, command: str
                  ) -> None:
    st = settings.train
    m = tr.manifest
    players = list(st.players)
    g = m["games"]
    measure = ("mean log-likelihood of the played moves (nats a move, softmax β fitted on its training positions)"
               if st.score == "likelihood" else
               "agreement rate (share of positions where its 1-ply choice is the played move)")
    lines = [f"# Player recognition: {Path(st.out).name}", "", f"Made by ({describe()}):", "",
             "```", command, "```", "",
             f"Games: {g['read']} read from {len(g['files'])} files, {g['duplicates']} duplicates counted once, "
             f"{g['unique']} unique; {g['malformed']} malformed skipped; {g['ambiguous_sides']} game sides naming two "
             f"players left out. Split by game (seed {st.ga.seed}): {g['parts']['train']} training, "
             f"{g['parts']['validation']} validation, {g['parts']['test']} test games (`split.json`). Training game "
             f"sides per player capped at {m['settings']['max_games_applied']}"
             + (f"; validation and test sides at {st.max_held} each" if st.max_held is not None else "") + ".", "",
             f"Score: the clone's {measure} "
             "on the query's positions, minus the clone's average over all players' validation game sides "
             "(`recognize.json`: `normalisation`).", "",
             "## Top-1 / top-3 accuracy on the held-out test game sides", "",
             "| k (game sides a query) | queries | personal clones | one shared organism | centipawn-loss profile "
             "| chance |",
             "|---|---|---|---|---|---|"]
    for k, row in results["k"].items():
        shared = row.get("shared", (float("nan"), float("nan")))
        lines.append(f"| {k} | {row['queries']} | {_pct(row['clones'][0])} / {_pct(row['clones'][1])} | "
                     f"{_pct(shared[0])} / {_pct(shared[1])} | {_pct(row['cp_loss'][0])} / {_pct(row['cp_loss'][1])} | "
                     f"{_pct(row['chance'][0])} / {_pct(row['chance'][1])} |")
    lines += ["", "Baselines, on the same split: *one shared organism* — one organism evolved on all players' "
              "training game sides; its measure of a query beside each player's mean on their validation sides, the "
              "nearest wins (strength without style); *centipawn-loss profile* — each move's loss against "
              f"`{settings.mentor}` as a histogram over bins starting at {', '.join(map(str, CP_BINS))} cp, nearest "
              "centroid (Euclidean) of the players' training histograms"
              + (f" (at most {settings.cp_positions} positions a game side)" if settings.cp_positions else "") + ".",
              "", "## Per player (personal clones, top-1 / top-3, queries)", "",
              "| player | " + " | ".join(f"k = {k}" for k in results["k"]) + " |",
              "|---|" + "---|" * len(results["k"])]
    for p in players:
        cells = []
        for row in results["k"].values():
            a1, a3, n = row["per_player"][p]
            cells.append(f"{_pct(a1)} / {_pct(a3)} ({n})")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines += ["", "## Clones", "", "| player | training / validation / test sides | training positions | "
              "agreement training / validation | β (per cp) | normalisation |", "|---|---|---|---|---|---|"]
    for p in players:
        c = m["clones"][p]
        lines.append(f"| {p} | {c['train_sides']} / {c['validation_sides']} / {c['test_sides']} | "
                     f"{c['train_positions']} | {_pct(c['train_agreement'])} / {_pct(c['validation_agreement'])} | "
                     f"{c['beta']:.4g} | {c['normalisation']:.4f} |")
    if SHARED in m["clones"]:
        c = m["clones"][SHARED]
        lines.append(f"| (shared) | – | {c['train_positions']} | {_pct(c['train_agreement'])} / "
                     f"{_pct(c['validation_agreement'])} | {c['beta']:.4g} | – |")
    lines += ["", "Files: `recognize.json` (settings, players, clones, provenance), `split.json`, `clone-NAME.json` "
              "and `shared.json` (organisms), `queries-kK.csv` (one row per query: `player`, `predicted`, one "
              "`score:NAME` column per player), `confusion.png`, `accuracy.png`.", "",
              "Wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in m["seconds"].items())
              + f", centipawn losses {results['seconds_cp_loss']:.1f} s."]
    path.write_text("\n".join(lines) + "\n")

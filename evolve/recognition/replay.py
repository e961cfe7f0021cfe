"""Replay for engines (``mimic recognize classify --method replay``): who played a game side, by asking each
candidate engine to play the side's positions again and counting the moves it matches.

Engine similarity testing (Dailey's similarity test, SIMEX) tells engines apart this way. Each candidate is a
named player spec (``NAME=SPEC``, :func:`parse_candidates`); it is asked for a move on every position where the side
moved (the position before each of its moves, from ply ``skip_plies`` + 1, one-move positions left out of the
count: the rule of :func:`evolve.data.moves.extract_games`), through the players' one "play a position" API
(:func:`search.players.player.make_player`, ``play``), a new game per side and all the side's positions from that
ply in game order with the moves before them on the board, as the candidate met them in the game (so a
deterministic engine replayed at its game's limit meets the same hash and plays the same moves). Its limit is that
of ``mimic games --movetime``: ``movetime`` seconds a move, our engine's own ``@nodes=``, ``@depth=``, ``@movetime=``
on top; an external engine with its own limit is sent that limit alone
(:meth:`search.players.player.ExternalPlayer.sent_limit`), since engines honour one limit of ``go``, not the first of
several (Ethereal ignores ``nodes`` beside ``movetime``): replayed so, Stockfish at a node limit and Ethereal, Toga II
and Glaurung at a depth replay their own games' moves exactly (Ethereal 12 stops ``go nodes`` after depth 1, Toga II
ignores it, Glaurung at a node limit may answer ``bestmove (none)``:
:func:`search.players.player.node_limit_complaint` names such an engine).

A query's score by a candidate is its *matching share*: the share of the query's positions where the candidate
plays the move that was played. Where the candidate is a UCI engine and ``multipv`` > 0, it also analyses each
position with that many MultiPV lines (after the side's moves were replayed, so the replayed moves meet the same
hash as in the game) and the played move's log-likelihood is taken under ``softmax(BETA × score / 100)`` over
the legal moves, scores in centipawns from the side to move's view capped at ±:data:`SCORE_CAP`; a legal move
outside the MultiPV list counts as :data:`OUTSIDE_CP` centipawns worse than the worst listed move. Candidates are
ranked by matching share, ties broken by the mean log-likelihood (:class:`ReplayQuery`).

Exact candidates (:func:`is_exact`: a depth or node limit of their own, no randomising option) are replayed first on
every position; the positions where they all play the played move tell none of them apart and are left out for every
candidate, and the others (limited by time, randomised: the slow ones, each move a full ``movetime``) are asked only
the rest (:func:`replay_sides`).

A candidate fails on a position when it gives no move, an illegal or null move, no move within the deadline of
``mimic games --movetime`` (its engine killed and restarted) or crashes (:data:`FAILURES`): the position is left out
of its score and counted, in the report and each query's ``failed``; a candidate that fails on every position it is
asked stops the run (:class:`~search.runtime.errors.RunError`).

Replayed moves are cached (:func:`organisms.feature_cache.save_keyed_npz`) under ``$MIMIC_CACHE/replay``, one file
per candidate and game side, keyed by the side (starting position, moves, colour), ``skip_plies``, the spec, its
file's size and time, the limit, ``multipv`` and the plies asked: a second run, or another query file with some of
the same sides, reads them back. A side a candidate failed on anywhere is not cached: the next run asks it again.

May import chess, numpy, :mod:`search`, :mod:`organisms` and the recognition modules below it; the registry of
player kinds arrives as an argument (``evolve.players.PLAYERS``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import numpy as np

from evolve.data.moves import normal_name
from evolve.recognition.caches import cache_folder
from evolve.recognition.classification import Query, group_sides, load_clones, query_groups, used_games
from evolve.recognition.gameset import GameSet, Progress, parse_aliases, read_game_set
from evolve.recognition.replay_candidates import Candidate, is_exact, replay_key
from evolve.recognition.replay_scores import (
    FAILURES,
    RANKINGS,
    decisive_plies,
    failed_counts,
    failure_text,
    log_likelihood,
    score_offsets,
    score_replay,
)
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from search.base import Limit
from search.games.game import movetime_deadline
from search.players.player import ExternalPlayer, PlayerError, make_player
from search.players.spec import PlayerRegistry, PlayerSpec
from search.runtime.errors import RunError
from search.runtime.workers import parallel_map

REPLAY = "replay"
"""The stage of replaying the candidates; its units are tasks (one candidate on a chunk of game sides)."""

_ARRAYS = ("side", "ply", "match", "loglik", "rank", "error", "overrun")
_CACHED = _ARRAYS[1:]
"""What the cache holds of one side's replay (the side's index is the caller's)."""
_FLAGS = ("match", "error", "overrun")
SideEntry = tuple[int, str, list[str], bool]
"""A game side to replay: (its index in the caller's list, the game's starting FEN, its UCI moves, colour)."""


@dataclass
class ReplayQuery(Query):
    """A :class:`~evolve.recognition.classification.Query` whose scores are each candidate's score (its
    :data:`SCORES` entry) minus ``offset`` (its score over every replayed position: the normalised ranking; empty:
    the raw one), with each candidate's mean log-likelihood of the played moves (nats a move; NaN without MultiPV)
    to break ties, and the positions each candidate failed on (not scored; NaN if all were: :data:`FAILURES`)."""

    likelihood: dict[str, float] = field(default_factory=dict)
    offset: dict[str, float] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)

    @property
    def ranking(self) -> list[str]:
        """Candidates by score, then by mean log-likelihood, best first (then their order)."""
        names = list(self.scores)

        def key(n: str) -> tuple[float, float, int]:
            share, ll = self.scores[n], self.likelihood.get(n, math.nan)
            return (-share if math.isfinite(share) else math.inf, -ll if math.isfinite(ll) else math.inf,
                    names.index(n))

        return sorted(names, key=key)


def side_positions(fen: str, moves: Sequence[str], color: bool, skip_plies: int
                   ) -> Iterator[tuple[int, chess.Board, chess.Move, bool]]:
    """Where the side of ``color`` moved from ply ``skip_plies`` + 1 on: (the ply, counted from the game's start
    at 0; the board before the move, with the game's moves on its stack; the played move; whether the position
    counts, i.e. has more than one legal move). The board is the caller's only until the next item."""
    board = chess.Board(fen)
    for ply, uci in enumerate(moves):
        move = chess.Move.from_uci(uci)
        if ply >= skip_plies and board.turn == color:
            yield ply, board, move, board.legal_moves.count() > 1
        board.push(move)


def replay_limit(spec: PlayerSpec, movetime: float) -> Limit:
    """The limit a candidate replays at: ``movetime`` seconds a move capped by its spec's own limits (what
    ``mimic games --movetime`` gives it)."""
    return Limit(movetime=movetime).capped(spec.limit)


def _timeout(limit: Limit) -> float:
    return limit.movetime * 3 + 5 if limit.movetime is not None else 120.0


_NO_MOVE, _ILLEGAL, _TIMEOUT, _CRASH = FAILURES
_FAILED_BY = {"time forfeit": _TIMEOUT, "crash": _CRASH, "error": _ILLEGAL}  # python-chess: illegal is an error


def _deadline(player: object, limit: Limit) -> float:
    """Seconds a move of ``player`` may take at ``limit`` before it fails as a timeout: that of ``mimic games
    --movetime`` when the player is sent a time (our engine, an engine without a limit of its own); an engine sent
    its own depth or nodes alone is told to stop first (an overrun) and killed only at :func:`_timeout`."""
    sent = player.sent_limit(limit) if isinstance(player, ExternalPlayer) else limit
    return movetime_deadline(sent.movetime) if sent.movetime is not None else _timeout(limit)


def replay_chunk(entries: Sequence[SideEntry], spec: str, movetime: float, skip_plies: int, multipv: int,
                 registry: PlayerRegistry, max_positions: int | None = None,
                 ask: dict[int, frozenset[int]] | None = None) -> dict[str, np.ndarray]:
    """Worker task: one candidate replayed on game sides (see the module docstring), on each side's first
    ``max_positions`` counted positions (``None``: all); with ``ask`` (an entry's index: the plies to ask), only
    those of each side (the others are not asked at all). Per position: ``side`` (the entry's index), ``ply``,
    ``match`` (1 when the candidate played the played move), ``loglik`` (NaN without MultiPV), ``rank`` (the played
    move's 1-based rank among the MultiPV lines, 0 outside them, -1 without MultiPV), ``error`` (how the candidate
    failed there, :data:`FAILURES`, 0 when it did not; a killed or dead engine is restarted), ``overrun`` (1 when an
    external engine did not stop at its own limit and was told to,
    :meth:`search.players.player.ExternalPlayer.play`)."""
    s = registry.parse(spec)
    limit = replay_limit(s, movetime)
    out: dict[str, list[float]] = {n: [] for n in _ARRAYS}
    player = None
    try:
        for index, fen, moves, color in entries:
            wanted = None if ask is None else ask.get(index, frozenset())
            asked: list[tuple[chess.Board, chess.Move, int]] = []
            counted_seen = 0
            for ply, board, played, counted in side_positions(fen, moves, color, skip_plies):
                if max_positions is not None and counted and counted_seen >= max_positions:
                    break
                counted_seen += counted
                if wanted is not None and ply not in wanted:
                    continue  # not asked: a candidate asked only some positions keeps no exact hash anyway
                if player is None:
                    player = make_player(s, registry)
                    player.new_game()
                inner = getattr(player, "inner", player)
                before = getattr(inner, "overruns", 0)
                move, failed, deadline = None, 0, _deadline(inner, limit)
                t0 = time.perf_counter()
                try:  # a one-move position is asked too (as in the game: it fills the hash) but not counted
                    move = player.play(board, limit, timeout=deadline).move
                except PlayerError as exc:
                    failed = _FAILED_BY.get(exc.reason, _CRASH)
                    player.close()
                    player = None
                else:
                    failed = (_TIMEOUT if time.perf_counter() - t0 > deadline else _NO_MOVE if move is None
                              else _ILLEGAL if move not in board.legal_moves else 0)
                if counted:
                    out["side"].append(index)
                    out["ply"].append(ply)
                    out["match"].append(not failed and move == played)
                    out["error"].append(failed)
                    out["overrun"].append(getattr(inner, "overruns", 0) > before)
                    asked.append((board.copy(), played, failed))
            analyst = getattr(player, "inner", player)
            for board, played_move, failed in asked:
                ll, rank = math.nan, -1
                if multipv > 0 and s.kind == "uci" and isinstance(analyst, ExternalPlayer) and not failed:
                    try:
                        lines = analyst.analyse(board, limit, multipv, timeout=_timeout(limit) * multipv)
                        ll = log_likelihood(lines, played_move, board.legal_moves.count())
                        rank = next((r for r, (m, _) in enumerate(lines, 1) if m == played_move), 0)
                    except PlayerError as exc:  # no likelihood; a killed or dead engine is replaced next side
                        if exc.reason != "error" and player is not None:
                            player.close()
                            player = analyst = None
                out["loglik"].append(ll)
                out["rank"].append(rank)
            if player is not None:
                player.new_game()
    finally:
        if player is not None:
            player.close()
    return {n: np.array(out[n], dtype=_dtype(n)) for n in _ARRAYS}


def replay_sides(entries: Sequence[SideEntry], candidates: Sequence[Candidate], registry: PlayerRegistry,
                 skip_plies: int = 0, movetime: float = 0.1, multipv: int = 0, jobs: int = 1,
                 cache: Path | None = None, use_cache: bool = True,
                 on_progress: Progress | None = None, max_positions: int | None = None, decisive: bool = True
                 ) -> dict[str, dict[str, np.ndarray]]:
    """Every candidate replayed on the game sides ``entries`` (see :func:`replay_chunk` for the arrays, one
    element a position, in the entries' order; ``max_positions``: each side's first that many), by candidate
    name. The exact candidates (:func:`is_exact`) are replayed first on every position; with ``decisive`` and two
    of them or more, only the positions where they disagree with the played move (:func:`decisive_plies`) are kept
    for everyone, and only those are asked of the others (limited by time or randomised: the slow ones). MultiPV
    lines (``multipv``) are asked of the candidates scored by likelihood only (:data:`SCORES`). Candidates and
    chunks of sides are spread over ``jobs`` workers (one engine a task); each candidate's replay of each side is
    read from the replay cache's folder ``cache`` (default ``$MIMIC_CACHE/replay``,
    :func:`evolve.recognition.caches.cache_folder`) when it holds it (not with ``use_cache`` false), so another query
    file with some of the same sides replays only the others. ``on_progress``: stage :data:`REPLAY`, once a phase."""
    folder = cache if cache is not None else cache_folder("replay")
    specs = {c.name: registry.parse(c.spec) for c in candidates}
    first = [c for c in candidates if is_exact(specs[c.name])]
    rest = [c for c in candidates if not is_exact(specs[c.name])]
    if not (decisive and len(first) >= 2):
        first, rest = list(candidates), []
    args = (specs, folder, entries, registry, skip_plies, movetime, multipv, jobs, use_cache, on_progress,
            max_positions)
    out = _replay_phase(first, None, *args)
    if decisive and len(first) >= 2:
        ask = decisive_plies(out)
        for name, arrays in out.items():
            keep = np.array([p in ask.get(s, ()) for s, p in zip(arrays["side"].tolist(), arrays["ply"].tolist(),
                                                                   strict=True)], dtype=bool)
            out[name] = {n: a[keep] for n, a in arrays.items()}
        out.update(_replay_phase(rest, ask, *args))
    return {c.name: out[c.name] for c in candidates}


def _replay_phase(candidates: Sequence[Candidate], ask: dict[int, frozenset[int]] | None,
                  specs: dict[str, PlayerSpec], folder: Path, entries: Sequence[SideEntry], registry: PlayerRegistry,
                  skip_plies: int, movetime: float, multipv: int, jobs: int, use_cache: bool,
                  on_progress: Progress | None, max_positions: int | None) -> dict[str, dict[str, np.ndarray]]:
    """:func:`replay_sides`'s candidates of one phase on ``entries`` (``ask``: the plies asked of each side, for
    :func:`replay_chunk`), each side read from the cache or replayed, then stored."""
    parts: dict[str, dict[int, dict[str, np.ndarray]]] = {c.name: {} for c in candidates}
    keys: dict[tuple[str, int], str] = {}
    tasks: list[tuple[str, list[SideEntry]]] = []
    lines = {c.name: multipv if c.score == "likelihood" else 0 for c in candidates}
    for c in candidates:
        s = specs[c.name]
        todo = []
        for e in entries:
            asked = None if ask is None else ask.get(e[0], frozenset())
            key = replay_key(e, s, replay_limit(s, movetime), skip_plies, lines[c.name], max_positions, asked)
            keys[(c.name, e[0])] = key
            got = load_keyed_npz(folder / f"replay-{key}.npz", _CACHED, key) if use_cache else None
            if got is not None and len({len(a) for a in got.values()}) == 1:
                parts[c.name][e[0]] = {"side": np.full(len(got["ply"]), e[0], dtype=np.int64), **got}
            else:
                todo.append(e)
        size = max(1, min(16, -(-len(todo) // max(2 * jobs, 1))))
        tasks += [(c.name, todo[i:i + size]) for i in range(0, len(todo), size)]
    if on_progress is not None:
        on_progress(REPLAY, 0, len(tasks))
    spec_of = {c.name: c.spec for c in candidates}
    results = parallel_map(_task, tasks, jobs, args=(spec_of, movetime, skip_plies, lines, registry, max_positions,
                                                     ask), batch_size=1)
    for done, ((name, chunk), part) in enumerate(zip(tasks, results, strict=True), 1):
        for e in chunk:
            mine = part["side"] == e[0]
            arrays = {n: a[mine] for n, a in part.items()}
            parts[name][e[0]] = arrays
            if use_cache and not arrays["error"].any():  # a failure is asked again next time, never read back
                save_keyed_npz(folder / f"replay-{keys[(name, e[0])]}.npz", arrays, _CACHED, keys[(name, e[0])])
        if on_progress is not None:
            on_progress(REPLAY, done, len(tasks))
    return {name: {n: np.concatenate([by_side[e[0]][n] for e in entries]) if entries else np.zeros(0, dtype=_dtype(n))
                   for n in _ARRAYS} for name, by_side in parts.items()}


def _dtype(name: str) -> type:
    """The dtype of one of :data:`_ARRAYS`."""
    return np.float64 if name == "loglik" else np.int8 if name in _FLAGS else np.int64


def _task(task: tuple[str, list[SideEntry]], spec_of: dict[str, str], movetime: float, skip_plies: int,
          lines: dict[str, int], registry: PlayerRegistry, max_positions: int | None,
          ask: dict[int, frozenset[int]] | None) -> dict[str, np.ndarray]:
    """:func:`replay_chunk` of one task (a worker's unit for :func:`parallel_map`)."""
    name, entries = task
    return replay_chunk(entries, spec_of[name], movetime, skip_plies, lines[name], registry, max_positions, ask)


def classify_replay(folder: str | Path | None, query: str | Path, candidates: Sequence[Candidate],
                    registry: PlayerRegistry, k: int | None = 1, jobs: int = 1,
                    on_error: Callable[[str], None] | None = None, held_out: bool = False, movetime: float = 0.1,
                    multipv: int = 0, skip_plies: int = 0, cache_dir: str | Path | None = None,
                    on_progress: Progress | None = None, ranking: str = "normalised") -> list[ReplayQuery]:
    """Score every game side of ``query`` (or every group of ``k`` sides with the same header player, as
    :func:`evolve.recognition.classification.classify` groups them) by replaying each candidate on its positions
    (the module docstring); the candidates' names are the players the headers name. ``folder`` (a ``recognize
    train`` DIR, checked) gives the skipped plies, the aliases and exclusions, and with ``held_out`` the games its
    split used (left out); ``None``: ``skip_plies``, no aliases. ``cache_dir``: the features' folder, the replay
    cache beside it (:mod:`evolve.recognition.caches`). ``ranking``: :data:`RANKINGS` (normalised over every side of
    ``query``). ``on_progress``: stages ``games`` then :data:`REPLAY`."""
    st: dict[str, Any] = {"skip_plies": skip_plies}
    if folder is not None:
        st = load_clones(folder)[0]["settings"]
    elif held_out:
        raise ValueError("held_out needs the folder whose split says which games were used")
    names = [c.name for c in candidates]
    gs = read_game_set([query], names, parse_aliases(st.get("aliases", [])), dedupe=False, all_sides=True,
                       exclude=st.get("exclude", []), on_error=on_error, on_progress=on_progress)
    if held_out and folder is not None:
        used = used_games(folder)
        gs.sides = [sd for sd in gs.sides if gs.keys[sd.game] not in used]
    labels = [s.player or f"?{normal_name(s.header)}" for s in gs.sides]
    query_groups(labels, k, query, held_out, [len(gs.games[s.game][1]) for s in gs.sides],
                 st["skip_plies"])  # before any replay: refuse to classify nothing
    return replay_queries(gs, list(range(len(gs.sides))), labels, candidates, registry, [k], st["skip_plies"],
                          movetime, multipv, jobs, cache_folder("replay", cache_dir), None if on_error is None else
                          (lambda m: on_error(f"{query}: {m}")), on_progress, ranking=ranking)[0]


def replay_queries(gs: GameSet, sides: Sequence[int], labels: Sequence[str], candidates: Sequence[Candidate],
                   registry: PlayerRegistry, ks: Sequence[int | None], skip_plies: int = 0, movetime: float = 0.1,
                   multipv: int = 0, jobs: int = 1, cache: Path | None = None,
                   on_error: Callable[[str], None] | None = None,
                   on_progress: Progress | None = None, max_positions: int | None = None,
                   ranking: str = "raw") -> list[list[ReplayQuery]]:
    """The game sides ``gs.sides[i]`` for ``i`` in ``sides``, each with its label (the player, or another name
    for a side of nobody's), replayed once by every candidate (:func:`replay_sides`) and scored in groups of each
    ``k`` of ``ks`` sides of one label (:func:`evolve.recognition.classification.group_sides`): one list of
    queries per ``k``; ``max_positions``: each side's first that many positions only. Each candidate is scored by
    its :attr:`Candidate.score` over the positions it did not fail on and ranked by ``ranking`` (:data:`RANKINGS`;
    ``normalised`` subtracts :func:`score_offsets` over all these sides, when they have two labels or more).
    ``on_error`` hears of each candidate's failures (:data:`FAILURES`, counted by kind) and of candidates scored by
    likelihood without one; :class:`~search.runtime.errors.RunError` names a candidate that failed on every
    position it was asked (nothing to score it by). ``cache``: the replay cache's folder (:func:`replay_sides`).
    ``on_progress``: stage :data:`REPLAY`."""
    if ranking not in RANKINGS:
        raise ValueError(f"unknown ranking {ranking!r}: one of {', '.join(RANKINGS)}")
    entries = [(j, gs.games[gs.sides[i].game][0], gs.games[gs.sides[i].game][1], gs.sides[i].color)
               for j, i in enumerate(sides)]
    replayed = replay_sides(entries, candidates, registry, skip_plies, movetime, multipv, jobs, cache,
                            on_progress=on_progress, max_positions=max_positions)
    for name, r in replayed.items():
        failed = int((r["error"] != 0).sum())
        if failed and failed == len(r["error"]):
            raise RunError(f"candidate {name}: failed on all {failed} replayed positions ({failure_text(r['error'])})"
                           ": nothing to score it by (does it play a legal move within --movetime?)")
        if failed and on_error is not None:
            on_error(f"candidate {name}: failed on {failed} of {len(r['error'])} replayed positions "
                     f"({failure_text(r['error'])}): left out of its scores, asked again next run")
        if int(r["overrun"].sum()) and on_error is not None:
            on_error(f"candidate {name}: did not stop at its own limit in {int(r['overrun'].sum())} of "
                     f"{len(r['overrun'])} positions and was told to (does it honour go nodes? give it @depth=)")
    scores = {}
    for c in candidates:
        scores[c.name] = c.score
        if c.score == "likelihood" and not np.isfinite(replayed[c.name]["loglik"]).any():
            scores[c.name] = "match"
            if on_error is not None and len(replayed[c.name]["loglik"]):
                on_error(f"candidate {c.name}: no MultiPV likelihood (a UCI engine with --multipv above 0 gives "
                         "one): scored by matching moves")
    offset = score_offsets(replayed, scores) if ranking == "normalised" and len(set(labels)) > 1 else {}
    names = [c.name for c in candidates]
    out = []
    for k in ks:
        groups = group_sides(labels, k)
        counts, share, loglik = score_replay(replayed, groups, scores)
        missed = failed_counts(replayed, groups)
        queries = []
        for j, group in enumerate(groups):
            first = gs.sides[sides[group[0]]]
            queries.append(ReplayQuery(
                [f"{gs.sources[gs.sides[sides[i]].game]} {'white' if gs.sides[sides[i]].color else 'black'}"
                 for i in group], first.player or "", first.header, int(counts[j]),
                {n: float(share[j, c]) - offset.get(n, 0.0) for c, n in enumerate(names)},
                {n: float(loglik[j, c]) for c, n in enumerate(names)}, dict(offset),
                {n: int(missed[j, c]) for c, n in enumerate(names)}))
        out.append(queries)
    return out

"""The mentor profile of a game side: how its moves rank, and what they cost, under a real engine at a fixed
shallow limit.

At every position where the side moved from ply ``skip_plies`` + 1 on (one-move positions left out) the mentor
searches at each depth of ``depths`` (e.g. 1 and 6) with :data:`MULTIPV` lines. At the deepest, the played move's
*rank* (1 .. :data:`MULTIPV`, or :data:`MULTIPV` + 1 when it is not among the lines) and its *centipawn loss* (the
best line's score minus the played move's, side to move's view, capped at :data:`~evolve.recognition.baselines.CP_CAP`)
are taken; at every depth, whether the played move is the engine's first choice and among its top 3. A played move
outside the lines is scored by searching the position after it one ply shallower (negated), and never better than
the last line (it was not among the lines).

The mentor is a UCI engine (a path: Stockfish, any engine with MultiPV; started through python-chess, one process
a task, ``ucinewgame`` before every position so a score depends only on the position and the depth) or one of our
evaluators (``expert``, ``organism:PATH``: every legal move searched with ``root_moves``, exact but slow; the
fallback where no Stockfish is installed). :func:`default_engine`: Stockfish when installed, else ``expert``.

A side's features (:func:`profile_names`): per game phase (by material: :func:`phase`) the share of its positions
in that phase, the mean centipawn loss (pawns), the share of first choices and the mean rank; the share of moves in
each centipawn-loss bin (:data:`~evolve.recognition.baselines.CP_BINS`); at each depth, the shares of first-choice
and top-3 agreement. NaN where a side has no position (of a phase).

May import chess, numpy, :mod:`search` (conventions, the engine) and :mod:`evolve.recognition.baselines`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from typing import Any

import chess
import chess.engine
import numpy as np

from evolve.recognition.baselines import CP_BINS, CP_CAP, built_in_engine, cp_histogram
from search.conventions import MATE, from_engine_score
from search.runtime.errors import MimicError

MULTIPV = 3
"""Lines the mentor gives at each position (the top-3 agreement needs 3)."""

PHASES = ("opening", "middlegame", "endgame")

PHASE_UNITS = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
"""Material units of the game phase (24 at the start): a position with at least :data:`OPENING_UNITS` is in the
opening, with at most :data:`ENDGAME_UNITS` in the endgame, else in the middlegame."""
OPENING_UNITS = 20
ENDGAME_UNITS = 8

START_TIMEOUT = 10.0
"""Seconds a UCI engine has to answer ``uci`` with ``uciok``."""

STOCKFISH = "/usr/games/stockfish"
"""Where Debian installs Stockfish (not on every ``PATH``)."""


class ProfileEngineError(MimicError, ValueError):
    """A mentor that cannot be used for the profile: one line naming it and why."""


def default_engine() -> str:
    """Stockfish when installed (on ``PATH``, or :data:`STOCKFISH`), else our built-in ``expert``."""
    found = shutil.which("stockfish")
    if found:
        return found
    return STOCKFISH if os.access(STOCKFISH, os.X_OK) else "expert"


def is_uci(engine: str) -> bool:
    """Whether ``engine`` names a UCI engine's executable (a path) rather than one of our evaluators' specs."""
    return os.sep in engine or os.path.isfile(engine)


def engine_identity(engine: str) -> str:
    """What the profile's cache key says about ``engine``: the real path, size and modification time of a UCI
    engine's file, or the spec of ours; :class:`ProfileEngineError` when the file is not an executable."""
    if not is_uci(engine):
        return engine
    real = os.path.realpath(engine)
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        raise ProfileEngineError(f"--profile-engine {engine}: not an executable file")
    st = os.stat(real)
    return f"{real}|{st.st_size}|{int(st.st_mtime)}"


def check_engine(engine: str) -> None:
    """Refuse, before any work, a profile engine that cannot be used: a file that is not an executable or does not
    speak UCI, or a spec that is not one of our evaluators (:class:`ProfileEngineError`, one line)."""
    engine_identity(engine)
    mentor = _Uci(engine) if is_uci(engine) else _BuiltIn(engine)
    mentor.close()


def phase(board: chess.Board) -> int:
    """The game phase of a position (index into :data:`PHASES`) by material (:data:`PHASE_UNITS`).

    >>> phase(chess.Board()), phase(chess.Board("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1"))
    (0, 2)
    """
    units = sum(n * len(board.pieces(p, c)) for p, n in PHASE_UNITS.items() for c in chess.COLORS)
    return 0 if units >= OPENING_UNITS else 2 if units <= ENDGAME_UNITS else 1


class _Uci:
    """A UCI mentor: MultiPV lines, and a move outside them scored by the position after it."""

    def __init__(self, path: str) -> None:
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci([path], timeout=START_TIMEOUT)
            self.engine.configure({k: v for k, v in (("Threads", 1), ("Hash", 16)) if k in self.engine.options})
        except TimeoutError as exc:
            raise ProfileEngineError(f"--profile-engine {path}: no UCI answer (uciok) within {START_TIMEOUT:g} s"
                                     ) from exc
        except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
            raise ProfileEngineError(f"--profile-engine {path}: cannot start it as a UCI engine: {exc}") from exc

    def lines(self, board: chess.Board, depth: int, game: object) -> list[tuple[chess.Move, int]]:
        infos = self.engine.analyse(board, chess.engine.Limit(depth=depth), multipv=MULTIPV, game=game)
        return [(i["pv"][0], from_engine_score(i["score"].relative)) for i in infos if i.get("pv") and "score" in i]

    def score_of(self, board: chess.Board, move: chess.Move, depth: int, game: object) -> int:
        child = board.copy(stack=False)
        child.push(move)
        if child.is_game_over():
            return MATE if child.is_checkmate() else 0
        info = self.engine.analyse(child, chess.engine.Limit(depth=max(depth - 1, 1)), game=game)
        return -from_engine_score(info["score"].relative)

    def close(self) -> None:
        self.engine.quit()


class _BuiltIn:
    """One of our evaluators: every legal move searched with ``root_moves`` at the depth asked."""

    def __init__(self, spec: str) -> None:
        from search.base import Limit

        self.limit = Limit
        try:
            self.engine = built_in_engine(spec)[0]
        except ValueError as exc:
            raise ProfileEngineError(f"--profile-engine {spec}: {exc}") from exc

    def lines(self, board: chess.Board, depth: int, game: object) -> list[tuple[chess.Move, int]]:
        scored = [(m, self.score_of(board, m, depth, game)) for m in board.legal_moves]
        return sorted(scored, key=lambda ms: -ms[1])[:MULTIPV]

    def score_of(self, board: chess.Board, move: chess.Move, depth: int, game: object) -> int:
        return int(self.engine.search(board, self.limit(depth=depth), root_moves=[move]).score)

    def close(self) -> None:
        pass


def profile_names(depths: Sequence[int]) -> tuple[str, ...]:
    """The profile's feature names, in order (see the module docstring)."""
    per_phase = [f"profile:{p}:{m}" for p in PHASES for m in ("share", "cp_loss", "first", "rank")]
    bins = [f"profile:cp_bin:{lo}" for lo in CP_BINS]
    agree = [f"profile:d{d}:{m}" for d in depths for m in ("first", "top3")]
    return (*per_phase, *bins, *agree)


def side_moves(board: chess.Board, move: chess.Move, color: bool, ply: int, skip_plies: int) -> bool:
    """Whether the side ``color`` is measured at this position: its move, from ply ``skip_plies`` + 1 on, with
    more than one legal move (the clones' positions)."""
    return ply >= skip_plies and board.turn == color and board.legal_moves.count() > 1


def measure(engine: Any, board: chess.Board, move: chess.Move, depths: Sequence[int]) -> tuple[int, int, list[bool]]:
    """(rank at the deepest depth, centipawn loss there, [first choice, top 3] at each depth) of ``move``."""
    game = object()  # one new game a position: ucinewgame, so nothing carries over between positions
    agree: list[bool] = []
    rank, loss = MULTIPV + 1, 0
    for depth in depths:
        lines = engine.lines(board, depth, game)
        moves = [m for m, _ in lines]
        agree += [bool(moves) and moves[0] == move, move in moves[:3]]
        if depth == max(depths) and lines:
            if move in moves:
                rank, mine = moves.index(move) + 1, lines[moves.index(move)][1]
            else:
                mine = min(engine.score_of(board, move, depth, game), lines[-1][1])
            loss = int(min(max(lines[0][1] - mine, 0), CP_CAP))
    return rank, loss, agree


def summarise(records: Sequence[tuple[int, int, int, list[bool]]], n_depths: int) -> np.ndarray:
    """A side's profile features from its positions' (phase, rank, loss, agreements) (see the module docstring).

    >>> summarise([(0, 1, 0, [True, True]), (0, 4, 300, [False, False])], 1)[:4].tolist()
    [1.0, 1.5, 0.5, 2.5]
    """
    out = []
    n = len(records)
    for p in range(len(PHASES)):
        mine = [r for r in records if r[0] == p]
        share = len(mine) / n if n else float("nan")
        if mine:
            out += [share, float(np.mean([r[2] for r in mine])) / 100, float(np.mean([r[1] == 1 for r in mine])),
                    float(np.mean([r[1] for r in mine]))]
        else:
            out += [share, float("nan"), float("nan"), float("nan")]
    out += cp_histogram([r[2] for r in records]).tolist() if n else [float("nan")] * len(CP_BINS)
    agree = np.array([r[3] for r in records], dtype=np.float64).reshape(n, 2 * n_depths)
    out += agree.mean(axis=0).tolist() if n else [float("nan")] * (2 * n_depths)
    return np.array(out, dtype=np.float64)


def profiles(entries: Sequence[tuple[int, str, list[str], bool]], skip_plies: int, engine: str,
             depths: Sequence[int]) -> list[tuple[int, np.ndarray]]:
    """The profile features (:func:`profile_names`) of game sides given as (side, FEN, UCI moves, colour), against
    ``engine`` (a UCI engine's path or a spec of ours) at ``depths``; one engine for all of them (the work of one
    task)."""
    mentor: Any = _Uci(engine) if is_uci(engine) else _BuiltIn(engine)
    out = []
    try:
        for side, fen, moves, color in entries:
            board = chess.Board(fen)
            records = []
            for ply, uci in enumerate(moves):
                move = chess.Move.from_uci(uci)
                if side_moves(board, move, color, ply, skip_plies):
                    records.append((phase(board), *measure(mentor, board, move, depths)))
                board.push(move)
            out.append((side, summarise(records, len(depths))))
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
        raise ProfileEngineError(f"--profile-engine {engine}: {exc}") from exc
    finally:
        mentor.close()
    return out

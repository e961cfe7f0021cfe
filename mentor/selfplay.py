"""Self-play data generation (``mimic datagen``, what NNUE projects call datagen): the mentor plays itself from varied
starts, and the score of every position it searches becomes a label.

A game (:func:`play_game`) starts from one of the openings (chosen by the game's own seeded generator), then plays
``random_plies`` uniformly random legal moves, then the mentor's best move at every ply (or, with probability
``random_rate``, a random legal move instead). Every searched position is a candidate label: its score (centipawns,
side to move), depth and PV are the mentor's, exactly as ``mimic label`` would have written them; the game's result
becomes ``c9`` (White's view, as EPD), the position's move number ``fmvn`` and its plies to the end ``c2``. A game
ends by the rules (checkmate, stalemate, insufficient material, threefold repetition, the fifty-move rule), by
resignation (the mentor's score beyond ``resign_cp`` or a mate for ``resign_plies`` plies in a row, both sides
agreeing) or as a draw after ``max_plies``.

Filters (:class:`SelfPlayOptions`) leave out the first ``skip_plies`` plies, positions in check, positions whose best
move is a capture or a promotion (``skip_noisy``) and scores beyond ``cap`` (mates included); then at most
``per_game`` of the rest are kept (a seeded choice; 0: all).

Settings that can produce no label are refused before the mentor starts (:func:`check_settings`): an opening with no
legal move or with insufficient material is left out (:func:`unplayable`), none left is refused, and so is a
``skip_plies`` beyond every game's last searched ply. A run whose games stop giving labels ends
(:class:`~search.runtime.errors.RunError`): :data:`DRY_GAMES` games in a row with none, or :data:`GAVE_UP_GAMES` in a
row the mentor gave up on.

Games are numbered; game ``g`` of seed ``s`` is the same game whatever the worker or the order (its generator is
seeded with ``(s, g)``, and the mentor's hash is cleared at the game's first search and kept through the game, as
an engine's is when it plays: a single-threaded engine then searches the same way every time), and
each label's ``id`` is ``selfplay:s:g:ply``, so a resumed run finds the games already written and plays only the
others. The whole game is written at once, after it ends (its result is needed), so a killed run loses at most the
games in flight. Parallel through :func:`mentor.pool.mentor_map` (threads for a UCI mentor, whose work
is in its engine process; a Dask cluster runs it too), each worker keeping one mentor (:mod:`mentor.pool`).

May import: chess, numpy, ``mentor.labels``, ``mentor.pool``, ``search/``.
"""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import chess
import numpy as np

from mentor.labeller import LabelRun, LabelSummary, open_run, record_run
from mentor.labels import DEFAULT_CAP, Label, LabelWriter, repair_label_file
from mentor.pool import MentorConfig, close_mentors, mentor_map, worker_mentor
from mentor.uci_client import Analysis, EngineError
from search.conventions import ce_from_mate_moves, ce_is_mate, legal_prefix, position_key
from search.formats.textfile import open_text
from search.runtime.errors import RunError, SettingsError
from search.runtime.provenance import utc_now
from search.runtime.workers import dropping_results

SOURCE = "selfplay"
"""The ``c0`` (source) of every self-play label, and the first field of its ``id``."""
MAX_PLIES = 12_000
"""The bound on ``random_plies``, ``skip_plies`` and ``max_plies``: beyond the longest game the fifty-move rule allows
(a capture or a pawn move at least every 100 plies: under 11,900 plies)."""
DRY_GAMES = 100
"""Games in a row (in game order) that give no label after which a run ends: its settings leave out every position."""
GAVE_UP_GAMES = 3
"""Games in a row the mentor gave up on (it died, hung or sent refused scores past its retries) that end a run."""


@dataclass(frozen=True, kw_only=True)
class SelfPlayOptions:
    """How a game is played and which of its positions become labels (see the module docstring). Plies and
    centipawns; ``random_rate`` a probability."""

    random_plies: int = 6
    random_rate: float = 0.0
    max_plies: int = 400
    resign_cp: int = 2000
    resign_plies: int = 4
    skip_plies: int = 8
    skip_check: bool = True
    skip_noisy: bool = True
    cap: int = DEFAULT_CAP
    per_game: int = 0

    def __post_init__(self) -> None:
        if min(self.random_plies, self.skip_plies, self.per_game) < 0 or self.max_plies < 1:
            raise SettingsError("--random-plies, --skip-plies and --per-game must not be negative, --game-plies "
                                "positive")
        for flag, plies in (("--random-plies", self.random_plies), ("--skip-plies", self.skip_plies),
                            ("--game-plies", self.max_plies)):
            if plies > MAX_PLIES:
                raise SettingsError(f"{flag} is at most {MAX_PLIES} (longer than any game the fifty-move rule "
                                    f"allows), not {plies}")
        if not (math.isfinite(self.random_rate) and 0 <= self.random_rate <= 1):
            raise SettingsError(f"--random-rate is a probability within [0, 1], got {self.random_rate}")
        if self.resign_cp < 1 or self.resign_plies < 1 or self.cap < 1:
            raise SettingsError("--resign-cp, --resign-plies and --cap must be positive")


@dataclass
class GameRecord:
    """One finished game: its number, result (``1-0``, ``0-1``, ``1/2-1/2``), how it ended, its plies, the EPD lines
    of its kept labels and what the filters left out."""

    game: int
    result: str
    reason: str
    plies: int
    lines: list[str]
    searched: int
    skipped: dict[str, int] = field(default_factory=dict)
    restarts: int = 0
    bad_scores: int = 0


def _score(a: Analysis) -> int:
    """The analysis's score in centipawns, side to move (mates as EPD's ``±(30000 − plies)``)."""
    return ce_from_mate_moves(a.mate) if a.mate is not None else int(a.score or 0)


def play_game(game: int, seed: int, openings: Sequence[str], config: MentorConfig,
              options: SelfPlayOptions) -> GameRecord:
    """Play game ``game`` of seed ``seed`` with the mentor of this worker and return it with its labels."""
    o = options
    rng = np.random.default_rng([seed, game])
    mentor = worker_mentor(config)
    restarts, bad = getattr(mentor, "restarts", 0), getattr(mentor, "bad_scores", 0)
    board = chess.Board(openings[int(rng.integers(len(openings)))])
    for _ in range(o.random_plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[int(rng.integers(len(moves)))])
    start = board.ply()
    searched: list[tuple[chess.Board, Analysis]] = []
    beyond = 0  # plies in a row whose score (White's view) is beyond the resignation line, one sign
    result, reason = "1/2-1/2", "max plies"
    seen: dict[int, int] = {}  # position key -> times reached: threefold repetition without replaying the game
    while True:
        key = position_key(board)
        seen[key] = seen.get(key, 0) + 1
        outcome = board.outcome()  # checkmate, stalemate, insufficient material (the claims are checked here)
        if outcome is not None:
            result, reason = outcome.result(), outcome.termination.name.lower().replace("_", " ")
            break
        if seen[key] >= 3 or board.halfmove_clock >= 100:
            reason = "threefold repetition" if seen[key] >= 3 else "fifty moves"
            break
        if board.ply() - start >= o.max_plies:
            break
        a = mentor.analyse(board.fen(), new_game=not searched)  # one game, one hash: cleared at its first search
        assert a is not None  # a searching mentor always answers (datagen refuses a static one)
        searched.append((board.copy(stack=False), a))
        ce = _score(a)
        white = ce if board.turn == chess.WHITE else -ce
        lost = abs(ce) >= o.resign_cp or a.mate is not None
        if not lost:
            beyond = 0
        else:
            run = abs(beyond) + 1 if beyond * white > 0 else 1
            beyond = run if white > 0 else -run
        if abs(beyond) >= o.resign_plies:
            result, reason = ("1-0" if beyond > 0 else "0-1"), "resignation"
            break
        best = legal_prefix(board, a.pv[:1])
        if best and rng.random() >= o.random_rate:
            board.push(best[0])
        else:
            moves = list(board.legal_moves)
            board.push(moves[int(rng.integers(len(moves)))])
    total = board.ply()
    lines, skipped = _labels(game, seed, searched, result, total, rng, o)
    return GameRecord(game, result, reason, total, lines, len(searched), skipped,
                      getattr(mentor, "restarts", 0) - restarts, getattr(mentor, "bad_scores", 0) - bad)


def _labels(game: int, seed: int, searched: list[tuple[chess.Board, Analysis]], result: str, total: int,
            rng: np.random.Generator, o: SelfPlayOptions) -> tuple[list[str], dict[str, int]]:
    """The EPD lines of the searched positions the filters keep (at most ``per_game``, a seeded choice, in ply
    order) and the counts of those left out, by reason."""
    skipped = {"opening plies": 0, "in check": 0, "capture or promotion": 0, "beyond the cap": 0, "per game": 0}
    kept: list[Label] = []
    for board, a in searched:
        ce = _score(a)
        pv = legal_prefix(board, a.pv)
        ply = board.ply()
        if ply < o.skip_plies:
            skipped["opening plies"] += 1
        elif o.skip_check and board.is_check():
            skipped["in check"] += 1
        elif o.skip_noisy and pv and (board.is_capture(pv[0]) or pv[0].promotion is not None):
            skipped["capture or promotion"] += 1
        elif ce_is_mate(ce) or abs(ce) > o.cap:
            skipped["beyond the cap"] += 1
        else:
            kept.append(Label(board, ce, a.depth, pv, result, f"{SOURCE}:{seed}:{game}:{ply}", SOURCE, total - ply,
                              board.fullmove_number))
    if o.per_game and len(kept) > o.per_game:
        skipped["per game"] = len(kept) - o.per_game
        kept = [kept[i] for i in sorted(rng.choice(len(kept), size=o.per_game, replace=False))]
    return [label.to_epd(o.cap) for label in kept], skipped


def play_safely(game: int, seed: int, openings: Sequence[str], config: MentorConfig,
                options: SelfPlayOptions) -> GameRecord:
    """A worker's task: game ``game`` (:func:`play_game`); a game whose mentor gives up (it died or hung more often
    than it may be restarted) is returned with no labels and ``reason`` naming the error."""
    mentor = worker_mentor(config)
    restarts, bad = getattr(mentor, "restarts", 0), getattr(mentor, "bad_scores", 0)
    try:
        return play_game(game, seed, openings, config, options)
    except EngineError as exc:
        return GameRecord(game, "*", f"error: {exc}", 0, [], 0, {}, getattr(mentor, "restarts", 0) - restarts,
                          getattr(mentor, "bad_scores", 0) - bad)


def unplayable(fen: str) -> str | None:
    """Why the opening ``fen`` can give no label whatever the settings (no legal move: checkmate or stalemate; or
    material too little to mate, which no move can add to), else ``None``.

    >>> unplayable("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), unplayable(chess.STARTING_FEN) is None
    ('insufficient material', True)
    """
    board = chess.Board(fen)
    if not any(board.legal_moves):
        return "checkmate" if board.is_check() else "stalemate"
    if board.is_insufficient_material():
        return "insufficient material"
    return None


def check_settings(openings: Sequence[str], options: SelfPlayOptions) -> list[str]:
    """The openings that can give a label (:func:`unplayable` leaves out the others); :class:`SettingsError` when
    none is left, or when ``skip_plies`` leaves out every ply a game can search (a game's last searched ply is at most
    its opening's ply + ``random_plies`` + ``max_plies`` - 1)."""
    if not openings:
        raise SettingsError("no openings to start the games from")
    playable = [fen for fen in openings if unplayable(fen) is None]
    if not playable:
        raise SettingsError(f"none of the {len(openings)} openings can give a position: each has no legal move or "
                            f"too little material to mate ({unplayable(openings[0])} in the first)")
    start = max(chess.Board(fen).ply() for fen in playable)
    last = start + options.random_plies + options.max_plies - 1
    if last < options.skip_plies:
        raise SettingsError(f"--skip-plies {options.skip_plies} leaves out every position: a game's last searched ply "
                            f"is at most {last} (the openings' ply, at most {start}, + --random-plies "
                            f"{options.random_plies} + --game-plies {options.max_plies} - 1)")
    return playable


_ID = re.compile(rf'\bid "{SOURCE}:(-?\d+):(\d+):\d+"')


def games_done(path: str | Path, seed: int) -> tuple[set[int], int]:
    """The numbers of the games of seed ``seed`` whose labels are already in the label file ``path``, and those
    labels' count (for a resumed run: their ``id`` ``selfplay:SEED:GAME:PLY``), read in one pass from the lines'
    text (no position is parsed). A torn last line or gzip member (a killed run) is cut off first
    (:func:`mentor.labels.repair_label_file`)."""
    p = Path(path)
    done: set[int] = set()
    count = 0
    if not p.exists():
        return done, count
    repair_label_file(p)
    with open_text(p, "label file") as fh:
        for line in fh:
            m = _ID.search(line)
            if m is not None and int(m.group(1)) == seed:
                done.add(int(m.group(2)))
                count += 1
    return done, count


def options_record(options: SelfPlayOptions) -> dict[str, object]:
    """The options as the sidecar records them."""
    return asdict(options)


def generate(out: str | Path, config: MentorConfig, openings: Sequence[str], positions: int, *, seed: int = 0,
             jobs: int = 1, options: SelfPlayOptions | None = None, resume: bool = False, command: str = "",
             on_progress: Callable[[int, int], None] | None = None) -> LabelSummary:
    """Play games until the label file ``out`` holds at least ``positions`` self-play labels of seed ``seed`` (whole
    games, in game order: the last one may go beyond), and record the run in its sidecar
    (:func:`mentor.labeller.record_run`).

    Refuses an existing non-empty file without ``resume`` (:class:`~search.runtime.errors.RunExists`), a damaged
    sidecar, and a mentor that cannot start, before anything is written. Games are played in rounds, written in game
    order up to the first game that reaches ``positions``, so the file is the same for any ``jobs`` and backend.
    ``on_progress(done, total)`` hears the labels written (those already there first)."""
    o = options or SelfPlayOptions()
    out = Path(out)
    playable = check_settings(openings, o)
    summary = LabelSummary(requested=positions)
    run = LabelRun(command, (SOURCE,), positions, seed, jobs, resume, o.cap, details={SOURCE: options_record(o)})
    exists, summary.mentor = open_run(out, resume, (config,), run)  # a resume with other settings: refused
    cut = repair_label_file(out) if exists else None  # a torn end only; damage elsewhere is refused, the file untouched
    summary.cut = cut.note() if cut is not None else ""
    done, have = games_done(out, seed) if exists else (set(), 0)
    summary.already_labelled = have
    stats: dict[str, int] = {"games": 0, "searched": 0, "unplayable openings": len(openings) - len(playable)}
    openings = playable
    started, run_id, finished = utc_now(), uuid.uuid4().hex, False
    t0 = time.perf_counter()
    try:
        with LabelWriter(out, flush_every=o.max_plies + 1, cap=o.cap) as writer:  # a game, one write (gzip member)
            record_run(out, run, config, summary, run_id, started, None)
            if on_progress is not None:
                on_progress(have, positions)
            next_game, played, kept = 0, 0, 0
            dry, gave_up = 0, 0  # games in a row (in game order) with no label, and that the mentor gave up on
            while have + kept < positions:
                # The games are written in their order and the run stops at the first that reaches the count, so the
                # file holds the same games whatever the rounds' sizes (which only decide how much is played ahead).
                per_game = kept / played if played else 40.0
                size = max(2 * abs(jobs), min(1000, math.ceil((positions - have - kept) / max(per_game, 1.0))))
                todo: list[int] = []
                while len(todo) < size:
                    if next_game not in done:
                        todo.append(next_game)
                    next_game += 1
                games = mentor_map(play_safely, todo, jobs, (seed, openings, config, o), config.kind == "uci")
                stop = None
                with dropping_results():  # the games played ahead of the last one written are dropped on purpose
                    for rec in games:
                        played += 1
                        kept += len(rec.lines)
                        summary.labelled = kept
                        _tally(stats, summary, rec)
                        for line in rec.lines:
                            writer.write_line(line)
                        writer.flush()
                        dry, gave_up = (0 if rec.lines else dry + 1), (gave_up + 1 if rec.result == "*" else 0)
                        if dry >= DRY_GAMES or gave_up >= GAVE_UP_GAMES:
                            stop = _stopped(dry, gave_up, rec, stats, have + kept)
                            break
                        if on_progress is not None:
                            on_progress(have + kept, positions)
                        if have + kept >= positions:
                            break
                    close = getattr(games, "close", None)
                    if close is not None:
                        close()
                if stop is not None:
                    raise RunError(stop)
            summary.labelled = kept
        finished = True
    finally:
        close_mentors()
        summary.seconds = time.perf_counter() - t0
        summary.sampling = stats
        if out.exists():
            try:
                record_run(out, run, config, summary, run_id, started, utc_now() if finished else None)
            except OSError:
                if finished:
                    raise
    return summary


def _stopped(dry: int, gave_up: int, rec: GameRecord, stats: dict[str, int], labels: int) -> str:
    """The one line that ends a run whose games stopped giving labels."""
    why = (f"the mentor gave up on the last {gave_up} games ({rec.reason})" if gave_up >= GAVE_UP_GAMES else
           f"the last {dry} games gave no label: the settings leave out every position they search")
    return f"stopped: {why}; {labels} labels in the file after {stats['games']} games played"


def _tally(stats: dict[str, int], summary: LabelSummary, rec: GameRecord) -> None:
    """Count a finished game into the run's statistics (games, results, searched positions, what was left out)."""
    stats["games"] += 1
    stats["searched"] += rec.searched
    key = "errors" if rec.result == "*" else f"result {rec.result}"
    stats[key] = stats.get(key, 0) + 1
    for reason, n in rec.skipped.items():
        stats[reason] = stats.get(reason, 0) + n
    summary.restarts += rec.restarts
    summary.bad_scores += rec.bad_scores
    if rec.result == "*":
        summary.failed += 1
        summary.failures.append(f"game {rec.game}: {rec.reason}")

"""The match runner: two players, paired openings, clocks, adjudication, parallel games, PGN, statistics.

Every opening is played twice with colours swapped (round ``k.1``: player A has White; ``k.2``: B has).
Games run in joblib worker processes, one game a task: the worker starts both players for the game and
closes them after it. Each finished game is appended to the PGN at once, and ``resume`` skips the rounds
the PGN already holds (their results count). A player that crashes, overruns its clock or hangs, or
plays an illegal move loses that game; the reason goes into the PGN (``Termination`` plus a comment)
and into the summary, and the match goes on. Adjudication follows cutechess-cli's rules. With ``learn``
(``--learn BOOK.sqlite``) every finished game is added to that experience book (:mod:`search.book.tree`) as soon
as it is in the PGN, and a resumed match first adds the games the PGN holds already (the book skips the ones
it has), so a kill between the PGN and the book loses nothing.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import math
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

import chess
import chess.pgn

from search.base import Limit
from search.book.tree import Book
from search.conventions import RESULTS, loss_result, pgn_score, result_from_points, result_points
from search.formats.epd import read_epd
from search.formats.pgn import read_games
from search.games.stats import EloResult, SprtResult, elo, pentanomial, sprt
from search.players.player import MoveReport, PlayerError, make_player
from search.players.spec import PlayerRegistry
from search.runtime.errors import MimicError


# ---------------------------------------------------------------------- openings
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
    """Openings from an EPD file (each position) or a PGN file (each game's moves from its start)."""
    path = Path(path)
    if path.suffix.lower() == ".pgn":
        out = []
        for line, game in read_games(path, on_error):
            moves = tuple(m.uci() for m in game.mainline_moves())
            name = game.headers.get("Opening") or game.headers.get("ECO") or f"{path.name}:{line}"
            out.append(Opening(name, game.board().fen(), moves))
        return out
    report = (lambda e: on_error(str(e))) if on_error else None
    return [Opening(r.id, r.board.fen()) for r in read_epd(path, report)]


def default_openings_path() -> Path:
    return Path(__file__).parent.parent / "data" / "openings.epd"


# ---------------------------------------------------------------------- settings
@dataclass(frozen=True, kw_only=True)
class TimeControl:
    """Per move: a fixed ``depth``, ``nodes`` or ``movetime`` (seconds), or a clock ``base`` + ``increment``
    (seconds, optionally ``moves`` per period). Players' own ``@`` limits apply on top."""

    base: float | None = None
    increment: float = 0.0
    moves: int | None = None
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """cutechess syntax: ``[moves/]base[+increment]`` in seconds, e.g. ``10+0.1`` or ``40/60``."""
        moves = None
        if "/" in text:
            m, text = text.split("/", 1)
            moves = int(m)
        base, _, inc = text.partition("+")
        tc = cls(base=float(base), increment=float(inc) if inc else 0.0, moves=moves)
        if tc.base is None or tc.base <= 0 or tc.increment < 0:
            raise ValueError(f"bad time control {text!r}")
        return tc

    @property
    def has_clock(self) -> bool:
        return self.base is not None

    def pgn(self) -> str:
        if self.base is not None:
            s = f"{self.base:g}" + (f"+{self.increment:g}" if self.increment else "")
            return f"{self.moves}/{s}" if self.moves else s
        if self.movetime is not None:
            return f"movetime={self.movetime:g}"
        if self.nodes is not None:
            return f"nodes={self.nodes}"
        if self.depth is not None:
            return f"depth={self.depth}"
        return "-"


@dataclass(frozen=True, kw_only=True)
class Adjudication:
    """cutechess-style adjudication; a count of 0 disables a rule.

    * resign: for ``resign_moves`` consecutive moves of each side, both players' scores say the same side
      is ahead by at least ``resign_score`` centipawns: that side wins;
    * draw: from move ``draw_movenumber`` on, for ``draw_moves`` consecutive moves of each side, both
      scores stay within ``draw_score`` centipawns of 0: a draw;
    * ``max_plies``: a game still running after that many plies is a draw.
    """

    resign_moves: int = 4
    resign_score: int = 800
    draw_movenumber: int = 40
    draw_moves: int = 8
    draw_score: int = 10
    max_plies: int = 400


@dataclass
class GameResult:
    round: str  # "k.1" or "k.2"
    white: str
    black: str
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str  # "normal", "adjudication", "time forfeit", "rules infraction", "abandoned"
    reason: str  # human-readable detail
    plies: int
    pgn: str
    seconds: float


# ---------------------------------------------------------------------- one game
def _limit_for(tc: TimeControl, clocks: list[float], move_number: int) -> Limit:
    if tc.has_clock:
        togo = None
        if tc.moves:
            togo = tc.moves - ((move_number - 1) % tc.moves)
        return Limit(wtime=max(clocks[chess.WHITE], 0.0), btime=max(clocks[chess.BLACK], 0.0),
                     winc=tc.increment, binc=tc.increment, movestogo=togo)
    return Limit(depth=tc.depth, nodes=tc.nodes, movetime=tc.movetime)


def play_game(spec_white: str, spec_black: str, opening: Opening, tc: TimeControl, adjudication: Adjudication,
              make_evaluator: PlayerRegistry, round_id: str, event: str = "mimic match",
              move_timeout: float = 120.0, time_margin: float = 0.05, hash_mb: int = 16,
              white_name: str | None = None, black_name: str | None = None) -> GameResult:
    """Play one game; never raises for a player's failure (the player loses instead).

    ``white_name`` and ``black_name`` go into the PGN's ``White``/``Black`` headers and the result
    (default: the specs themselves)."""
    t_start = time.perf_counter()
    board = opening.board()
    opening_plies = len(opening.moves)
    comments: list[str] = []
    players: list = [None, None]  # indexed by colour
    result = termination = reason = None
    adj = adjudication
    draw_streak = 0
    winning_side: list[chess.Color | None] = []
    clocks = [tc.base or 0.0, tc.base or 0.0]
    specs = {chess.WHITE: spec_white, chess.BLACK: spec_black}

    def lose(side: chess.Color, term: str, why: str) -> None:
        nonlocal result, termination, reason
        result = loss_result(side)
        termination, reason = term, f"{'White' if side == chess.WHITE else 'Black'} {why}"

    try:
        for colour in (chess.WHITE, chess.BLACK):
            try:
                players[colour] = make_player(specs[colour], make_evaluator, hash_mb)
                players[colour].new_game()
            except PlayerError as exc:
                lose(colour, "abandoned", f"could not start: {exc}")
                break
        while result is None:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                result = outcome.result()
                termination = "normal"
                reason = outcome.termination.name.lower().replace("_", " ")
                break
            if adj.max_plies and len(board.move_stack) - opening_plies >= adj.max_plies:
                result, termination = "1/2-1/2", "adjudication"
                reason = f"draw by maximum length ({adj.max_plies} plies)"
                break
            side = board.turn
            player = players[side]
            limit = _limit_for(tc, clocks, board.fullmove_number)
            if tc.has_clock:
                allowed = clocks[side] + 1.0 + 0.1 * clocks[side]
            elif tc.movetime is not None:
                allowed = tc.movetime * 1.5 + 1.0
            else:
                allowed = move_timeout
            t0 = time.perf_counter()
            try:
                report: MoveReport = player.play(board, limit, timeout=allowed)
            except PlayerError as exc:
                if exc.reason == "time forfeit":
                    lose(side, "time forfeit", f"hung: {exc.detail}")
                elif exc.reason == "crash":
                    lose(side, "abandoned", f"crashed: {exc.detail}")
                else:
                    lose(side, "rules infraction", f"failed: {exc}")
                break
            spent = time.perf_counter() - t0
            if tc.has_clock:
                clocks[side] -= spent
                if clocks[side] < -time_margin:
                    lose(side, "time forfeit", f"lost on time ({-clocks[side]:.3f} s over)")
                    break
                clocks[side] += tc.increment
                if tc.moves and board.fullmove_number % tc.moves == 0 and side == chess.BLACK:
                    clocks[chess.WHITE] += tc.base or 0.0
                    clocks[chess.BLACK] += tc.base or 0.0
            move = report.move
            if move is None or move not in board.legal_moves:
                lose(side, "rules infraction", f"played an illegal move {move.uci() if move else '(none)'}")
                break
            comments.append(f"{pgn_score(report.score)}/{report.depth} {spent:.2f}s")
            board.push(move)
            # Adjudication, on the mover's score turned to White's view.
            white_score = None if report.score is None else (report.score if side == chess.WHITE else -report.score)
            if adj.resign_moves:
                if white_score is not None and abs(white_score) >= adj.resign_score:
                    winning_side.append(chess.WHITE if white_score > 0 else chess.BLACK)
                else:
                    winning_side.append(None)
                recent = winning_side[-2 * adj.resign_moves:]
                leader = recent[0]
                if (leader is not None and len(recent) == 2 * adj.resign_moves
                        and all(w == leader for w in recent)):
                    result = result_from_points(1.0, leader)
                    termination = "adjudication"
                    reason = f"{'White' if leader == chess.WHITE else 'Black'} wins by adjudication (resign)"
                    break
            if adj.draw_moves and board.fullmove_number >= adj.draw_movenumber:
                draw_streak = draw_streak + 1 if white_score is not None and abs(white_score) <= adj.draw_score else 0
                if draw_streak >= 2 * adj.draw_moves:
                    result, termination, reason = "1/2-1/2", "adjudication", "draw by adjudication"
                    break
    finally:
        for p in players:
            if p is not None:
                p.close()
    assert result is not None and termination is not None and reason is not None
    white, black = white_name or spec_white, black_name or spec_black
    pgn = _pgn(board, opening, comments, white, black, result, termination, reason, round_id, tc, event)
    return GameResult(round_id, white, black, result, termination, reason,
                      len(board.move_stack) - opening_plies, pgn, time.perf_counter() - t_start)


def _pgn(board: chess.Board, opening: Opening, comments: list[str], white: str, black: str, result: str,
         termination: str, reason: str, round_id: str, tc: TimeControl, event: str) -> str:
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = event
    game.headers["Site"] = "mimic"
    game.headers["Date"] = _dt.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = round_id
    game.headers["White"] = white
    game.headers["Black"] = black
    game.headers["Result"] = result
    game.headers["TimeControl"] = tc.pgn()
    game.headers["Termination"] = termination
    game.headers["Opening"] = opening.name
    game.headers["PlyCount"] = str(len(board.move_stack))  # the half-moves of the movetext
    node: chess.pgn.GameNode = game
    i = 0
    for ply, nxt in enumerate(game.mainline()):
        node = nxt
        if ply >= len(opening.moves) and i < len(comments):
            node.comment = comments[i]
            i += 1
    node.comment = (node.comment + " " if node.comment else "") + reason
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return game.accept(exporter) + "\n\n"


# ---------------------------------------------------------------------- the match
@dataclass
class MatchSettings:
    """A match: the two player specs, then everything else by keyword."""

    player_a: str
    player_b: str
    _: KW_ONLY
    games: int = 20
    jobs: int = 1
    openings: list[Opening] = field(default_factory=list)
    tc: TimeControl = field(default_factory=lambda: TimeControl(movetime=0.1))
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: tuple[float, float, float, float] | None = None  # elo0, elo1, alpha, beta
    event: str = "mimic match"
    hash_mb: int = 16
    learn: str | None = None  # an experience book that learns every finished game


@dataclass
class MatchSummary:
    """Counts from player A's point of view."""

    player_a: str
    player_b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: dict[str, list[float]] = field(default_factory=dict)  # opening index -> A's scores
    terminations: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    games: list[GameResult] = field(default_factory=list)
    sprt_result: SprtResult | None = None
    seconds: float = 0.0  # this run's wall time
    stopped_early: bool = False
    resumed: int = 0  # games read back from the PGN (--resume), not played by this run

    def add(self, g: GameResult) -> None:
        a_white = g.round.endswith(".1")  # round k.1: A has White (also when A and B are the same spec)
        a = result_points(g.result, chess.WHITE if a_white else chess.BLACK)
        assert a is not None, f"round {g.round}: unfinished result {g.result!r}"
        self.wins += a == 1.0
        self.draws += a == 0.5
        self.losses += a == 0.0
        self.pairs.setdefault(g.round.split(".")[0], []).append(a)
        self.terminations[f"{g.termination}: {_generic(g.reason)}"] += 1
        if g.termination in ("abandoned", "time forfeit", "rules infraction"):
            self.failures.append(f"round {g.round}: {g.reason}")
        self.games.append(g)

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def elo(self) -> EloResult:
        return elo(self.wins, self.draws, self.losses)

    @property
    def pentanomial(self) -> list[int]:
        return pentanomial([sum(v) for v in self.pairs.values() if len(v) == 2])

    def lines(self) -> list[str]:
        e = self.elo
        if math.isfinite(e.elo) and math.isfinite(e.error):
            elo_text = f"{e.elo:+.1f} +/- {e.error:.1f} (95%: {e.low:+.1f} to {e.high:+.1f})"
        else:
            why = ("every game won" if e.score == 1 else "every game lost" if e.score == 0
                   else "the 95% interval reaches a 0% or 100% score")
            elo_text = f"{e.elo:+.1f} (no finite interval: {why})"
        out = [f"Score of {self.player_a} vs {self.player_b}: {self.wins} - {self.losses} - {self.draws}  "
               f"[{e.score:.3f}] {self.n}",
               f"Elo difference: {elo_text}, LOS: {100 * e.los:.1f} %, DrawRatio: {self.draws / max(self.n, 1):.3f}",
               f"Pentanomial [0, 0.5, 1, 1.5, 2]: {self.pentanomial}"]
        if self.sprt_result is not None:
            s = self.sprt_result
            out.append(f"SPRT: llr {s.llr:.3f} ({s.lower:.3f}, {s.upper:.3f})"
                       + (f" - {s.decision} accepted" if s.decision else " - no decision"))
        for k, v in sorted(self.terminations.items()):
            out.append(f"  {v:4d} x {k}")
        return out


def _generic(reason: str) -> str:
    for key in ("crashed", "hung", "lost on time", "illegal move", "could not start"):
        if key in reason:
            return key
    return reason.replace("White ", "").replace("Black ", "")


Scheduled = tuple[str, str, str, Opening]
"""One game of a schedule: (round, white spec, black spec, opening)."""


def schedule(settings: MatchSettings) -> list[Scheduled]:
    """(round, white, black, opening) for every game: openings in order, each played twice."""
    if not settings.openings:
        raise ValueError("no openings")
    games = []
    for i in range((settings.games + 1) // 2):
        op = settings.openings[i % len(settings.openings)]
        games.append((f"{i + 1}.1", settings.player_a, settings.player_b, op))
        games.append((f"{i + 1}.2", settings.player_b, settings.player_a, op))
    return games[: settings.games]


def _game_chunks(data: bytes) -> list[bytes]:
    """Split a PGN file's bytes at the game boundaries our writer leaves: a game starts with ``[`` at
    the start of the file or after a blank line."""
    starts = [0] + [m.start() + 2 for m in re.finditer(rb"\n\n(?=\[)", data)]
    return [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)], strict=True) if data[a:b]]


def _complete_game(chunk: bytes) -> chess.pgn.Headers | None:
    """The headers of ``chunk`` when it is one whole game as :func:`run_match` writes it: it ends with
    a blank line, parses without error, and its movetext ends with the final result of its ``Result``
    header. ``None`` for a torn or foreign chunk."""
    if not chunk.endswith(b"\n\n"):
        return None
    text = chunk.decode("utf-8", errors="replace")
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None or game.errors:
        return None
    result = game.headers.get("Result", "*")
    if result not in RESULTS or not text.rstrip().endswith(result):
        return None
    return game.headers


def read_pgn_games(path: str | Path) -> tuple[list[tuple[bytes, chess.pgn.Headers]], int]:
    """The whole games of a match PGN (each with its bytes and headers, in file order) and the number
    of torn chunks left out (a game cut by a kill or a full disk, or text after it)."""
    data = Path(path).read_bytes()
    whole: list[tuple[bytes, chess.pgn.Headers]] = []
    torn = 0
    for chunk in _game_chunks(data):
        headers = _complete_game(chunk)
        if headers is None:
            torn += 1
        else:
            whole.append((chunk, headers))
    return whole, torn


def rounds_in_pgn(path: Path) -> list[GameResult]:
    """Finished games already in a PGN (for resuming); a torn game is not counted."""
    out: list[GameResult] = []
    if not Path(path).exists():
        return out
    for _, headers in read_pgn_games(path)[0]:
        out.append(GameResult(headers.get("Round", "?"), headers.get("White", "?"), headers.get("Black", "?"),
                              headers["Result"], headers.get("Termination", "normal"), "from earlier run", 0, "",
                              0.0))
    return out


def repair_pgn(path: str | Path) -> int:
    """Drop the torn chunks of a match PGN (see :func:`read_pgn_games`), rewriting it atomically
    (a file beside it, fsync, ``os.replace``). Returns how many chunks were dropped."""
    path = Path(path)
    whole, torn = read_pgn_games(path)
    if torn == 0:
        return 0
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(b"".join(chunk for chunk, _ in whole))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return torn


class PgnWriteError(MimicError, OSError):
    """A game could not be appended to the match PGN; the file was cut back to its whole games."""


def append_whole(fd: int, data: bytes, path: Path) -> None:
    """Append ``data`` to the file open at ``fd`` (``O_APPEND``) whole or not at all: write every byte,
    flush it to disk with ``fsync``, and on any failure (a full disk, ``EFBIG``) truncate the file back
    to its previous size and raise :class:`PgnWriteError`."""
    size = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise PgnWriteError(f"{path}: cannot append a game ({exc.strerror or exc}); the file keeps its "
                            f"whole games, --resume continues the match") from exc


def run_match(settings: MatchSettings, make_evaluator: PlayerRegistry, pgn_path: str | Path | None = None,
              resume: bool = False, on_game: Callable[[GameResult, MatchSummary], None] | None = None,
              on_repair: Callable[[str], None] | None = None) -> MatchSummary:
    """Play the match; append each game to ``pgn_path`` as it finishes, whole (see :func:`append_whole`).

    A resumed match first drops a torn game at the end of the PGN (``on_repair`` is told) and counts
    the whole games already there. Raises ``FileExistsError`` for an existing PGN without ``resume``,
    ``OSError`` when the PGN cannot be opened and :class:`PgnWriteError` when a game cannot be written.
    """
    t0 = time.perf_counter()
    summary = MatchSummary(settings.player_a, settings.player_b)
    todo = schedule(settings)
    pgn = Path(pgn_path) if pgn_path else None
    for g in games_to_resume(pgn, todo, resume, on_repair=on_repair):
        summary.add(g)
    summary.resumed = summary.n
    done = {g.round for g in summary.games}
    todo = [t for t in todo if t[0] not in done]
    book = open_learning(settings.learn, pgn)
    games = play_schedule(todo, make_evaluator, pgn, jobs=settings.jobs, tc=settings.tc,
                          adjudication=settings.adjudication, event=settings.event, hash_mb=settings.hash_mb,
                          book=book)
    with contextlib.closing(games), closing_book(book):
        for g in games:
            summary.add(g)
            if settings.sprt is not None:
                elo0, elo1, alpha, beta = settings.sprt
                summary.sprt_result = sprt(summary.wins, summary.draws, summary.losses, elo0, elo1, alpha, beta,
                                           pairs=summary.pentanomial if sum(summary.pentanomial) else None)
            if on_game is not None:
                on_game(g, summary)
            if summary.sprt_result is not None and summary.sprt_result.decision is not None:
                summary.stopped_early = summary.n < settings.games
                break
    summary.seconds = time.perf_counter() - t0
    return summary


def games_to_resume(pgn: Path | None, todo: Sequence[Scheduled], resume: bool,
                    names: Mapping[str, str] | None = None,
                    on_repair: Callable[[str], None] | None = None) -> list[GameResult]:
    """The games of ``todo`` that the PGN at ``pgn`` already holds whole (same round, same White and
    Black names, ``names`` mapping a spec to its header name), in schedule order; a torn game at the
    end is dropped first (``on_repair`` is told). Raises ``FileExistsError`` for a non-empty PGN
    without ``resume`` and ``OSError`` for a path that is not a regular file."""
    if pgn is None or not pgn.exists():
        return []
    if not pgn.is_file():
        raise OSError(f"{pgn}: not a regular file")
    if pgn.stat().st_size == 0:
        return []
    if not resume:
        raise FileExistsError(f"{pgn} exists; pass --resume to continue it, or choose another file")
    dropped = repair_pgn(pgn)
    if dropped and on_repair is not None:
        on_repair(f"{pgn}: dropped {dropped} torn game(s) at the end; they are played again")
    names = names or {}
    done = {(g.round, g.white, g.black): g for g in rounds_in_pgn(pgn)}
    found = (done.get((rnd, names.get(w, w), names.get(b, b))) for rnd, w, b, _ in todo)
    return [g for g in found if g is not None]


@contextlib.contextmanager
def closing_book(book: Book | None) -> Iterator[None]:
    """Close ``book`` (when there is one) on leaving the block."""
    try:
        yield
    finally:
        if book is not None:
            book.close()


def open_learning(learn: str | Path | None, pgn: Path | None) -> Book | None:
    """The experience book a match learns into (``None`` without ``learn``), after adding to it the whole
    games the match PGN holds already (a resumed match; the book skips the games it has)."""
    if learn is None:
        return None
    book = Book(learn)
    try:
        if pgn is not None and pgn.is_file():
            book.add_pgn(b"".join(chunk for chunk, _ in read_pgn_games(pgn)[0]).decode("utf-8", errors="replace"))
    except BaseException:
        book.close()
        raise
    return book


def play_schedule(todo: Sequence[Scheduled], make_evaluator: PlayerRegistry, pgn: Path | None, *, jobs: int = 1,
                  tc: TimeControl, adjudication: Adjudication, event: str, hash_mb: int = 16,
                  names: Mapping[str, str] | None = None, book: Book | None = None
                  ) -> Generator[GameResult, None, None]:
    """Play the games of ``todo`` (``jobs`` at once, in worker processes when more than one) and yield
    each as it finishes, after appending it whole to ``pgn`` (see :func:`append_whole`) and adding it to
    ``book`` (its path from the game's start position); ``names`` maps a spec to the name its PGN headers
    show. Close the generator to stop early (the PGN is closed). Raises ``OSError`` when the PGN cannot be
    opened and :class:`PgnWriteError` when a game cannot be written."""
    names = names or {}
    fd = os.open(pgn, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666) if pgn is not None else None
    try:
        for g in _play_all(todo, make_evaluator, jobs, tc, adjudication, event, hash_mb, names):
            if fd is not None and pgn is not None:
                append_whole(fd, g.pgn.encode("utf-8"), pgn)
            if book is not None:
                book.add_pgn(g.pgn)
            yield g
    finally:
        if fd is not None:
            os.close(fd)


def _play_all(todo: Sequence[Scheduled], make_evaluator: PlayerRegistry, jobs: int, tc: TimeControl,
              adjudication: Adjudication, event: str, hash_mb: int, names: Mapping[str, str]
              ) -> Iterator[GameResult]:
    if jobs == 1:
        for rnd, w, b, op in todo:
            yield play_game(w, b, op, tc, adjudication, make_evaluator, rnd, event, hash_mb=hash_mb,
                            white_name=names.get(w), black_name=names.get(b))
        return
    from joblib import delayed

    from search.runtime.workers import parallel as worker_pool

    parallel = worker_pool(jobs, return_as="generator_unordered", batch_size=1)
    yield from parallel(delayed(play_game)(w, b, op, tc, adjudication, make_evaluator, rnd, event, hash_mb=hash_mb,
                                           white_name=names.get(w), black_name=names.get(b))
                        for rnd, w, b, op in todo)


def read_pgn_text(text: str) -> list[chess.pgn.Game]:
    """Every game of a PGN text (used by tests and reports)."""
    games = []
    fh = io.StringIO(text)
    while (g := chess.pgn.read_game(fh)) is not None:
        games.append(g)
    return games

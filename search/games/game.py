"""One game between two players: time controls, adjudication, the game loop and its PGN.

Owns :class:`TimeControl` (cutechess syntax), :class:`Adjudication` (cutechess's rules), :class:`GameResult`
and :func:`play_game`, which starts both players, plays from an opening to the end (a rule, adjudication or a
player's failure) and closes them. A player that crashes, overruns its clock or hangs, or plays an illegal
move loses the game; the reason goes into the PGN (``Termination`` plus a comment). A move request is stopped at
its deadline (a little past the clock or the move's time); the clock, or without one that deadline, decides the
forfeit. Scores in the PGN's move comments are the mover's, in centipawns. Imports chess and :mod:`search`
(base, conventions, players) only.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass

import chess
import chess.pgn

from search.base import Limit
from search.conventions import loss_result, pgn_score, result_from_points
from search.games.openings import Opening
from search.players.player import MoveReport, PlayerError, make_player
from search.players.spec import PlayerRegistry
from search.runtime.errors import SettingsError


@dataclass(frozen=True, kw_only=True)
class TimeControl:
    """Per move: a fixed ``depth``, ``nodes`` or ``movetime`` (seconds), or a clock ``base`` + ``increment``
    (seconds, optionally ``moves`` per period). Our engine's own ``@`` limits apply on top; an external engine's
    replace it (:meth:`search.players.player.ExternalPlayer.sent_limit`)."""

    base: float | None = None
    increment: float = 0.0
    moves: int | None = None
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """cutechess syntax: ``[moves/]base[+increment]`` in seconds, e.g. ``10+0.1`` or ``40/60``."""
        moves, given = None, text
        try:
            if "/" in text:
                m, text = text.split("/", 1)
                moves = int(m)
            base, _, inc = text.partition("+")
            tc = cls(base=float(base), increment=float(inc) if inc else 0.0, moves=moves)
        except ValueError as exc:
            raise SettingsError(f"bad time control {given!r} ({exc}): [moves/]seconds[+increment], e.g. 10+0.1") \
                from exc
        if tc.base is None or tc.base <= 0 or tc.increment < 0:
            raise SettingsError(f"bad time control {text!r}")
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
    """A finished game: its round, the names in its ``White``/``Black`` headers, how it ended, its length
    (plies after the opening), its PGN text and the wall time it took (seconds)."""

    round: str  # "k.1" or "k.2"
    white: str
    black: str
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str  # "normal", "adjudication", "time forfeit", "rules infraction", "abandoned"
    reason: str  # human-readable detail
    plies: int
    pgn: str
    seconds: float


def movetime_deadline(movetime: float) -> float:
    """Seconds a player asked for a move in ``movetime`` seconds has before it forfeits (is killed): half as long
    again and a second more (``mimic games --movetime``; replay takes the same)."""
    return movetime * 1.5 + 1.0


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
                allowed = movetime_deadline(tc.movetime)
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
            elif spent > allowed:  # our engine, stopped at the deadline an external engine is killed at
                lose(side, "time forfeit", f"hung: no move within {allowed:.2f} s")
                break
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



Scheduled = tuple[str, str, str, Opening]
"""One game of a schedule: (round, white spec, black spec, opening)."""

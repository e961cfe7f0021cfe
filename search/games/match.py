"""A match: two players, paired openings, an SPRT that may stop it early, and its summary.

Every opening is played twice with colours swapped (round ``k.1``: player A has White; ``k.2``: B has).
The games are played by the one game-set loop (:func:`search.games.gameset.play_game_set`): worker processes,
each finished game appended whole to the PGN log at once, ``resume`` skipping the rounds the PGN already
holds (their results count), ``--learn BOOK.sqlite`` adding every finished game to that experience book. A
player that crashes, overruns its clock or hangs, or plays an illegal move loses that game
(:func:`search.games.game.play_game`); the reason goes into the PGN and into the summary, and the match goes
on. Adjudication follows cutechess-cli's rules. Imports chess and :mod:`search` only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

import chess

from search.conventions import result_points
from search.games.game import Adjudication, GameResult, Scheduled, TimeControl
from search.games.gameset import play_game_set
from search.games.openings import Opening
from search.games.stats import SPRT_MIN_GAMES, EloResult, SprtResult, elo, pentanomial, sprt
from search.players.spec import PlayerRegistry
from search.runtime.errors import SettingsError


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
    sprt_min_games: int = SPRT_MIN_GAMES  # no SPRT decision before this many games
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


def schedule(settings: MatchSettings) -> list[Scheduled]:
    """(round, white, black, opening) for every game: openings in order, each played twice."""
    if not settings.openings:
        raise SettingsError("no openings")
    games = []
    for i in range((settings.games + 1) // 2):
        op = settings.openings[i % len(settings.openings)]
        games.append((f"{i + 1}.1", settings.player_a, settings.player_b, op))
        games.append((f"{i + 1}.2", settings.player_b, settings.player_a, op))
    return games[: settings.games]



def run_match(settings: MatchSettings, make_evaluator: PlayerRegistry, pgn_path: str | Path | None = None,
              resume: bool = False, on_game: Callable[[GameResult, MatchSummary], None] | None = None,
              on_repair: Callable[[str], None] | None = None) -> MatchSummary:
    """Play the match; append each game to ``pgn_path`` as it finishes, whole
    (see :func:`search.games.pgnlog.append_whole`).

    A resumed match first drops a torn game at the end of the PGN (``on_repair`` is told) and counts
    the whole games already there; when their SPRT (if ``settings.sprt`` asks for one) has decided, no game is
    played. After each game played the SPRT is updated before ``on_game`` is called, and a decision ends the
    match. Raises ``FileExistsError`` for
    an existing PGN without ``resume``, ``OSError`` when the PGN cannot be opened and
    :class:`~search.games.pgnlog.PgnWriteError` when a game cannot be written.
    """

    def update_sprt(summary: MatchSummary) -> None:
        if settings.sprt is not None:
            elo0, elo1, alpha, beta = settings.sprt
            summary.sprt_result = sprt(summary.wins, summary.draws, summary.losses, elo0, elo1, alpha, beta,
                                       pairs=summary.pentanomial if sum(summary.pentanomial) else None,
                                       min_games=settings.sprt_min_games)

    def played(g: GameResult, summary: MatchSummary) -> None:
        update_sprt(summary)
        if on_game is not None:
            on_game(g, summary)

    def decided(summary: MatchSummary) -> bool:
        if summary.sprt_result is None:  # the resumed games, before any is played
            update_sprt(summary)
        if summary.sprt_result is None or summary.sprt_result.decision is None:
            return False
        summary.stopped_early = summary.n < settings.games
        return True

    return play_game_set(MatchSummary(settings.player_a, settings.player_b), schedule(settings), make_evaluator,
                         Path(pgn_path) if pgn_path else None, settings, resume=resume, on_game=played,
                         stop=decided, on_repair=on_repair)

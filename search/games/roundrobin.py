"""The round robin behind ``mimic games`` and ``mimic tournament``: several players, every pairing a match,
all games in one PGN; or a gauntlet, the first player against each of the others.

Owns the round-robin schedule, the players' names in the PGN headers and the score table; the games
themselves are played by the one game-set loop of a match (:func:`search.games.gameset.play_game_set`: its
worker pool, whole-game PGN writes, resume and repair), so a round robin is a set of matches sharing one PGN
and one pool of workers. Imports chess and :mod:`search` only.

Each pairing plays :func:`search.games.match.schedule`'s games (every opening twice, colours swapped). A game's
``Round`` header is ``P.K.C``: pairing ``P`` (1-based, in the order (1, 2), (1, 3), ..., (2, 3), ... of the
players as given; in a gauntlet (1, 2), (1, 3), ..., (1, n)), opening ``K`` of that pairing, and ``C`` = 1
when the pairing's first player has White, 2 when the second has. Games are played opening-major (every
pairing plays its K-th opening before any plays its K+1-th), so a run stopped early leaves the pairings
equally far along, and a rerun with more ``games`` and ``resume`` plays only the games the PGN lacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import chess

from search.conventions import result_points
from search.games.game import Adjudication, GameResult, Scheduled, TimeControl
from search.games.gameset import play_game_set
from search.games.match import MatchSettings
from search.games.match import schedule as match_schedule
from search.games.openings import Opening
from search.players.spec import DEFAULT_SEARCH, PlayerRegistry, PlayerSpec
from search.runtime.errors import SettingsError

_GENERIC_STEMS = {"organism", "params", "net", "cmp", "best", "model"}
"""File stems that say nothing about the player: the folder's name is used instead."""


def default_name(spec: PlayerSpec) -> str:
    """A readable header name for a spec: the kind (``expert``), the kind and seed (``random-1``), the file's
    stem or, for ``organism.json`` and the like, its folder's name (``organism:results/demo/organism.json``
    gives ``demo``), the engine's file name and options (``stockfish Skill Level=3``); then the limits
    (``material depth=1``) and a search other than the default (``expert search=prob``). Never a comma (PGN
    readers take the part before one for a surname).

    >>> from search.players.spec import EXTERNAL_KINDS, PlayerKind, PlayerRegistry
    >>> r = PlayerRegistry([PlayerKind("random", "seed", "", build=lambda s: None), *EXTERNAL_KINDS])
    >>> default_name(r.parse("random:1@depth=1")), default_name(r.parse("uci:/usr/games/stockfish?Skill%20Level=3"))
    ('random-1 depth=1', 'stockfish Skill Level=3')
    """
    if spec.arg is None:
        base = spec.kind
    elif spec.is_external:
        base = " ".join([Path(spec.arg).name, *(f"{k}={v}" for k, v in spec.options)])
    elif spec.arg.isdigit():
        base = f"{spec.kind}-{spec.arg}"
    else:
        path = Path(spec.arg)
        base = path.parent.name if path.stem in _GENERIC_STEMS and path.parent.name else path.stem
    if spec.book is not None:
        stem = Path(spec.book.path).stem
        base = f"{spec.kind} {stem}" if spec.book.seed is not None else f"{base}+book {stem}"
    if spec.limit is not None:
        for key in ("depth", "nodes", "movetime"):
            value = getattr(spec.limit, key)
            if value is not None:
                base += f" {key}={value:g}"
    if spec.search != DEFAULT_SEARCH:
        base += f" search={spec.search}"
    return base.replace(",", ";")


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a PGN player name (``None`` when it can): it must be one printable line,
    not empty, without ``"`` or ``\\`` (tag values would need escaping) and without ``,`` (a surname split)."""
    if not name.strip():
        return "a name may not be empty"
    if not name.isprintable() or any(c in name for c in '"\\,'):
        return f"{name!r}: a name is one printable line without quotes, backslashes or commas"
    return None


@dataclass(frozen=True, kw_only=True)
class RoundRobinSettings:
    """A round robin: the player specs and their header names, then everything a match takes.

    ``games`` is per pairing (each opening twice, colours swapped, as in a match)."""

    players: tuple[str, ...]
    names: tuple[str, ...]
    games: int = 2
    jobs: int = 1
    openings: list[Opening] = field(default_factory=list)
    tc: TimeControl = field(default_factory=lambda: TimeControl(movetime=0.1))
    adjudication: Adjudication = field(default_factory=Adjudication)
    event: str = "mimic games"
    hash_mb: int = 16
    learn: str | None = None  # an experience book that learns every finished game (see search.games.gameset)
    gauntlet: bool = False  # only the first player's pairings: (1, 2), (1, 3), ..., (1, n)

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise SettingsError("a round robin needs at least two players")
        if len(self.names) != len(self.players):
            raise SettingsError(f"{len(self.names)} names for {len(self.players)} players")
        for seen, what in ((self.players, "player spec"), (self.names, "name")):
            twice = [x for x, n in Counter(seen).items() if n > 1]
            if twice:
                hint = (f" (for self-play, write the second differently, e.g. {twice[0]}@movetime=0.05, and give "
                        "--names)" if what == "player spec" and "@" not in twice[0] else "")
                raise SettingsError(f"{what} {twice[0]!r} given twice{hint}")
        for name in self.names:
            why = check_name(name)
            if why is not None:
                raise SettingsError(why)
        if self.games < 1:
            raise SettingsError("need at least one game per pairing")
        if not self.openings:
            raise SettingsError("no openings")

    @property
    def name_of(self) -> dict[str, str]:
        """Spec -> header name."""
        return dict(zip(self.players, self.names, strict=True))

    @property
    def pairings(self) -> list[tuple[int, int]]:
        """Index pairs (i, j), i < j, in pairing order (pairing ``P`` is entry ``P - 1``): every pair, or in a
        gauntlet the first player's."""
        if self.gauntlet:
            return [(0, j) for j in range(1, len(self.players))]
        return list(combinations(range(len(self.players)), 2))


def schedule(settings: RoundRobinSettings) -> list[Scheduled]:
    """(round, white spec, black spec, opening) of every game, opening-major (see the module's docstring)."""
    games: list[tuple[int, int, Scheduled]] = []
    for p, (i, j) in enumerate(settings.pairings, start=1):
        pair = MatchSettings(settings.players[i], settings.players[j], games=settings.games,
                             openings=settings.openings)
        for order, (rnd, white, black, opening) in enumerate(match_schedule(pair)):
            games.append((order, p, (f"{p}.{rnd}", white, black, opening)))
    return [g for _, _, g in sorted(games, key=lambda t: (t[0], t[1]))]


@dataclass
class RoundRobinSummary:
    """The games of a round robin and their tallies, by header name."""

    names: tuple[str, ...]
    pairings: list[tuple[int, int]]
    games: list[GameResult] = field(default_factory=list)
    points: dict[str, float] = field(default_factory=dict)
    wins: Counter[str] = field(default_factory=Counter)
    draws: Counter[str] = field(default_factory=Counter)
    losses: Counter[str] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0  # this run's wall time
    resumed: int = 0  # games read back from the PGN (--resume), not played by this run

    def add(self, g: GameResult) -> None:
        white = result_points(g.result, chess.WHITE)
        assert white is not None, f"round {g.round}: unfinished result {g.result!r}"
        for name, pts in ((g.white, white), (g.black, 1.0 - white)):
            self.points[name] = self.points.get(name, 0.0) + pts
            self.wins[name] += pts == 1.0
            self.draws[name] += pts == 0.5
            self.losses[name] += pts == 0.0
        self.terminations[g.termination] += 1
        self.games.append(g)

    @property
    def n(self) -> int:
        return len(self.games)

    def played(self, name: str) -> int:
        return self.wins[name] + self.draws[name] + self.losses[name]

    def lines(self) -> list[str]:
        """The games of each pairing (from its first player's side), then the score table, best first."""
        out = ["Pairings (first player's wins - losses - draws):"]
        by_pairing: dict[str, list[GameResult]] = {}
        for g in self.games:
            by_pairing.setdefault(g.round.split(".")[0], []).append(g)
        for p, (i, j) in enumerate(self.pairings, start=1):
            a, b = self.names[i], self.names[j]
            games = by_pairing.get(str(p), [])
            pts = [result_points(g.result, chess.WHITE if g.white == a else chess.BLACK) for g in games]
            score = sum(x for x in pts if x is not None)
            n = f"{len(games)} game" + ("" if len(games) == 1 else "s")
            out.append(f"  {a} - {b}: {n}, {pts.count(1.0)} - {pts.count(0.0)} - {pts.count(0.5)}"
                       f"  [{score:g} - {len(games) - score:g}]")
        width = max(len(n) for n in self.names)
        out.append(f"{'rank':>4}  {'player':<{width}}  games  points   score  wins  draws  losses")
        ranked = sorted(self.names, key=lambda n: (-self.points.get(n, 0.0), self.names.index(n)))
        for rank, name in enumerate(ranked, start=1):
            played, points = self.played(name), self.points.get(name, 0.0)
            share = f"{100 * points / played:4.1f}%" if played else "    -"
            out.append(f"{rank:>4}  {name:<{width}}  {played:5d}  {points:6.1f}  {share:>6}  "
                       f"{self.wins[name]:4d}  {self.draws[name]:5d}  {self.losses[name]:6d}")
        out.append("terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(self.terminations.items())))
        return out


def run_round_robin(settings: RoundRobinSettings, make_evaluator: PlayerRegistry, pgn_path: str | Path,
                    resume: bool = False, on_game: Callable[[GameResult, RoundRobinSummary], None] | None = None,
                    on_repair: Callable[[str], None] | None = None) -> RoundRobinSummary:
    """Play every game of :func:`schedule` the PGN lacks, appending each whole as it finishes.

    As :func:`search.games.match.run_match`: ``resume`` drops a torn game at the end (``on_repair`` is told) and
    counts the games already there (same round, same names); raises ``FileExistsError`` for an existing
    PGN without ``resume``, ``OSError`` when the PGN cannot be opened and
    :class:`~search.games.pgnlog.PgnWriteError` when a game cannot be written.
    """
    return play_game_set(RoundRobinSummary(settings.names, settings.pairings), schedule(settings), make_evaluator,
                         Path(pgn_path), settings, resume=resume, names=settings.name_of, on_game=on_game,
                         on_repair=on_repair)

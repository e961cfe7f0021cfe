"""The settings of one ``mimic recognize train`` (:class:`RecognizeSettings`, built by keyword), checked before any
work: what ``train`` and ``experiment`` read, split, evolve and fit, and how the manifest records it.

May import :mod:`evolve.data.moves`, :mod:`evolve.ga.settings`, :mod:`organisms.genome`, :mod:`search.runtime` and
the recognition modules of the names it checks (families, gameset, measures).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from evolve.data.moves import normal_name
from evolve.ga.settings import GASettings
from evolve.recognition.families import FAMILIES, StyleSettings, given_params, recorded_params
from evolve.recognition.gameset import parse_aliases
from evolve.recognition.measures import SCORES
from organisms.genome import DEFAULT_ENCODING
from search.runtime.errors import SettingsError


@dataclass(frozen=True, kw_only=True)
class RecognizeSettings:
    """One ``mimic recognize train`` (built by keyword). ``max_games``: training game sides kept per player
    (``None``: as many as the player with the fewest has; 0: all). ``max_held``: validation and test game
    sides kept per player, each (``None``: all): a seeded choice that bounds the work of a large game set
    while the split stays by game. ``validation`` and ``test``: shares of the games. ``test_games``: PGN files
    whose games are the test games (``test`` must then be 0: ``games`` are split into training and validation
    only), e.g. games from other openings than the training games'. ``score``:
    ``likelihood`` or ``agreement`` (what classification compares). ``features``: the classifier's feature
    families (none: no classifier); ``family_params``: their parameters given, by key (``profile_engine``; see
    :data:`evolve.recognition.families.PARAMS`: the others take their defaults, or the value a run picks)."""

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
    test_games: tuple[str, ...] = ()
    skip_plies: int = 10
    genome: str = "paper"
    encoding: str = DEFAULT_ENCODING
    moves_loss: str = "agreement"
    score: str = "likelihood"
    shared: bool = True
    features: tuple[str, ...] = FAMILIES
    family_params: dict[str, Any] = field(default_factory=dict)
    jobs: int = 1

    def __post_init__(self) -> None:
        if not self.players:
            raise SettingsError("--players names no player")
        if len({normal_name(p) for p in self.players}) != len(self.players):
            raise SettingsError("--players names a player twice")
        if not (0 <= self.validation < 1 and 0 <= self.test < 1 and self.validation + self.test < 1):
            raise SettingsError("--validation and --test are shares of the games, together below 1")
        if self.test_games and self.test > 0:
            raise SettingsError("--test-games gives the test games: --test must be 0 (the training files are split "
                                "into training and validation only)")
        if self.score not in SCORES:
            raise SettingsError(f"unknown score {self.score!r} (one of {', '.join(SCORES)})")
        if self.max_games is not None and self.max_games < 0:
            raise SettingsError("--max-games is a number of game sides (0: all)")
        if self.max_held is not None and self.max_held < 1:
            raise SettingsError("--max-held is a number of game sides, at least 1")
        parse_aliases(self.aliases)
        if self.features:
            self.style(run=False)

    def style(self, run: bool = True) -> StyleSettings:
        """The style features' settings (:mod:`evolve.recognition.families`): the parameters given, the others the
        value a run picks (with ``run``: Stockfish when installed for the profile's engine) or their defaults."""
        return StyleSettings(self.features, self.skip_plies, given_params(self.family_params, run))

    def recorded(self) -> dict[str, Any]:
        """The settings as the manifest records them (``ga`` apart): every field, the families' parameters one key
        each (``None`` for one a run picks when not given)."""
        out: dict[str, Any] = {}
        for k, v in asdict(self).items():
            if k == "family_params":
                out.update(recorded_params(self.family_params))
            elif k != "ga":
                out[k] = v
        return out

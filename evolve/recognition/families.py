"""Recognition's feature families: one spec each (:class:`Family`), one table (:data:`TABLE`).

A game side's vector is the features of its families side by side, in the table's order. A family's spec says
everything about it: its feature names (each ``FAMILY:...``), its compute function (the features of some sides
from their moves: the work of one task, :mod:`evolve.recognition.vectors`), what its features depend on beside the
sides (its part of the cache key: change it whenever the features change), its parameters (:class:`Param`) and its
check before any work. Everything that names families reads them from the table: ``FAMILIES``, the ``--features``
flag and its help, the parameters' flags (``--FAMILY-NAME``) and :class:`StyleSettings` (their defaults and
checks), the cache key and the chunk computation, the classifier's header. A family not in the table cannot be
asked for, and a family computes its own features only (its rows, checked against its names).

Adding a family is one entry in :data:`TABLE` plus its compute function. ``clones`` is the one family not computed
from the moves: its features are the clones' likelihoods of the sides' positions
(:func:`evolve.recognition.vectors.clone_features`), so its spec has no compute function; the table refuses any
other family without one.

May import numpy, :mod:`search.runtime` and the recognition modules of the families (style, profile).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evolve.recognition.profile import MULTIPV, check_engine, default_engine, engine_identity, profile_names, profiles
from evolve.recognition.style import BUCKETS, HABIT_NAMES, habits, repertoire, repertoire_names
from search.runtime.errors import SettingsError
from search.runtime.readback import ReadbackError, require, strings, whole

Entry = tuple[int, str, list[str], bool]
"""A game side as the families' compute functions take it: (index, starting FEN, UCI moves, colour)."""

CLONES = "clones"
"""The family of the clones' likelihoods, the one computed from the positions and the clones."""


@dataclass(frozen=True)
class Param:
    """A family's parameter ``name``: ``FAMILY_NAME`` in the settings and in the files that record them, the flag
    ``--FAMILY-NAME``. ``default``: its value when not given; with ``auto``, the value a run picks when the flag is
    not given instead (recorded as not given). ``parse``: the flag's text as a value (``ValueError``: the flag's
    complaint). ``valid`` and ``rule``: a value that can work, and what the flag takes. ``read``: the value a
    classifier header records (the header's ``style`` object, the key, its source, the error to raise)."""

    name: str
    default: Any
    metavar: str
    help: str
    parse: Callable[[str], Any]
    read: Callable[[dict[str, Any], str, str, type[ReadbackError]], Any]
    valid: Callable[[Any], bool] = lambda value: True
    rule: str = ""
    auto: Callable[[], Any] | None = None


@dataclass(frozen=True)
class Family:
    """One feature family (see the module docstring). ``names(players, settings)``: its feature names, each
    ``FAMILY:...`` (only ``clones`` uses the players). ``compute(entries, settings)``: one row of features a side
    (``None`` for ``clones`` only). ``depends(settings)``: what the features depend on beside the sides, for the
    cache key. ``check(settings)``: refuse, before any work, settings that cannot work (a profile engine that does
    not start)."""

    name: str
    names: Callable[[Sequence[str], StyleSettings], tuple[str, ...]]
    compute: Callable[[Sequence[Entry], StyleSettings], Sequence[np.ndarray]] | None
    depends: Callable[[StyleSettings], str]
    params: tuple[Param, ...] = ()
    check: Callable[[StyleSettings], None] = lambda settings: None


def _text(st: dict[str, Any], key: str, source: str, error: type[ReadbackError]) -> str:
    return str(require(st, key, str, source, "style.", error=error))


def _depth_list(st: dict[str, Any], key: str, source: str, error: type[ReadbackError]) -> tuple[int, ...]:
    return tuple(whole(d, f"style.{key}", source, 1, 1000, error=error)
                 for d in require(st, key, list, source, "style.", error=error))


def _positive_ints(text: str) -> tuple[int, ...]:
    """Comma-separated integers of at least 1 (``ValueError`` naming the first that is not)."""
    out = []
    for item in text.split(","):
        try:
            value = int(item)
        except ValueError as exc:
            raise ValueError(f"{item!r} is not an integer") from exc
        if value < 1:
            raise ValueError(f"must be at least 1, got {value}")
        out.append(value)
    return tuple(out)


def _profile(entries: Sequence[Entry], s: StyleSettings) -> list[np.ndarray]:
    return [v for _, v in profiles(entries, s.skip_plies, s.param("profile_engine"), s.param("profile_depths"))]


def _profile_depends(s: StyleSettings) -> str:
    return (f"skip={s.skip_plies}|engine={engine_identity(s.param('profile_engine'))}|"
            f"depths={tuple(s.param('profile_depths'))}|multipv={MULTIPV}")


TABLE: dict[str, Family] = {f.name: f for f in (
    Family(CLONES, names=lambda players, s: tuple(f"{CLONES}:{p}" for p in players), compute=None,
           depends=lambda s: ""),
    Family("profile", names=lambda players, s: profile_names(s.param("profile_depths")), compute=_profile,
           depends=_profile_depends, check=lambda s: check_engine(s.param("profile_engine")),
           params=(Param("engine", "expert", "PATH|expert",
                         "the mentor profile's engine: a UCI engine's path (MultiPV), or one of our evaluators; when "
                         "not given, stockfish when installed, else expert (slow)", str, _text, auto=default_engine),
                   Param("depths", (1, 6), "D,...", "the mentor profile's depths (rank and loss at the deepest)",
                         _positive_ints, _depth_list, rule="takes distinct depths of at least 1",
                         valid=lambda d: bool(d) and len(set(d)) == len(d) and min(d) >= 1))),
    Family("repertoire", names=lambda players, s: repertoire_names(),
           compute=lambda entries, s: [repertoire(fen, moves, color) for _, fen, moves, color in entries],
           depends=lambda s: f"buckets={BUCKETS}"),
    Family("habits", names=lambda players, s: HABIT_NAMES,
           compute=lambda entries, s: [habits(fen, moves, color, s.skip_plies) for _, fen, moves, color in entries],
           depends=lambda s: f"skip={s.skip_plies}"),
)}
"""Every feature family by name, in the order of a side's vector (see the module docstring)."""

FAMILIES = tuple(TABLE)
"""The families' names, in the order of a side's vector."""

PARAMS: dict[str, Param] = {f"{f.name}_{p.name}": p for f in TABLE.values() for p in f.params}
"""Every family's parameters by key (``FAMILY_NAME``, e.g. ``profile_engine``)."""

_OWNER = {f"{f.name}_{p.name}": f.name for f in TABLE.values() for p in f.params}

if [f.name for f in TABLE.values() if f.compute is None] != [CLONES] \
        or len(PARAMS) != sum(len(f.params) for f in TABLE.values()):
    raise RuntimeError("evolve.recognition.families.TABLE: only the clones family may lack a compute function, "
                       "and parameter keys are one a parameter")


def flag(key: str) -> str:
    """The command-line flag of the parameter ``key``: ``profile_engine`` -> ``--profile-engine``."""
    return "--" + key.replace("_", "-")


@dataclass(frozen=True)
class StyleSettings:
    """What the features of a side depend on: the families (in any order; the vector follows :data:`FAMILIES`),
    the plies skipped (by the families that look at the moves played from ply ``skip_plies`` + 1), and the
    families' parameters by key (:data:`PARAMS`; those not given take their defaults). :class:`SettingsError`
    naming the flag for families not in the table or a parameter that cannot work."""

    families: tuple[str, ...] = FAMILIES
    skip_plies: int = 10
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [f for f in self.families if f not in TABLE]
        if unknown or not self.families or len(set(self.families)) != len(self.families):
            raise SettingsError(f"--features takes distinct families of {', '.join(FAMILIES)}, got "
                                f"{','.join(self.families)!r}")
        strange = [k for k in self.params if k not in PARAMS]
        if strange:
            raise SettingsError(f"unknown feature family parameter {strange[0]!r} (one of {', '.join(PARAMS)})")
        values = {k: self.params[k] if self.params.get(k) is not None else p.default for k, p in PARAMS.items()}
        for k, p in PARAMS.items():
            if not p.valid(values[k]):
                raise SettingsError(f"{flag(k)} {p.rule}, got {values[k]}")
        object.__setattr__(self, "params", values)

    def param(self, key: str) -> Any:
        """The value of the parameter ``key`` (``FAMILY_NAME``)."""
        return self.params[key]

    def chosen(self) -> list[Family]:
        """The families of these settings, in :data:`FAMILIES` order."""
        return [f for f in TABLE.values() if f.name in self.families]

    def check(self) -> None:
        """Refuse, before any work, what cannot work (each chosen family's check: a profile engine that does not
        start, say)."""
        for f in self.chosen():
            f.check(self)

    def header(self) -> dict[str, Any]:
        """The settings as a classifier header records them (JSON: the families, the plies skipped, each
        parameter by key); :func:`style_of` reads them back."""
        return {"families": list(self.families), "skip_plies": self.skip_plies, **self.params}


def given_params(given: Mapping[str, Any], run: bool = True) -> dict[str, Any]:
    """The parameters a run uses, by key: those given (not ``None``), else, with ``run``, the value each picks when
    the work starts (``auto``: Stockfish when installed, say), else the defaults."""
    return {k: given[k] if given.get(k) is not None else p.auto() if run and p.auto is not None else p.default
            for k, p in PARAMS.items()}


def recorded_params(given: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters as a run's manifest records them, by key: those given, ``None`` for one a run picks when
    not given (``auto``), else the default."""
    return {k: given.get(k) if given.get(k) is not None or p.auto is not None else p.default
            for k, p in PARAMS.items()}


def family_names(family: str, players: Sequence[str], settings: StyleSettings) -> tuple[str, ...]:
    """The feature names of one family (``clones`` needs the clones' players), each ``FAMILY:...``."""
    names = TABLE[family].names(players, settings)
    if any(not n.startswith(f"{family}:") for n in names):
        raise RuntimeError(f"the {family} family's feature names must start with {family}:")
    return names


def feature_names(players: Sequence[str], settings: StyleSettings) -> list[str]:
    """The names of a side's vector, family by family in :data:`FAMILIES` order."""
    return [n for f in settings.chosen() for n in family_names(f.name, players, settings)]


def style_of(header: dict[str, Any], source: str, error: type[ReadbackError] = ReadbackError) -> StyleSettings:
    """The style settings a classifier header records (:meth:`StyleSettings.header`), checked: each parameter of
    the recorded families must be there; one of another family takes its default when missing."""
    st = require(header, "style", dict, source, error=error)
    families = strings(require(st, "families", list, source, "style.", error=error), "style.families", source,
                       error=error)
    skip = whole(require(st, "skip_plies", int, source, "style.", error=error), "style.skip_plies", source, 0,
                 1 << 20, error=error)
    params = {k: p.read(st, k, source, error) for k, p in PARAMS.items() if k in st or _OWNER[k] in families}
    try:
        return StyleSettings(tuple(families), skip, params)
    except ValueError as exc:
        raise error(f"{source}: style: {exc}") from exc

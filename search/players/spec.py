"""Player specs (ARCHITECTURE.md, Contracts): one string names a player; a :class:`PlayerRegistry` of kinds
parses and builds them.

A spec is ``KIND[:ARG]`` followed by zero or more limits ``@depth=N``, ``@nodes=N``, ``@movetime=S`` (seconds)
and at most one search option ``@search=NAME`` (one of :data:`SEARCHES`; ``depth`` when absent;
``@search=prob-net:PATH`` names the move-probability net it takes), e.g.
``material@depth=3``, ``expert@search=prob@nodes=5000``, ``organism:results/x/organism.json``,
``uci:/usr/games/stockfish?Skill%20Level=3@movetime=0.1``. The suffixes may come in any order.

Any spec may carry an experience book, the one *layer* of the grammar: ``SPEC+book:PATH[?min=N]``
(e.g. ``organism:x.json+book:b.sqlite?min=5@depth=3``; the layer may stand before or after the limits). Where
the book knows a move seen in at least ``N`` games (default 3) it plays the best of them
(:class:`search.book.chooser.BookChooser`), elsewhere the wrapped player moves. The pure DeepRed player is a kind of
its own, ``deepred:PATH[?min=N&seed=N&explore=0|1]``: the book's move, or a random legal move where it knows nothing
(with ``explore=1``, also where every move it knows has only lost).

Every kind is one :class:`PlayerKind` entry: its name, the shape of its argument, a one-line help text and
the factory that builds its evaluator (``None`` for an external engine process, whose protocol is the kind's
name). The grammar shown in help texts, the error for an unknown kind and the factory all come from the
entries. This package defines only the external kinds (:data:`EXTERNAL_KINDS`, it runs those engines itself);
the one registry holding every kind is built where the concrete evaluators are known (``evolve.players``),
so that ``search`` never imports ``organisms``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl

from search.base import Evaluator, Limit, MoveChooser, MovePolicy
from search.players.searches import (
    DEFAULT_SEARCH,
    SEARCHES,
    SEARCHES_WITH_FILE,
    SpecError,
    net_argument,
    search_parts,
)

_LIMIT_RE = re.compile(r"@(depth|nodes|movetime)=([0-9]*\.?[0-9]+)$")
_BOOK_RE = re.compile(r"\+book:([^@]*)")
"""The book layer ``+book:PATH[?min=N]``: it runs to the next ``@`` or the end of the spec."""
_SEARCH_RE = re.compile(r"@search=([^@:?/]*(?::[^@]*)?)$")
"""``@search=NAME`` or ``@search=NAME:PATH``: any name, so that a bad one is named in the error; a name holds no
``/`` (``organism:dir@search=x/o.json`` is an organism in a folder named ``dir@search=x``)."""
_SEED_RE = re.compile(r"[0-9]{1,18}")  # ASCII digits only: str.isdigit() accepts "²", which int() rejects

ArgShape = Literal["none", "path", "seed", "engine", "book"]
"""How a kind reads the text after ``KIND:``: nothing; a file path; an optional non-negative integer seed; an
engine executable with optional ``?Name=Value&...`` options; a book file with optional ``?min=N&seed=N&explore=0|1``."""

DEFAULT_BOOK_MIN = 3
"""A book move is played only when seen in at least this many games, unless ``?min=N`` says otherwise."""


@dataclass(frozen=True)
class BookLayer:
    """An experience book over a player (``+book:PATH[?min=N]``), or the pure DeepRed player's book
    (``deepred:PATH[?min=N&seed=N&explore=0|1]``, where ``seed`` is set: a random legal move where the book knows
    nothing; with ``explore``, also where every move it knows has only lost, so that it learns from its losses)."""

    path: str
    min_games: int = DEFAULT_BOOK_MIN
    seed: int | None = None
    explore: bool = False


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec.

    ``arg`` is the path (organism, uci, xboard, ...) or the seed text (random), ``options`` the engine options of
    an external engine, ``limit`` the search limit given by ``@...`` suffixes (``None`` when absent),
    ``external`` whether the kind is an engine process rather than an evaluator in our engine, ``search`` the name
    of the search our engine runs with it (a key of :data:`SEARCHES`; ``@search=``, default ``depth``).
    """

    kind: str
    arg: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    limit: Limit | None = None
    text: str = ""
    external: bool = False
    search: str = DEFAULT_SEARCH
    book: BookLayer | None = None

    @property
    def search_name(self) -> str:
        """The name of the search (``prob-net`` for ``prob-net:PATH``), a key of :data:`SEARCHES`."""
        return search_parts(self.search)[0]

    @property
    def is_external(self) -> bool:
        """True for an external engine (``uci:``/``xboard:``): a process, not an evaluator in our engine."""
        return self.external

    @property
    def seed(self) -> int:
        """The seed of a seeded kind (``random``; 0 when none was given)."""
        if self.arg is None:
            return 0
        if not _SEED_RE.fullmatch(self.arg):
            raise SpecError(f"{self.text!r}: the seed must be a non-negative integer")
        return int(self.arg)

    def __str__(self) -> str:
        return self.text


EvaluatorFactory = Callable[[PlayerSpec], Evaluator]
"""Builds the evaluator of one parsed spec (a :class:`PlayerKind`'s ``build``); raises :class:`SpecError`."""
PolicyLoader = Callable[[str], MovePolicy]
"""Loads the move-probability net a ``prob-net:PATH`` search names (a module-level function: it travels to
worker processes with the registry); raises :class:`SpecError`."""
BookOpener = Callable[[BookLayer], MoveChooser]
"""Opens the experience book of a spec's :class:`BookLayer` (a module-level function, like :data:`PolicyLoader`);
raises ``OSError``, ``ValueError`` or ``sqlite3.Error`` for a book it cannot open."""


@dataclass(frozen=True)
class PlayerKind:
    """One kind of player: the single entry that defines its grammar, help text and factory.

    ``build`` must be picklable (a module-level function): registries travel to worker processes.
    """

    name: str
    arg: ArgShape
    summary: str
    build: EvaluatorFactory | None = None

    @property
    def external(self) -> bool:
        return self.build is None

    @property
    def syntax(self) -> str:
        """The kind's grammar, e.g. ``random[:SEED]``."""
        return {"none": self.name, "path": f"{self.name}:PATH", "seed": f"{self.name}[:SEED]",
                "engine": f"{self.name}:PATH[?Option=Value&...]",
                "book": f"{self.name}:PATH[?min=N&seed=N&explore=0|1]"}[self.arg]


EXTERNAL_KINDS: tuple[PlayerKind, ...] = (
    PlayerKind("uci", "engine", "a UCI engine executable, e.g. uci:/usr/games/stockfish?Skill%20Level=3"),
    PlayerKind("xboard", "engine", "an XBoard (CECP) engine executable, e.g. xboard:/usr/games/phalanx"),
)
"""The external engines that :mod:`search.players.player` runs through python-chess (the kind's name is the
protocol)."""


class PlayerRegistry:
    """Every kind of player, by name. Calling it builds the evaluator a spec names.

    ``registry("expert@depth=3")`` is the evaluator (the limit is the caller's business: it caps the search);
    ``registry.parse(text)`` only parses; ``registry.policy(spec)`` is the move-probability net of a
    ``@search=prob-net:PATH`` spec, loaded by ``load_policy``; ``registry.book(spec)`` the experience book of a
    spec with one, opened by ``open_book`` (the players and the UCI server get their books only this way).
    """

    def __init__(self, kinds: Iterable[PlayerKind], load_policy: PolicyLoader | None = None,
                 open_book: BookOpener | None = None) -> None:
        self.load_policy = load_policy
        self.open_book = open_book
        self._kinds: dict[str, PlayerKind] = {}
        for k in kinds:
            if k.name in self._kinds:
                raise ValueError(f"player kind {k.name!r} registered twice")
            self._kinds[k.name] = k

    def __iter__(self) -> Iterator[PlayerKind]:
        return iter(self._kinds.values())

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __getitem__(self, name: str) -> PlayerKind:
        return self._kinds[name]

    def get(self, name: str) -> PlayerKind | None:
        return self._kinds.get(name)

    @property
    def grammar(self) -> str:
        """Every kind's syntax, e.g. ``organism:PATH | expert | ...`` (for help texts and errors)."""
        return " | ".join(k.syntax for k in self)

    def help(self) -> str:
        """One line per kind, then the limit suffixes: the reference a ``--help`` shows."""
        width = max(len(k.syntax) for k in self)
        lines = [f"  {k.syntax:<{width}}  {k.summary}" for k in self]
        lines.append("each optionally followed by @depth=N, @nodes=N or @movetime=S (seconds), and for our engine by")
        lines.append("@search=NAME[:PATH], the search it runs:")
        width = max(len(name) for name in SEARCHES)
        lines.extend(f"  {name:<{width}}  {text}" for name, text in SEARCHES.items())
        lines.append("with a probability-limited search, @depth=N caps its iterations "
                     "(iteration k: threshold 4^-(k-1));")
        lines.append("any spec but deepred: may add +book:PATH[?min=N] (an experience book: where it knows moves seen "
                     f"in at least N games, default {DEFAULT_BOOK_MIN},\nit plays the one with the best Wilson lower "
                     "bound of its score)\n")
        return "\n".join(lines)

    def parse(self, text: str) -> PlayerSpec:
        """Parse ``text``; raise :class:`SpecError` naming what is wrong."""
        return parse_spec(text, self)

    def __call__(self, spec: str | PlayerSpec) -> Evaluator:
        """The evaluator ``spec`` names; :class:`SpecError` for an external engine or a spec that fails to build."""
        s = self.parse(spec) if isinstance(spec, str) else spec
        kind = self.get(s.kind)
        if kind is None:
            raise SpecError(f"{s.text!r}: unknown player kind {s.kind!r} (expected {self.grammar})")
        if kind.build is None:
            raise SpecError(f"{s.text!r} is an external engine, not an evaluator")
        return kind.build(s)

    def policy(self, spec: str | PlayerSpec) -> MovePolicy | None:
        """The move-probability net of a ``@search=prob-net:PATH`` spec (``None`` for any other search);
        :class:`SpecError` when it cannot be loaded or this registry loads none."""
        s = self.parse(spec) if isinstance(spec, str) else spec
        name, path = search_parts(s.search)
        if path is None:
            return None
        if self.load_policy is None:
            raise SpecError(f"{s.text!r}: @search={name} needs a move-net loader, and this registry has none")
        return self.load_policy(path)

    def book(self, spec: str | PlayerSpec) -> MoveChooser | None:
        """The experience book of a spec with a book layer (``SPEC+book:PATH``, ``deepred:PATH``), opened by
        ``open_book``; ``None`` for a spec without one. Raises what the opener raises for a bad book."""
        s = self.parse(spec) if isinstance(spec, str) else spec
        if s.book is None:
            return None
        if self.open_book is None:
            raise SpecError(f"{s.text!r}: +book needs a book opener, and this registry has none")
        return self.open_book(s.book)

    def __reduce__(self) -> tuple[type[PlayerRegistry],
                                  tuple[tuple[PlayerKind, ...], PolicyLoader | None, BookOpener | None]]:
        return PlayerRegistry, (tuple(self), self.load_policy, self.open_book)


def parse_spec(text: str, registry: PlayerRegistry) -> PlayerSpec:
    """Parse ``text`` against the kinds of ``registry``; raise :class:`SpecError` naming what is wrong."""
    original = text
    text = text.strip()
    if not text:
        raise SpecError("empty player spec")
    if len(original) > 4096 or not original.isprintable():  # before stripping: a trailing newline is refused too
        raise SpecError(f"{original[:80]!r}: a player spec is one printable line (no control characters, "
                        "no line or paragraph separators)")
    layers = _BOOK_RE.findall(text)
    if text.count("+book:") > 1:
        raise SpecError(f"{original!r}: +book: given twice")
    book = _book_layer(original, layers[0], seed=False) if layers else None
    text = _BOOK_RE.sub("", text)
    fields: dict[str, float] = {}
    search: str | None = None
    while True:
        m = _LIMIT_RE.search(text)
        if m is not None:
            name, value = m.group(1), m.group(2)
            if name in fields:
                raise SpecError(f"{original!r}: @{name} given twice")
            fields[name] = float(value)
            text = text[: m.start()]
            continue
        m = _SEARCH_RE.search(text)
        if m is None:
            break
        if search is not None:
            raise SpecError(f"{original!r}: @search given twice")
        search = m.group(1)
        search_name, search_path = search_parts(search)
        if search_name not in SEARCHES:
            raise SpecError(f"{original!r}: unknown search {search_name!r} (expected @search="
                            f"{' | '.join(SEARCHES)})")
        if search_name in SEARCHES_WITH_FILE and not search_path:
            raise SpecError(f"{original!r}: @search={search_name} needs its net, as in @search={search_name}:PATH")
        if search_name not in SEARCHES_WITH_FILE and search_path is not None:
            raise SpecError(f"{original!r}: @search={search_name} takes no file")
        if search_path:
            try:
                net_argument(search_path)
            except SpecError as exc:
                raise SpecError(f"{original!r}: {exc}") from exc
        text = text[: m.start()]
    name, _, arg = text.partition(":")
    kind = registry.get(name)
    if kind is None:
        raise SpecError(f"{original!r}: unknown player kind {name!r} (expected {registry.grammar})")
    if "@" in text and kind.arg in ("none", "seed", "book"):
        raise SpecError(f"{original!r}: a limit must be @depth=N, @nodes=N or @movetime=S, a search @search=NAME")
    limit = _limit(original, fields)
    if kind.arg == "book":
        if limit is not None or book is not None or search is not None:
            raise SpecError(f"{original!r}: {name} plays from its book or at random: no limit, no @search=, "
                            "no +book:")
        if not arg:
            raise SpecError(f"{original!r}: {name} needs a book file, as in {kind.syntax}")
        book = _book_layer(original, arg, seed=True)
        return PlayerSpec(name, book.path, (), None, original.strip(), kind.external, book=book)
    if kind.arg == "none" and arg:
        raise SpecError(f"{original!r}: {name} takes no argument")
    if kind.arg in ("path", "engine") and not arg:
        raise SpecError(f"{original!r}: {name} needs a path, as in {kind.syntax}")
    if kind.arg == "seed" and arg and not _SEED_RE.fullmatch(arg):
        raise SpecError(f"{original!r}: the seed of {kind.syntax} must be a non-negative integer")
    options: tuple[tuple[str, str], ...] = ()
    if search is not None and kind.build is None:
        raise SpecError(f"{original!r}: @search= chooses our engine's search; {name} is an external engine")
    if kind.arg == "engine" and "?" in arg:
        arg, _, query = arg.partition("?")
        try:
            options = tuple(parse_qsl(query, keep_blank_values=True, strict_parsing=True))
        except ValueError as exc:
            raise SpecError(f"{original!r}: bad option list {query!r} (use Name=Value&Name=Value)") from exc
    return PlayerSpec(name, arg or None, options, limit, original.strip(), kind.external, search or DEFAULT_SEARCH,
                      book)


def _book_layer(original: str, text: str, *, seed: bool) -> BookLayer:
    """The :class:`BookLayer` of ``PATH[?min=N]`` (``seed``: also ``&seed=N``, a seed of 0 by default, and
    ``&explore=0|1``, off by default)."""
    path, _, query = text.partition("?")
    if not path:
        raise SpecError(f"{original!r}: a book needs a file, as in +book:PATH[?min=N]")
    allowed = ("min", "seed", "explore") if seed else ("min",)
    values = {"min": str(DEFAULT_BOOK_MIN), "seed": "0", "explore": "0"}
    if query:
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError as exc:
            raise SpecError(f"{original!r}: bad book options {query!r} (use {'&'.join(f'{k}=N' for k in allowed)})") \
                from exc
        for key, value in pairs:
            if key not in allowed:
                raise SpecError(f"{original!r}: unknown book option {key!r} (expected {' or '.join(allowed)})")
            if not _SEED_RE.fullmatch(value):
                raise SpecError(f"{original!r}: book option {key} must be a non-negative integer")
            values[key] = value
    min_games = int(values["min"])
    if min_games < 1:
        raise SpecError(f"{original!r}: book option min must be at least 1")
    if values["explore"] not in ("0", "1"):
        raise SpecError(f"{original!r}: book option explore must be 0 or 1")
    return BookLayer(path, min_games, int(values["seed"]) if seed else None, values["explore"] == "1")


MAX_SPEC_DEPTH, MAX_SPEC_NODES, MAX_SPEC_MOVETIME = 1000, 10**12, 10**6
"""The largest ``@depth=N`` (plies), ``@nodes=N`` and ``@movetime=S`` (seconds: over eleven days) a spec may ask."""


def _limit(original: str, fields: dict[str, float]) -> Limit | None:
    if not fields:
        return None
    depth, nodes, movetime = fields.get("depth"), fields.get("nodes"), fields.get("movetime")
    for name, value, bound in (("depth", depth, MAX_SPEC_DEPTH), ("nodes", nodes, MAX_SPEC_NODES),
                               ("movetime", movetime, MAX_SPEC_MOVETIME)):
        if value is not None and not value <= bound:  # also a digit string so long it reads as inf
            raise SpecError(f"{original!r}: @{name} must be at most {bound:g}, got {value:.15g}")
    if (depth is not None and depth != int(depth)) or (nodes is not None and nodes != int(nodes)):
        raise SpecError(f"{original!r}: depth and nodes must be whole numbers")
    limit = Limit(depth=int(depth) if depth is not None else None, nodes=int(nodes) if nodes is not None else None,
                  movetime=fields.get("movetime"))
    if ((limit.depth is not None and limit.depth < 1) or (limit.nodes is not None and limit.nodes < 1)
            or (limit.movetime is not None and limit.movetime <= 0)):
        raise SpecError(f"{original!r}: limits must be positive")
    return limit

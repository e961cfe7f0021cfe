"""The player-spec grammar (DESIGN.md), parsed into a :class:`PlayerSpec`.

A spec is one string::

    organism:PATH.json | expert | material | random[:SEED] | uci:PATH[?Option=Value&...] | net:PATH.npz

and, beyond DESIGN.md's list, ``xboard:PATH[?Option=Value&...]`` for an XBoard engine.

optionally followed by one or more limits: ``@depth=N``, ``@nodes=N``, ``@movetime=S`` (seconds).
Examples: ``material@depth=3``, ``uci:/usr/games/stockfish?Skill%20Level=3@movetime=0.1``.

This module only parses; turning a spec into an evaluator is the caller's business (the command
line wires the concrete evaluators in), so that ``search`` never imports ``organisms``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from .base import Limit

KINDS = ("organism", "expert", "material", "random", "uci", "xboard", "net")
_NEEDS_ARG = {"organism", "uci", "xboard", "net"}
_NO_ARG = {"expert", "material"}
_LIMIT_RE = re.compile(r"@(depth|nodes|movetime)=([0-9]*\.?[0-9]+)$")


class SpecError(ValueError):
    """A player spec that does not follow the grammar."""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec.

    ``arg`` is the path (organism, uci, net) or the seed (random), ``options`` the UCI options of a
    ``uci:`` player, ``limit`` the search limit given by ``@...`` suffixes (``None`` when absent).
    """

    kind: str
    arg: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    limit: Limit | None = None
    text: str = ""

    @property
    def is_external(self) -> bool:
        """True for a ``uci:``/``xboard:`` engine (an external process, not an evaluator in our engine)."""
        return self.kind in ("uci", "xboard")

    @property
    def seed(self) -> int:
        """The seed of a ``random`` spec (0 when none was given)."""
        if self.kind != "random":
            raise SpecError(f"{self.text!r}: only random specs have a seed")
        return int(self.arg) if self.arg else 0

    def __str__(self) -> str:
        return self.text


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``text``; raise :class:`SpecError` naming what is wrong."""
    original = text
    text = text.strip()
    if not text:
        raise SpecError("empty player spec")
    fields: dict[str, float] = {}
    while True:
        m = _LIMIT_RE.search(text)
        if m is None:
            break
        name, value = m.group(1), m.group(2)
        if name in fields:
            raise SpecError(f"{original!r}: @{name} given twice")
        fields[name] = float(value)
        text = text[: m.start()]
    if "@" in text and text.split(":", 1)[0] not in _NEEDS_ARG:
        raise SpecError(f"{original!r}: a limit must be @depth=N, @nodes=N or @movetime=S")
    limit = None
    if fields:
        depth = fields.get("depth")
        nodes = fields.get("nodes")
        if (depth is not None and depth != int(depth)) or (nodes is not None and nodes != int(nodes)):
            raise SpecError(f"{original!r}: depth and nodes must be whole numbers")
        limit = Limit(depth=int(depth) if depth is not None else None,
                      nodes=int(nodes) if nodes is not None else None,
                      movetime=fields.get("movetime"))
        if (limit.depth is not None and limit.depth < 1) or (limit.nodes is not None and limit.nodes < 1) or (
                limit.movetime is not None and limit.movetime <= 0):
            raise SpecError(f"{original!r}: limits must be positive")

    kind, _, arg = text.partition(":")
    if kind not in KINDS:
        raise SpecError(f"{original!r}: unknown player kind {kind!r} (expected one of {', '.join(KINDS)})")
    if kind in _NO_ARG and arg:
        raise SpecError(f"{original!r}: {kind} takes no argument")
    if kind in _NEEDS_ARG and not arg:
        raise SpecError(f"{original!r}: {kind} needs a path, as in {kind}:PATH")
    options: tuple[tuple[str, str], ...] = ()
    if kind in ("uci", "xboard") and "?" in arg:
        arg, _, query = arg.partition("?")
        try:
            options = tuple(parse_qsl(query, keep_blank_values=True, strict_parsing=True))
        except ValueError as exc:
            raise SpecError(f"{original!r}: bad option list {query!r} (use Name=Value&Name=Value)") from exc
    if kind == "random" and arg and not arg.isdigit():
        raise SpecError(f"{original!r}: the seed of random:SEED must be a non-negative integer")
    return PlayerSpec(kind, arg or None, options, limit, original.strip())

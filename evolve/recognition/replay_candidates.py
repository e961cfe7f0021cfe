"""Replay's candidates (``mimic recognize classify --method replay``): a named player spec, parsed and checked, and
what kind of player it is: randomised (scored by likelihood) or exact (replayed first, on every position).

May import :mod:`search` and :mod:`evolve.recognition.replay_scores`; the registry of player kinds arrives as an
argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from search.players.player import PlayerError, check_engines, make_player
from search.players.spec import PlayerRegistry, PlayerSpec, SpecError

RANDOMISING: dict[str, Callable[[str], bool]] = {
    "skill level": lambda v: v.strip().lstrip("-").isdigit() and int(v) < 20,
    "uci_limitstrength": lambda v: v.strip().lower() == "true",
}
"""UCI options (lower case) whose value makes an engine draw its moves at random, by a test of the value: Stockfish's
``Skill Level`` below 20 and ``UCI_LimitStrength`` true (the standard option of an engine's Elo limit)."""


@dataclass(frozen=True)
class Candidate:
    """A named player spec: ``name`` is the header name the query games carry for it; ``score`` the name of how its
    score of a query is taken (:data:`evolve.recognition.replay_scores.SCORES`)."""

    name: str
    spec: str
    score: str = "match"


def is_randomised(spec: PlayerSpec) -> bool:
    """Whether a spec's options make its engine draw its moves at random (:data:`RANDOMISING`)."""
    return any(test(str(value)) for name, value in spec.options
               if (test := RANDOMISING.get(name.lower())) is not None)


def parse_candidates(texts: Sequence[str], registry: PlayerRegistry, likelihood: Sequence[str] = (),
                     on_warning: Callable[[str], None] | None = None) -> list[Candidate]:
    """``NAME=SPEC`` texts, each one candidate or a comma-separated list of them (names: none of ``, = @ : ? /``),
    parsed and checked: distinct names, specs the registry parses, external engines that start, organism files that
    load. A candidate is scored by ``likelihood`` when its spec is randomised (:func:`is_randomised`) or its name is
    in ``likelihood``, else by ``match`` (:data:`SCORES`). :class:`~search.players.spec.SpecError` (a
    ``MimicError``) naming the first bad one (or a name of ``likelihood`` no candidate has). ``on_warning`` hears of
    an engine that does not honour its spec's node limit (:func:`search.players.player.check_engines`)."""
    out: list[Candidate] = []
    for text in texts:
        for item in (t.strip() for t in text.split(",")):
            name, eq, spec = item.partition("=")
            if not eq or not name.strip() or not spec.strip() or any(ch in name for ch in "@:?/"):
                raise SpecError(f"candidate {item[:80]!r}: expected NAME=SPEC (a name holds no @ : ? /)")
            if name.strip() in {c.name for c in out}:
                raise SpecError(f"candidate {name.strip()!r} named twice")
            out.append(Candidate(name.strip(), spec.strip()))
    if not out:
        raise SpecError("no candidates: give --candidates NAME=SPEC,...")
    unknown = sorted(set(likelihood) - {c.name for c in out})
    if unknown:
        raise SpecError(f"scored by likelihood but not a candidate: {', '.join(unknown)}")
    for i, c in enumerate(out):
        try:
            s = registry.parse(c.spec)
            if c.name in likelihood or is_randomised(s):
                out[i] = c = Candidate(c.name, c.spec, "likelihood")
            if s.is_external:
                check_engines([s], on_warning=_prefixed(on_warning, f"candidate {c.name}: "), replay=True)
            else:
                make_player(s, registry, hash_mb=1).close()
        except (SpecError, PlayerError) as exc:
            raise SpecError(f"candidate {c.name}: {exc}") from exc
    return out


def _prefixed(hear: Callable[[str], None] | None, prefix: str) -> Callable[[str], None] | None:
    """``hear`` with ``prefix`` before each message (``None`` stays ``None``)."""
    if hear is None:
        return None
    return lambda message: hear(prefix + message)


def is_exact(spec: PlayerSpec) -> bool:
    """Whether a candidate replays its own games' moves exactly: a depth or node limit of its own (which an external
    engine is sent alone) and no randomising option. Such candidates are replayed first, on every position; the
    others (limited by time, randomised) only where the exact ones disagree (:func:`replay_sides`)."""
    limit = spec.limit
    return limit is not None and (limit.depth is not None or limit.nodes is not None) and not is_randomised(spec)

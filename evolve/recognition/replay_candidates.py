"""Replay's candidates (``mimic recognize classify --method replay``): a named player spec, parsed and checked, what
kind of player it is: randomised (scored by likelihood) or exact (replayed first, on every position), and the key
its replay of a game side is cached under (:func:`replay_key`).

May import :mod:`search` and :mod:`evolve.recognition.replay_scores`; the registry of player kinds arrives as an
argument.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evolve.recognition.replay_scores import BETA, OUTSIDE_CP, SCORE_CAP
from search.base import Limit
from search.players.player import PlayerError, check_engines, make_player
from search.players.spec import PlayerRegistry, PlayerSpec, SpecError

CACHE_VERSION = 3
"""The replay cache's version, in every key: 3 since failures are codes (:data:`FAILURES`) and never cached."""

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


def _stamp(path: str | None) -> str:
    """A file's size and modification time (``-`` when it is none): a changed engine or organism is replayed anew."""
    if not path:
        return "-"
    found = shutil.which(path) or path
    try:
        st = os.stat(found)
    except OSError:
        return "-"
    return f"{found}:{st.st_size}:{st.st_mtime_ns}"


def replay_key(entry: tuple[int, str, list[str], bool], spec: PlayerSpec, limit: Limit, skip_plies: int,
               multipv: int, max_positions: int | None = None, ask: frozenset[int] | None = None) -> str:
    """The cache key of one candidate's replay of one game side (``entry``: its index, the game's starting FEN, its
    UCI moves, the side's colour): the side's start, moves and colour, the skipped
    plies, the spec's text and its files' stamps (engine, organism, book), the limit, ``multipv``, the positions a
    side (``max_positions``) and the plies asked (``ask``; ``None``: all)."""
    _, fen, moves, color = entry
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"{fen}|{' '.join(moves)}|{'w' if color else 'b'}\n".encode())
    book = spec.book.path if spec.book is not None else None
    digest.update(f"|skip={skip_plies}|spec={spec.text}|{_stamp(spec.arg)}|{_stamp(book)}|limit={limit}|"
                  f"multipv={multipv}|beta={BETA}|outside={OUTSIDE_CP}|cap={SCORE_CAP}|"
                  f"replay-v{CACHE_VERSION}".encode())
    if max_positions is not None:
        digest.update(f"|max_positions={max_positions}".encode())
    if ask is not None:
        digest.update(f"|ask={','.join(map(str, sorted(ask)))}".encode())
    return digest.hexdigest()

"""The one registry of player kinds: every kind a player spec may name, with its grammar, help and factory.

Adding a kind (``net:``, ``cmp:``...) is one :class:`~search.players.spec.PlayerKind` entry in
:data:`PLAYERS`. The factories are module-level functions, so the registry pickles by reference to them and
travels to worker processes.
"""

from __future__ import annotations

from collections.abc import Callable

from organisms import Expert, Material, Organism
from organisms.comparator import ComparatorNet
from organisms.genome import rich_genome
from organisms.movenet import MoveNet
from organisms.net import NetEvaluator, NetFileError
from organisms.pnet import PNet
from search import Evaluator
from search.base import MovePolicy
from search.book.chooser import DEEPRED, BookChooser
from search.players.spec import (
    EXTERNAL_KINDS,
    BookLayer,
    PlayerKind,
    PlayerRegistry,
    PlayerSpec,
    SpecError,
    net_argument,
)


def _material(spec: PlayerSpec) -> Evaluator:
    return Material()


def _expert(spec: PlayerSpec) -> Evaluator:
    return Expert()


def _random(spec: PlayerSpec) -> Evaluator:
    return Organism.random(spec.seed)


def _rich_random(spec: PlayerSpec) -> Evaluator:
    return Organism.random(spec.seed, genome=rich_genome())


def _organism(spec: PlayerSpec) -> Evaluator:
    assert spec.arg is not None
    try:
        return Organism.load(spec.arg)
    except OSError as exc:
        raise SpecError(f"{spec.text!r}: cannot read {spec.arg}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise SpecError(f"{spec.text!r}: {exc}") from exc


def _net_file(spec: PlayerSpec, load: Callable[[str], Evaluator]) -> Evaluator:
    """The net file a ``KIND:PATH`` spec names, read by ``load``; a bad file is a :class:`SpecError` naming both."""
    assert spec.arg is not None
    try:
        return load(spec.arg)
    except NetFileError as exc:
        raise SpecError(f"{spec.text!r}: {exc}") from exc


def _net(spec: PlayerSpec) -> Evaluator:
    return _net_file(spec, NetEvaluator.load)


def _pnet(spec: PlayerSpec) -> Evaluator:
    return _net_file(spec, PNet.load)


def _move_net(arg: str) -> MovePolicy:
    """The move-probability net of ``@search=prob-net:PATH[?t=T]``."""
    path, temperature = net_argument(arg)
    try:
        return MoveNet.load(path, temperature=temperature)
    except NetFileError as exc:
        raise SpecError(f"@search=prob-net:{arg}: {exc}") from exc


def _cmp(spec: PlayerSpec) -> Evaluator:
    """A DeepChess comparator: a Comparator (our engine runs the comparison alpha-beta with it) and, through its
    derived score, an Evaluator (for ``@search=prob``)."""
    return _net_file(spec, ComparatorNet.load)


def _book(layer: BookLayer) -> BookChooser:
    """The experience book of a spec's book layer (``+book:PATH``, ``deepred:PATH``)."""
    return BookChooser(layer.path, layer.min_games, layer.seed, layer.explore)


PLAYERS = PlayerRegistry([
    PlayerKind("organism", "path", "an evolved organism file (JSON), e.g. organism:results/x/organism.json",
               _organism),
    PlayerKind("expert", "none", "the built-in expert evaluation (PeSTO tables plus the organism's terms)", _expert),
    PlayerKind("material", "none", "material only: pawn 100, knight 320, bishop 330, rook 500, queen 900", _material),
    PlayerKind("random", "seed", "a random organism (a random chromosome; seed 0 by default)", _random),
    PlayerKind("rich-random", "seed", "a random organism of the rich genome (417 genes with piece-square ones; "
               "seed 0 by default)", _rich_random),
    PlayerKind("net", "path", "a Giraffe-style evaluation net (numpy inference), e.g. net:results/x/net.npz "
               "(mimic train-net)", _net),
    PlayerKind("pnet", "path", "a perspective net (768 -> N) x 2 -> 1, NNUE-style, played with incremental "
               "updates, e.g. pnet:results/x/pnet.npz", _pnet),
    PlayerKind("cmp", "path", "a DeepChess comparator played by the comparison alpha-beta, e.g. "
               "cmp:results/x/cmp.npz (mimic train-cmp)", _cmp),
    DEEPRED,
    *EXTERNAL_KINDS,
], load_policy=_move_net, open_book=_book)
"""Every player kind mimic knows, in the order help texts list them."""

make_evaluator = PLAYERS
"""The evaluator a spec names: ``make_evaluator("expert")``; raises :class:`~search.players.spec.SpecError`."""

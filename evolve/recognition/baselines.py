"""The centipawn-loss profile: the baseline of ``mimic recognize experiment`` that knows style only by errors.

Every move's loss in centipawns against a mentor at a fixed depth (our engine with the built-in expert at depth 1
by default, any evaluator spec with ``@depth=N``), as a histogram over :data:`CP_BINS` (the maia-individual
stylometry baseline); :mod:`evolve.recognition.experiments` classifies a query by the nearest centroid
(Euclidean) of the players' training histograms.

May import chess, numpy, :mod:`search` and :mod:`evolve.players` (the mentor's spec).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import chess
import numpy as np

from search.runtime.errors import SettingsError

if TYPE_CHECKING:
    from search.choose import AnyEngine

CP_BINS = (0, 1, 10, 25, 50, 100, 200, 400)
"""Lower edges (cp) of the centipawn-loss histogram's bins; the last bin is open (400 cp and more)."""

CP_CAP = 1000
"""A move's centipawn loss is capped here (a missed mate is not worth 29,000 cp of style)."""

CP_LOSS = "cp_loss"
"""The stage of measuring the centipawn losses; its units are chunks of :data:`CHUNK_SIDES` game sides."""

CHUNK_SIDES = 10
"""Game sides per task of the centipawn-loss measurement."""


def cp_losses(entries: Sequence[tuple[int, str, list[str], bool]], skip_plies: int, mentor: str,
              max_positions: int | None = None) -> list[tuple[int, list[int]]]:
    """Every move's loss in centipawns against ``mentor`` (an evaluator spec of :data:`evolve.players.PLAYERS`
    with ``@depth=N``, depth 1 when none, searched with its ``@search=``) at the positions where each (side, FEN,
    UCI moves, colour) moved from ply ``skip_plies`` + 1 on, one-move positions left out (the clones' positions,
    those where a move mates included): the mentor's score of its best move minus its score of the move played
    (both searched at the same depth, the played one with ``root_moves``), capped at :data:`CP_CAP`. At most
    ``max_positions`` a side (the first)."""
    from search.base import Limit

    engine, depth = built_in_engine(mentor)
    limit = Limit(depth=depth)
    out = []
    for side, fen, moves, color in entries:
        board = chess.Board(fen)
        losses: list[int] = []
        for ply, uci in enumerate(moves):
            move = chess.Move.from_uci(uci)
            if (ply >= skip_plies and board.turn == color and board.legal_moves.count() > 1
                    and (max_positions is None or len(losses) < max_positions)):
                best = engine.search(board, limit).score
                mine = engine.search(board, limit, root_moves=[move]).score
                losses.append(int(min(max(best - mine, 0), CP_CAP)))
            board.push(move)
        out.append((side, losses))
    return out


def built_in_engine(mentor: str) -> tuple[AnyEngine, int]:
    """Our engine for ``mentor``, an evaluator spec of :data:`evolve.players.PLAYERS` (``expert``,
    ``organism:PATH``, ...) searched with its ``@search=``, and its ``@depth=N`` (1 when none);
    :class:`~search.runtime.errors.SettingsError` (a ``ValueError``) for an external engine's spec. The one place
    recognition builds a mentor of ours (the centipawn-loss baseline, the mentor profile's built-in fallback)."""
    from evolve.players import PLAYERS
    from search.prob import make_engine

    spec = PLAYERS.parse(mentor)
    if spec.is_external:
        raise SettingsError(f"the mentor must be one of our evaluators (expert@depth=N, organism:...), got {mentor!r}")
    depth = spec.limit.depth if spec.limit is not None and spec.limit.depth else 1
    return make_engine(PLAYERS(spec), spec.search, hash_mb=8, policy=PLAYERS.policy(spec)), depth


def cp_histogram(losses: Sequence[int]) -> np.ndarray:
    """The share of moves in each bin of :data:`CP_BINS` (zeros for no moves).

    >>> cp_histogram([0, 0, 5, 500]).tolist()
    [0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25]
    """
    if not len(losses):
        return np.zeros(len(CP_BINS))
    idx = np.searchsorted(np.array(CP_BINS), np.asarray(losses), side="right") - 1
    return np.bincount(idx, minlength=len(CP_BINS)) / len(losses)

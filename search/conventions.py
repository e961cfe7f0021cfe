"""The chess conventions every package shares, in one place: the position key, piece values, mate scores, game
results and the legal prefix of a principal variation.

This module sits at the bottom of the dependency graph (it imports only python-chess), so ``search``,
``organisms``, ``mentor`` and ``evolve`` all use it instead of keeping copies.

Scores are centipawns from the point of view of the side to move. A mate has one internal scale:
``MATE - plies`` when the side to move mates in ``plies`` half-moves, ``-(MATE - plies)`` when it is mated.
Files and protocols have their own scales, converted here and nowhere else:

* EPD ``ce`` (label files): mates as ``±(EPD_MATE - plies)``, with ``EPD_MATE = 30000``;
* UCI ``score mate N``: ``N`` full moves, positive when the side to move mates;
* python-chess :class:`chess.engine.Score` (``Cp``/``Mate``/``MateGiven``).
"""

from __future__ import annotations

from collections.abc import Iterable

import chess
import chess.engine


# ---------------------------------------------------------------------- the position key
def position_key(board: chess.Board) -> int:
    """A 64-bit key that is equal for positions python-chess considers transpositions: the one key of every cache
    and table by position in a process (the transposition table, repetitions, the evaluation cache, the
    comparator's embeddings, the labeller's positions). Files keep their own keys (the experience tree's Zobrist).

    It hashes the fields of python-chess's ``Board._transposition_key()`` (piece bitboards, colours, side to move,
    castling rights and a *legal* en-passant square). python-chess puts ``None`` there when there is no
    en-passant square; ``hash(None)`` changes from process to process in Python 3.11, so we put ``-1`` instead.
    That keeps keys, table slots and hence fixed-depth searches identical in every run. An en-passant square no
    pawn can take on is no square at all: the position is the same as without it.

    >>> position_key(chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")) == position_key(
    ...     chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2"))
    False
    >>> position_key(chess.Board("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 2")) == position_key(
    ...     chess.Board("4k3/8/8/3p4/8/8/8/4K3 w - - 0 2"))
    True
    """
    ep = board.ep_square
    return hash((
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.turn,
        board.castling_rights, -1 if ep is None or not board.has_legal_en_passant() else ep,
    ))


# ---------------------------------------------------------------------- piece values
PIECE_VALUES: tuple[int, ...] = (0, 100, 320, 330, 500, 900, 0)
"""Centipawns by piece type (index 0 unused, the king 0): Tomasz Michniewski's Simplified Evaluation Function
values. Used for move ordering, delta pruning, quiescence targets and the material-only evaluator."""

SEE_VALUES: tuple[int, ...] = (*PIECE_VALUES[:6], 20000)
""":data:`PIECE_VALUES` with the king worth more than everything else together (20000 > 8 x 900 + 2 x 500
+ ...), so that static exchange evaluation never trades a king."""


def material_balance(board: chess.Board, values: tuple[int, ...] = PIECE_VALUES) -> int:
    """Material of the side to move minus the opponent's, centipawns, counted with bitboard popcounts.

    >>> material_balance(chess.Board("4k3/8/8/8/8/8/8/R3K3 b - - 0 1"))
    -500
    """
    w, b = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    s = (values[1] * ((board.pawns & w).bit_count() - (board.pawns & b).bit_count())
         + values[2] * ((board.knights & w).bit_count() - (board.knights & b).bit_count())
         + values[3] * ((board.bishops & w).bit_count() - (board.bishops & b).bit_count())
         + values[4] * ((board.rooks & w).bit_count() - (board.rooks & b).bit_count())
         + values[5] * ((board.queens & w).bit_count() - (board.queens & b).bit_count()))
    return s if board.turn == chess.WHITE else -s


# ---------------------------------------------------------------------- mate scores
MATE = 32000
"""Score of delivering mate right now; a mate in ``n`` plies scores ``MATE - n``. Greater than any material
sum (the expert's largest evaluation is far below 10000), so no evaluation is mistaken for a mate."""
MATE_BOUND = MATE - 1000
"""Any score with ``abs(score) >= MATE_BOUND`` is a mate score (mates up to 1000 plies away)."""
INFINITE = MATE + 1
"""Beyond every score: the initial alpha-beta window is ``(-INFINITE, INFINITE)``."""

EPD_MATE = 30000
"""EPD ``ce`` of mating now; label files write a mate in ``n`` plies as ``±(EPD_MATE - n)``."""
EPD_MATE_BOUND = EPD_MATE - 1000
"""Any ``ce`` with ``abs(ce) >= EPD_MATE_BOUND`` is a mate."""


def is_mate(score: int) -> bool:
    """True for an internal score that encodes a forced mate (either side).

    >>> is_mate(MATE - 3), is_mate(-(MATE - 4)), is_mate(2500)
    (True, True, False)
    """
    return abs(score) >= MATE_BOUND


def mate_plies(score: int) -> int | None:
    """Plies to mate of an internal score (positive: the side to move mates), or ``None``.

    >>> mate_plies(MATE - 3), mate_plies(-(MATE - 4)), mate_plies(35)
    (3, -4, None)
    """
    if score >= MATE_BOUND:
        return MATE - score
    if score <= -MATE_BOUND:
        return -(MATE + score)
    return None


def score_from_mate_plies(plies: int) -> int:
    """The internal score of a mate ``plies`` half-moves away (negative ``plies``: the side to move is mated).

    >>> score_from_mate_plies(3) == MATE - 3, score_from_mate_plies(-4) == -(MATE - 4)
    (True, True)
    """
    return MATE - plies if plies > 0 else -(MATE + plies)


def mate_moves(score: int) -> int | None:
    """UCI ``score mate N`` of an internal score: full moves, positive when the side to move mates, or ``None``.

    A mate in 3 plies is 2 moves; being mated in 4 plies is -2 moves; mated now (``-MATE``) is ``mate 0``.

    >>> mate_moves(MATE - 3), mate_moves(-(MATE - 4)), mate_moves(-MATE), mate_moves(120)
    (2, -2, 0, None)
    """
    plies = mate_plies(score)
    if plies is None:
        return None
    return (plies + 1) // 2 if plies > 0 else -((-plies) // 2)


def score_from_mate_moves(moves: int) -> int:
    """The internal score of UCI ``score mate N`` (``N > 0``: the side to move mates in N moves, which is
    ``2N - 1`` plies; ``N <= 0``: it is mated in ``-N`` moves, ``-2N`` plies).

    >>> score_from_mate_moves(2) == MATE - 3, score_from_mate_moves(-2) == -(MATE - 4), score_from_mate_moves(0)
    (True, True, -32000)
    """
    return MATE - (2 * moves - 1) if moves > 0 else -(MATE + 2 * moves)


def to_ce(score: int) -> int:
    """EPD ``ce`` of an internal score: centipawns unchanged, a mate in ``n`` plies as ``±(30000 - n)``.

    >>> to_ce(MATE - 3), to_ce(-(MATE - 4)), to_ce(-57)
    (29997, -29996, -57)
    """
    plies = mate_plies(score)
    if plies is None:
        return score
    return EPD_MATE - plies if plies > 0 else -(EPD_MATE + plies)


def from_ce(ce: int) -> int:
    """The internal score of an EPD ``ce`` (the inverse of :func:`to_ce`).

    >>> from_ce(29997) == MATE - 3, from_ce(-29996) == -(MATE - 4), from_ce(812)
    (True, True, 812)
    """
    if ce >= EPD_MATE_BOUND:
        return MATE - (EPD_MATE - ce)
    if ce <= -EPD_MATE_BOUND:
        return -(MATE - (EPD_MATE + ce))
    return ce


def ce_is_mate(ce: int) -> bool:
    """True for an EPD ``ce`` that encodes a mate.

    >>> ce_is_mate(29990), ce_is_mate(-29001), ce_is_mate(1500)
    (True, True, False)
    """
    return abs(ce) >= EPD_MATE_BOUND


def ce_from_mate_moves(moves: int) -> int:
    """EPD ``ce`` of UCI ``score mate N`` (a mentor's verdict).

    >>> ce_from_mate_moves(1), ce_from_mate_moves(-3), ce_from_mate_moves(0)
    (29999, -29994, -30000)
    """
    return to_ce(score_from_mate_moves(moves))


MAX_MATE_MOVES = (MATE - MATE_BOUND) // 2
"""The longest UCI ``score mate N`` any scale here can hold: ``|N|`` moves at most (1000 plies)."""


def uci_score_fault(kind: str, value: int) -> str | None:
    """Why a UCI score (``kind`` ``cp`` or ``mate``, ``value`` as sent) cannot be a mentor's verdict, or ``None``.

    A ``cp`` score must lie within the mate bound of EPD's scale (``|cp| < EPD_MATE_BOUND``: a larger one would
    read back from a label file as a mate, and no evaluation comes near it); a ``mate N`` must be at most
    :data:`MAX_MATE_MOVES` moves away.

    >>> uci_score_fault("cp", -31) is None, uci_score_fault("mate", -3) is None
    (True, True)
    >>> uci_score_fault("cp", 2 ** 70)
    'score cp 1180591620717411303424 is beyond the mate bound (|cp| < 29000)'
    """
    if kind == "cp" and abs(value) >= EPD_MATE_BOUND:
        return f"score cp {value} is beyond the mate bound (|cp| < {EPD_MATE_BOUND})"
    if kind == "mate" and abs(value) > MAX_MATE_MOVES:
        return f"score mate {value} is beyond the mate bound (|mate| <= {MAX_MATE_MOVES} moves)"
    if kind not in ("cp", "mate"):
        return f"score {kind} {value} is neither cp nor mate"
    return None


def from_engine_score(score: chess.engine.Score) -> int:
    """The internal score of a python-chess :class:`~chess.engine.Score` (already from the side to move's view,
    e.g. ``info["score"].relative``).

    >>> from_engine_score(chess.engine.Mate(2)) == MATE - 3, from_engine_score(chess.engine.Cp(-41))
    (True, -41)
    >>> from_engine_score(chess.engine.MateGiven) == MATE
    True
    """
    moves = score.mate()
    if moves is None:
        cp = score.score()
        assert cp is not None
        return cp
    if moves == 0:  # Mate(0) is "mated now" (-0), MateGiven is "mate delivered" (+0)
        return MATE if score > chess.engine.Cp(0) else -MATE
    return score_from_mate_moves(moves)


def to_engine_score(score: int) -> chess.engine.Score:
    """A python-chess :class:`~chess.engine.Score` for an internal score (side to move's view).

    >>> to_engine_score(MATE - 3), to_engine_score(-(MATE - 4)), to_engine_score(17)
    (Mate(+2), Mate(-2), Cp(+17))
    """
    moves = mate_moves(score)
    if moves is None:
        return chess.engine.Cp(score)
    if moves == 0 and score > 0:
        return chess.engine.MateGiven
    return chess.engine.Mate(moves)


def uci_score(score: int) -> str:
    """The ``score`` field of a UCI ``info`` line.

    >>> uci_score(MATE - 1), uci_score(-(MATE - 2)), uci_score(-35)
    ('mate 1', 'mate -1', 'cp -35')
    """
    moves = mate_moves(score)
    return f"mate {moves}" if moves is not None else f"cp {score}"


def pgn_score(score: int | None) -> str:
    """A score as cutechess writes it in PGN move comments: pawns with a sign, mates as ``+M<plies>``.

    >>> pgn_score(MATE - 5), pgn_score(-(MATE - 4)), pgn_score(-37), pgn_score(None)
    ('+M5', '-M4', '-0.37', '?')
    """
    if score is None:
        return "?"
    plies = mate_plies(score)
    if plies is not None:
        return f"{'+' if plies > 0 else '-'}M{abs(plies)}"
    return f"{score / 100:+.2f}"


# ---------------------------------------------------------------------- results
RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2")
"""The PGN result strings of a finished game (``*`` is an unfinished one)."""

_WHITE_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def result_points(result: str | None, color: chess.Color = chess.WHITE) -> float | None:
    """Points ``color`` scored in a game with this PGN result (1, ½ or 0), ``None`` when unfinished or unknown.

    >>> result_points("1-0"), result_points("1-0", chess.BLACK), result_points("1/2-1/2", chess.BLACK)
    (1.0, 0.0, 0.5)
    >>> result_points("*") is None
    True
    """
    white = _WHITE_POINTS.get(result or "")
    if white is None:
        return None
    return white if color == chess.WHITE else 1.0 - white


def result_from_points(points: float, color: chess.Color = chess.WHITE) -> str:
    """The PGN result string of a game in which ``color`` scored ``points`` (1, 0.5 or 0).

    >>> result_from_points(1.0), result_from_points(1.0, chess.BLACK), result_from_points(0.5, chess.BLACK)
    ('1-0', '0-1', '1/2-1/2')
    """
    white = points if color == chess.WHITE else 1.0 - points
    for text, value in _WHITE_POINTS.items():
        if value == white:
            return text
    raise ValueError(f"a game scores 0, 0.5 or 1 points, not {points!r}")


def loss_result(loser: chess.Color) -> str:
    """The result string of a game ``loser`` lost (by mate, resignation, forfeit...).

    >>> loss_result(chess.WHITE), loss_result(chess.BLACK)
    ('0-1', '1-0')
    """
    return result_from_points(0.0, loser)


# ---------------------------------------------------------------------- principal variations
def legal_prefix(board: chess.Board, moves: Iterable[chess.Move | str]) -> list[chess.Move]:
    """The longest prefix of ``moves`` (``chess.Move`` or UCI text) that is legal from ``board`` (left unchanged).

    A move that does not parse, an illegal move or a null move ends the prefix.

    >>> [m.uci() for m in legal_prefix(chess.Board(), ["e2e4", "e7e5", "e4e5", "g1f3"])]
    ['e2e4', 'e7e5']
    """
    b = board.copy(stack=False)
    out: list[chess.Move] = []
    for m in moves:
        if isinstance(m, str):
            try:
                m = chess.Move.from_uci(m)
            except ValueError:
                break
        if not m or not b.is_legal(m):
            break
        out.append(m)
        b.push(m)
    return out

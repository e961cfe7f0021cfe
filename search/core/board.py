"""The compiled core's position: a few numpy arrays, make/unmake with the polyglot key, repetitions and draws.

A position is five arrays (:class:`Position`), passed as they are to ``njit`` functions:

- ``bb``, ``uint64 (2, 7)``: ``bb[colour, piece_type]`` the bitboard of that colour's pieces of that type
  (python-chess's numbering: BLACK 0, WHITE 1; PAWN 1 … KING 6), ``bb[colour, 0]`` all of that colour's pieces;
- ``mb``, ``int8 (64,)``: the mailbox, 0 for an empty square, else ``8 * colour + piece_type``;
- ``st``, ``int64 (ST_LEN,)``: the scalars at the slots :data:`SIDE` (1 white to move, 0 black), :data:`CASTLE`
  (bits 1 white O-O, 2 white O-O-O, 4 black O-O, 8 black O-O-O), :data:`EP` (python-chess's ``ep_square``: the
  square behind a pawn that has just moved two squares, else -1), :data:`HALFMOVE`, :data:`FULLMOVE`, :data:`PLY`
  (plies made since :func:`from_board`: the row of ``undo``), :data:`KIDX` (the index of the current key in
  ``keys``), :data:`NULLFLOOR` (the index in ``keys`` of the position after the last null move: no repetition is
  looked for before it); slots from :data:`ST_FREE` on are free for the search;
- ``keys``, ``uint64``: the polyglot keys (``chess.polyglot.zobrist_hash``) of the game's earlier positions that a
  repetition could return to (the last ``min(halfmove clock, moves played)``), then of the position and of the
  search path: the current key is ``keys[st[KIDX]]``; room for :data:`MAX_PLY` plies;
- ``undo``, ``int64 (MAX_PLY, 4)``: what a move destroys (captured piece code, castling rights, ep square,
  halfmove clock; a null move keeps the null floor in column 0), row ``st[PLY]``.

Moves are packed in an ``int32``: ``from | to << 6 | promotion_piece_type << 12`` plus the flags
:data:`F_CAPTURE`, :data:`F_EP` (en passant, also a capture), :data:`F_CASTLE` (the king's move, e1g1 …) and
:data:`F_DOUBLE` (a pawn's double push); 0 is no move. :func:`make_move` / :func:`unmake_move` take only moves
the position's generator made (:mod:`search.core.movegen`) (a hot loop may inline them: ``njit(inline="always")`` of
their ``py_func``, as perft does: 11 ns a move made and taken back on raw views, 44 ns as calls, at the price of
compile time in every function that inlines them); the key is updated incrementally and equals
``chess.polyglot.zobrist_hash`` (the en-passant file counts only when a pawn of the side to move stands beside
the pawn that moved two squares, legal capture or not). Repetitions, the fifty-move rule and insufficient material
follow mimic's engine (``search/root.py``'s ``_drawn``) and python-chess (:func:`is_insufficient`).
"""

from __future__ import annotations

from typing import NamedTuple

import chess
import chess.polyglot
import numpy as np

from search.core.attacks import PAWN_ATTACKS
from search.core.jit import njit, popcount

SIDE, CASTLE, EP, HALFMOVE, FULLMOVE, PLY, KIDX, NULLFLOOR = range(8)
ST_FREE = 8
"""The first slot of ``st`` the board leaves to the search."""
ST_LEN = 16
MAX_PLY = 256
"""Plies the arrays hold from the root: the search path, quiescence included."""

F_CAPTURE = 1 << 15
F_EP = 1 << 16
F_CASTLE = 1 << 17
F_DOUBLE = 1 << 18

ONE = np.uint64(1)
ZERO = np.uint64(0)
DARK_SQUARES = np.uint64(0xAA55AA55AA55AA55)
LIGHT_SQUARES = np.uint64(0x55AA55AA55AA55AA)

_R = np.array(chess.polyglot.POLYGLOT_RANDOM_ARRAY, dtype=np.uint64)
Z_PIECE = np.zeros((16, 64), np.uint64)
"""``Z_PIECE[8 * colour + piece_type, sq]``: polyglot's number for that piece on that square."""
for _c in (0, 1):
    for _pt in range(1, 7):
        Z_PIECE[8 * _c + _pt] = _R[64 * (2 * (_pt - 1) + _c):64 * (2 * (_pt - 1) + _c) + 64]
Z_CASTLE = np.zeros(16, np.uint64)
"""``Z_CASTLE[rights]``: the xor of polyglot's numbers of the rights set in ``rights`` (bit i: number 768 + i)."""
for _rights in range(16):
    for _i in range(4):
        if _rights >> _i & 1:
            Z_CASTLE[_rights] ^= _R[768 + _i]
Z_EP = _R[772:780].copy()
Z_SIDE = _R[780]

CASTLE_KEEP = np.full(64, 15, np.int64)
"""``CASTLE_KEEP[sq]``: the rights that survive a move from or to ``sq`` (a king's or a rook's home square)."""
CASTLE_KEEP[chess.E1], CASTLE_KEEP[chess.H1], CASTLE_KEEP[chess.A1] = 15 ^ 3, 15 ^ 1, 15 ^ 2
CASTLE_KEEP[chess.E8], CASTLE_KEEP[chess.H8], CASTLE_KEEP[chess.A8] = 15 ^ 12, 15 ^ 4, 15 ^ 8


class Position(NamedTuple):
    """A position in the core's arrays (module docstring)."""

    bb: np.ndarray
    mb: np.ndarray
    st: np.ndarray
    keys: np.ndarray
    undo: np.ndarray


class Unsupported(ValueError):
    """A board the core does not play (chess960, a variant, a position the rules cannot come from): the caller
    uses mimic's Python engine instead."""


def _refusal(board: chess.Board) -> str | None:
    if board.chess960:
        return "chess960"
    if getattr(board, "uci_variant", "chess") != "chess" or type(board).starting_fen != chess.STARTING_FEN:
        return f"variant {getattr(board, 'uci_variant', type(board).__name__)}"
    for colour in (chess.WHITE, chess.BLACK):
        if chess.popcount(board.kings & board.occupied_co[colour]) != 1:
            return "not one king a side"
    if board.pawns & chess.BB_BACKRANKS:
        return "a pawn on a back rank"
    if board.was_into_check():
        return "the side not to move is in check"
    return None


def from_board(board: chess.Board) -> Position:
    """The core's arrays of ``board``, with the keys of its earlier positions a repetition could return to.

    Raises :class:`Unsupported` for chess960, variants and positions the rules cannot come from (a side without
    exactly one king, a pawn on a back rank, the side not to move in check).
    """
    why = _refusal(board)
    if why is not None:
        raise Unsupported(f"the compiled core does not play this board ({why}): {board.fen()}")
    bb = np.zeros((2, 7), np.uint64)
    mb = np.zeros(64, np.int8)
    for colour in (0, 1):
        for pt in range(1, 7):
            b = board.pieces_mask(pt, bool(colour))
            bb[colour, pt] = b
            bb[colour, 0] |= np.uint64(b)
            for sq in chess.scan_forward(b):
                mb[sq] = 8 * colour + pt
    st = np.zeros(ST_LEN, np.int64)
    st[SIDE] = int(board.turn)
    rights = board.clean_castling_rights()
    st[CASTLE] = ((rights & chess.BB_H1 != 0) | (rights & chess.BB_A1 != 0) << 1
                  | (rights & chess.BB_H8 != 0) << 2 | (rights & chess.BB_A8 != 0) << 3)
    st[EP] = -1 if board.ep_square is None else board.ep_square
    st[HALFMOVE] = board.halfmove_clock
    st[FULLMOVE] = board.fullmove_number
    earlier = []
    n = min(board.halfmove_clock, len(board.move_stack))
    if n:
        back = board.copy()
        for _ in range(n):
            back.pop()
            earlier.append(chess.polyglot.zobrist_hash(back))
        earlier.reverse()
    keys = np.zeros(len(earlier) + MAX_PLY + 1, np.uint64)
    keys[:len(earlier)] = np.array(earlier, dtype=np.uint64)
    st[KIDX] = len(earlier)
    keys[len(earlier)] = compute_key(bb, mb, st)
    undo = np.zeros((MAX_PLY, 4), np.int64)
    return Position(bb, mb, st, keys, undo)


@njit(cache=True)
def ep_hashed(bb, side, ep):  # type: ignore[no-untyped-def]
    """Whether polyglot hashes the ep square ``ep`` (>= 0) with ``side`` to move: a pawn of ``side`` beside the
    pawn that moved two squares."""
    return (PAWN_ATTACKS[1 - side, ep] & bb[side, 1]) != ZERO


@njit(cache=True)
def compute_key(bb, mb, st):  # type: ignore[no-untyped-def]
    """The polyglot key of the position, from scratch (``uint64``)."""
    key = ZERO
    for sq in range(64):
        if mb[sq]:
            key ^= Z_PIECE[mb[sq], sq]
    key ^= Z_CASTLE[st[CASTLE]]
    ep = st[EP]
    if ep >= 0 and ep_hashed(bb, st[SIDE], ep):
        key ^= Z_EP[ep & 7]
    if st[SIDE] == 1:
        key ^= Z_SIDE
    return key


@njit(cache=True)
def _rook_squares(to):  # type: ignore[no-untyped-def]
    """The rook's from and to squares of the castling whose king lands on ``to`` (g1, c1, g8, c8)."""
    if to == 6:
        return 7, 5
    if to == 2:
        return 0, 3
    if to == 62:
        return 63, 61
    return 56, 59


@njit(cache=True)
def make_move(bb, mb, st, keys, undo, m):  # type: ignore[no-untyped-def]
    """Make the generated move ``m`` (``int32`` packing, module docstring), updating every array and the key."""
    us = st[SIDE]
    them = 1 - us
    frm = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 7
    ply = st[PLY]
    undo[ply, 0] = 0
    undo[ply, 1] = st[CASTLE]
    undo[ply, 2] = st[EP]
    undo[ply, 3] = st[HALFMOVE]
    key = keys[st[KIDX]]
    ep = st[EP]
    if ep >= 0 and ep_hashed(bb, us, ep):
        key ^= Z_EP[ep & 7]
    piece = mb[frm]
    pt = piece & 7
    frombit = ONE << np.uint64(frm)
    tobit = ONE << np.uint64(to)
    st[HALFMOVE] += 1
    if m & F_EP:
        capsq = to - 8 if us == 1 else to + 8
        cap = mb[capsq]
        if cap:  # python-chess plays en passant on a FEN's ep square even with no pawn to take: nothing goes
            capbit = ONE << np.uint64(capsq)
            bb[them, 1] ^= capbit
            bb[them, 0] ^= capbit
            mb[capsq] = 0
            key ^= Z_PIECE[cap, capsq]
            undo[ply, 0] = cap
    elif mb[to] != 0:
        cap = mb[to]
        bb[them, cap & 7] ^= tobit
        bb[them, 0] ^= tobit
        key ^= Z_PIECE[cap, to]
        undo[ply, 0] = cap
        st[HALFMOVE] = 0
    move_bits = frombit | tobit
    bb[us, pt] ^= move_bits
    bb[us, 0] ^= move_bits
    mb[frm] = 0
    mb[to] = piece
    key ^= Z_PIECE[piece, frm] ^ Z_PIECE[piece, to]
    if pt == 1:
        st[HALFMOVE] = 0
        if promo:
            newp = 8 * us + promo
            bb[us, 1] ^= tobit
            bb[us, promo] ^= tobit
            mb[to] = newp
            key ^= Z_PIECE[piece, to] ^ Z_PIECE[newp, to]
    elif m & F_CASTLE:
        rf, rt = _rook_squares(to)
        rbits = (ONE << np.uint64(rf)) | (ONE << np.uint64(rt))
        rook = mb[rf]
        bb[us, 4] ^= rbits
        bb[us, 0] ^= rbits
        mb[rf] = 0
        mb[rt] = rook
        key ^= Z_PIECE[rook, rf] ^ Z_PIECE[rook, rt]
    rights = st[CASTLE]
    if rights:
        new_rights = rights & CASTLE_KEEP[frm] & CASTLE_KEEP[to]
        if new_rights != rights:
            key ^= Z_CASTLE[rights] ^ Z_CASTLE[new_rights]
            st[CASTLE] = new_rights
    st[EP] = -1
    if m & F_DOUBLE:
        ep = (frm + to) >> 1
        st[EP] = ep
        if ep_hashed(bb, them, ep):
            key ^= Z_EP[ep & 7]
    key ^= Z_SIDE
    st[SIDE] = them
    if us == 0:
        st[FULLMOVE] += 1
    st[PLY] = ply + 1
    st[KIDX] += 1
    keys[st[KIDX]] = key


@njit(cache=True)
def unmake_move(bb, mb, st, keys, undo, m):  # type: ignore[no-untyped-def]
    """Take back ``m``, the last move made by :func:`make_move`: every array as it was (the key by its index)."""
    ply = st[PLY] - 1
    st[PLY] = ply
    st[KIDX] -= 1
    them = st[SIDE]
    us = 1 - them
    st[SIDE] = us
    if us == 0:
        st[FULLMOVE] -= 1
    frm = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 7
    frombit = ONE << np.uint64(frm)
    tobit = ONE << np.uint64(to)
    piece = mb[to]
    if promo:
        bb[us, promo] ^= tobit
        bb[us, 1] ^= tobit
        piece = 8 * us + 1
    move_bits = frombit | tobit
    bb[us, piece & 7] ^= move_bits
    bb[us, 0] ^= move_bits
    mb[frm] = piece
    mb[to] = 0
    cap = undo[ply, 0]
    if m & F_EP:
        if cap:
            capsq = to - 8 if us == 1 else to + 8
            capbit = ONE << np.uint64(capsq)
            bb[them, 1] ^= capbit
            bb[them, 0] ^= capbit
            mb[capsq] = cap
    elif cap:
        bb[them, cap & 7] ^= tobit
        bb[them, 0] ^= tobit
        mb[to] = cap
    elif m & F_CASTLE:
        rf, rt = _rook_squares(to)
        rbits = (ONE << np.uint64(rf)) | (ONE << np.uint64(rt))
        bb[us, 4] ^= rbits
        bb[us, 0] ^= rbits
        mb[rf] = mb[rt]
        mb[rt] = 0
    st[CASTLE] = undo[ply, 1]
    st[EP] = undo[ply, 2]
    st[HALFMOVE] = undo[ply, 3]


@njit(cache=True)
def make_null(bb, mb, st, keys, undo):  # type: ignore[no-untyped-def]
    """Pass the move (as python-chess's null move: the halfmove clock counts it, the ep square goes); the
    position after it is the new null floor: no repetition reaches back past it."""
    ply = st[PLY]
    us = st[SIDE]
    undo[ply, 0] = st[NULLFLOOR]
    undo[ply, 1] = st[CASTLE]
    undo[ply, 2] = st[EP]
    undo[ply, 3] = st[HALFMOVE]
    key = keys[st[KIDX]] ^ Z_SIDE
    ep = st[EP]
    if ep >= 0 and ep_hashed(bb, us, ep):
        key ^= Z_EP[ep & 7]
    st[EP] = -1
    st[HALFMOVE] += 1
    if us == 0:
        st[FULLMOVE] += 1
    st[SIDE] = 1 - us
    st[PLY] = ply + 1
    st[KIDX] += 1
    keys[st[KIDX]] = key
    st[NULLFLOOR] = st[KIDX]


@njit(cache=True)
def unmake_null(bb, mb, st, keys, undo):  # type: ignore[no-untyped-def]
    """Take back the null move :func:`make_null` made."""
    ply = st[PLY] - 1
    st[PLY] = ply
    st[KIDX] -= 1
    st[SIDE] = 1 - st[SIDE]
    if st[SIDE] == 0:
        st[FULLMOVE] -= 1
    st[NULLFLOOR] = undo[ply, 0]
    st[EP] = undo[ply, 2]
    st[HALFMOVE] = undo[ply, 3]


@njit(cache=True)
def is_repetition(st, keys):  # type: ignore[no-untyped-def]
    """Whether the current position occurred before since the last irreversible move (and since the last null
    move): one earlier occurrence is enough (mimic's engine, ``search/root.py``'s ``_drawn``)."""
    hmc = st[HALFMOVE]
    if hmc < 4:
        return False
    k = st[KIDX]
    key = keys[k]
    lo = max(k - hmc, st[NULLFLOOR])
    i = k - 4
    while i >= lo:
        if keys[i] == key:
            return True
        i -= 2
    return False


@njit(cache=True)
def has_insufficient(bb, colour):  # type: ignore[no-untyped-def]
    """python-chess's ``has_insufficient_material(colour)``: ``colour`` cannot checkmate by any sequence."""
    ours = bb[colour, 0]
    if ours & (bb[0, 1] | bb[1, 1] | bb[0, 4] | bb[1, 4] | bb[0, 5] | bb[1, 5]):
        return False
    if ours & (bb[0, 2] | bb[1, 2]):
        theirs = bb[1 - colour, 0]
        return popcount(ours) <= 2 and not (theirs & ~bb[1 - colour, 6] & ~bb[1 - colour, 5])
    bishops = bb[0, 3] | bb[1, 3]
    if ours & bishops:
        same_colour = not (bishops & DARK_SQUARES) or not (bishops & LIGHT_SQUARES)
        return same_colour and not (bb[0, 1] | bb[1, 1]) and not (bb[0, 2] | bb[1, 2])
    return True


@njit(cache=True)
def is_insufficient(bb):  # type: ignore[no-untyped-def]
    """python-chess's ``is_insufficient_material()``: neither side can checkmate."""
    return has_insufficient(bb, 0) and has_insufficient(bb, 1)

"""The experience book's keys: positions as signed 64-bit polyglot hashes, moves as small integers.

A book key (:func:`book_key`) is ``chess.polyglot.zobrist_hash`` stored as the signed 64-bit integer with the
same bits (:func:`signed_key`), since SQLite integers are signed; it is not the engine's transposition key
(:func:`search.tt.position_key`). A move is :func:`move_code`: from-square + 64 x to-square + 4096 x
promotion piece type (0 for none); castling is the king's move (``e1g1``). Along a game the piece part of the
hash is updated from the squares that changed (:func:`update_pieces_hash`) rather than recomputed, for the
PGN reader's speed. Imports chess only.
"""

from __future__ import annotations

import chess
import chess.polyglot

_SIGN = 1 << 63


def signed_key(key: int) -> int:
    """An unsigned 64-bit key as the signed 64-bit integer with the same bits (two's complement).

    >>> signed_key(5), signed_key(2**64 - 1), signed_key(2**63)
    (5, -1, -9223372036854775808)
    """
    return (key ^ _SIGN) - _SIGN


def book_key(board: chess.Board) -> int:
    """The book's key of a position: its polyglot Zobrist hash as a signed 64-bit integer."""
    return signed_key(chess.polyglot.zobrist_hash(board))


def move_code(move: chess.Move) -> int:
    """A move as a small integer: from + 64 x to + 4096 x promotion (piece type, 0 for none).

    >>> move_code(chess.Move.from_uci("e2e4")), move_code(chess.Move.from_uci("a7a8q"))
    (1804, 24112)
    """
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def code_move(code: int) -> chess.Move:
    """The move of a :func:`move_code`.

    >>> code_move(24112).uci()
    'a7a8q'
    """
    return chess.Move(code & 63, (code >> 6) & 63, (code >> 12) or None)


def piece_part(board: chess.Board) -> tuple[int, ...]:
    """The 12 piece bitboards in polyglot's order: black pawns, white pawns, black knights, ..."""
    b, w = board.occupied_co
    p, n, bi, r, q, k = board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings
    return (p & b, p & w, n & b, n & w, bi & b, bi & w, r & b, r & w, q & b, q & w, k & b, k & w)


_ARRAY = chess.polyglot.POLYGLOT_RANDOM_ARRAY
_HASHER = chess.polyglot.ZobristHasher(_ARRAY)


def pieces_hash(part: tuple[int, ...]) -> int:
    """The piece part of the polyglot hash of the bitboards of :func:`piece_part`."""
    pieces = 0
    for index, bb in enumerate(part):
        for sq in chess.scan_forward(bb):
            pieces ^= _ARRAY[64 * index + sq]
    return pieces


def update_pieces_hash(pieces: int, before: tuple[int, ...], after: tuple[int, ...]) -> int:
    """The piece part of the hash after a move: ``pieces`` (of ``before``) with every square whose piece
    changed on the way to ``after`` toggled (both :func:`piece_part`)."""
    for index in range(12):
        changed = before[index] ^ after[index]
        while changed:
            low = changed & -changed
            pieces ^= _ARRAY[64 * index + low.bit_length() - 1]
            changed ^= low
    return pieces


def rest_hash(board: chess.Board) -> int:
    """The castling, en-passant and turn parts of the polyglot hash (the piece part is kept incrementally)."""
    return _HASHER.hash_castling(board) ^ _HASHER.hash_ep_square(board) ^ _HASHER.hash_turn(board)


_CASTLING_SQUARES = ((chess.BB_H1, 768), (chess.BB_A1, 769), (chess.BB_H8, 770), (chess.BB_A8, 771))
_CASTLING: dict[int, int] = {}


def _castling_hash(rights: int) -> int:
    """The castling part of the polyglot hash from standard castling rights (rooks on a1/h1/a8/h8, the kings
    on e1/e8, rights clean): what ``ZobristHasher.hash_castling`` gives for them, without looking at the board."""
    value = _CASTLING.get(rights)
    if value is None:
        value = 0
        for bb, index in _CASTLING_SQUARES:
            if rights & bb:
                value ^= _ARRAY[index]
        _CASTLING[rights] = value
    return value


def fast_rest_hash(board: chess.Board) -> int:
    """:func:`rest_hash` for a board whose castling rights are clean and map square by square onto polyglot's
    four flags (see :func:`_castling_hash`; the reader checks this on a game's start position, and
    ``board.push`` keeps it so: a right goes when its rook moves or is taken, both when the king moves)."""
    value = _castling_hash(board.castling_rights)
    if board.ep_square is not None:
        value ^= _HASHER.hash_ep_square(board)
    return value ^ _ARRAY[780] if board.turn else value

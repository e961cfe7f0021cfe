"""The compiled core (issue 62; ARCHITECTURE.md, Packages and rooms: ``search/core/``): a bitboard board, legal
move generation, make/unmake with the polyglot key, repetitions and draws, SEE, perft, a search and native
evaluators, all ``njit`` functions compiled once by numba (``cache=True``, the cache under mimic's cache root:
:mod:`search.core.jit`) and driven by one Python call per search or perft, never per node.

Conventions (python-chess's): squares 0..63 (a1 = 0, h1 = 7, h8 = 63), colours BLACK = 0 and WHITE = 1, piece
types PAWN 1 … KING 6. Every bitboard is a ``uint64``; never mix ``uint64`` with ``int64`` in arithmetic (numba
then computes in ``float64``): write bit constants as ``np.uint64(...)``.

API (the modules' docstrings say the rest):

- :mod:`search.core.jit`: ``njit`` (import it from here, never numba first), ``popcount(b)``, ``lsb(b)``, ``msb(b)``
  (``int64`` results; ``lsb``/``msb`` of 0 undefined).
- :mod:`search.core.attacks`: ``knight_attacks(sq)``, ``king_attacks(sq)``, ``pawn_attacks(colour, sq)``,
  ``bishop_attacks(sq, occ)``, ``rook_attacks(sq, occ)``, ``queen_attacks(sq, occ)`` (``uint64``); the tables
  ``KNIGHT_ATTACKS[sq]``, ``KING_ATTACKS[sq]``, ``PAWN_ATTACKS[colour, sq]``, ``BETWEEN[a, b]`` (strictly between two
  aligned squares, else 0), ``LINE[a, b]`` (the whole line through two aligned squares, else 0).
- :mod:`search.core.board` (coming): the position as arrays ``bb`` (``uint64 (2, 7)``: ``bb[c, pt]``, ``bb[c, 0]``
  all of colour c), ``mb`` (``int8 (64,)``: 0 empty, else ``8 * colour + piece_type``), ``st`` (``int64``, slots
  ``SIDE``, ``CASTLE``, ``EP``, ``HALFMOVE``, ``FULLMOVE``, ``PLY``, ``KIDX``, ``NULLFLOOR``), ``keys`` (``uint64``:
  the polyglot keys of the game's earlier positions then of the search path; the current key is
  ``keys[st[KIDX]]``) and ``undo`` (``int64 (MAX_PLY, 4)``, indexed by ``st[PLY]``); ``from_board(board) ->
  Position`` (refuses chess960 and variants); ``make_move``, ``unmake_move``, ``make_null``, ``unmake_null``;
  ``is_repetition``, ``is_insufficient``, ``is_draw``.
- :mod:`search.core.movegen` (coming): moves packed in an ``int32`` (from | to << 6 | promotion << 12 | flags);
  ``gen_moves(bb, mb, st, out) -> n`` (legal), ``gen_captures`` (quiescence), ``in_check``, ``attackers_to``;
  ``move_to_chess`` / ``move_from_chess`` at the Python edge.
- :mod:`search.core.see` (coming): ``see(bb, mb, st, m)`` equal to :func:`search.see.see`.
- :mod:`search.core.perft` (coming): ``perft(board, depth)`` and ``divide(board, depth)``.
"""

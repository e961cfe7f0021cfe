"""The compiled core (issue 62; ARCHITECTURE.md, Packages and rooms: ``search/core/``): a bitboard board, legal
move generation, make/unmake with the polyglot key, repetitions and draws, SEE, perft, a search and native
evaluators, all ``njit`` functions compiled once by numba (``cache=True``, the cache under mimic's cache root:
:mod:`search.core.jit`) and driven by one Python call per search or perft, never per node.

Conventions (python-chess's): squares 0..63 (a1 = 0, h1 = 7, h8 = 63), colours BLACK = 0 and WHITE = 1, piece
types PAWN 1 … KING 6. Every bitboard is a ``uint64``; never mix ``uint64`` with ``int64`` in arithmetic (numba
then computes in ``float64``): write bit constants as ``np.uint64(...)``.

numba caveats (0.68): a cached function that calls a *recursive* ``njit`` function segfaults when a later process
loads it from the cache (seen here; numba issue 6061): write a recursion with an explicit stack, as perft does.
numba reuses a cached function after checking only its own file, so :mod:`search.core.jit` keeps one cache folder
per digest of the core's sources (an edit anywhere in the core recompiles everything once, never runs stale code).
``inline="always"`` is not needed for speed (LLVM inlines the small functions; perft measured no faster with it) and
costs compile time.

Speed: numba counts references to every array passed to a compiled function (atomic operations its pruning pass
often leaves in): make/unmake cost 115 ns a move made and taken back as calls on ordinary arrays, 44 ns as calls on
raw views (:func:`search.core.jit.raw_view`), 11 ns inlined (``njit(inline="always")(make_move.py_func)``) into
the function that made the raw views (the null reference count is then a constant and the counting disappears;
inlining costs compile time: 8 s more when the search inlined them everywhere). So an entry point called from
Python turns its arrays into raw views itself, in the function that holds the hot loop, and passes only those below
it: perft does, 56 million leaves per CPU second (20 with the views made one call up and make/unmake as calls).

API (the modules' docstrings say the rest):

- :mod:`search.core.jit`: ``njit`` (import it from here, never numba first), ``popcount(b)``, ``lsb(b)``, ``msb(b)``
  (``int64`` results; ``lsb``/``msb`` of 0 undefined), ``raw_view(a)`` (a C-contiguous array without reference
  counting, valid inside the call that received ``a``).
- :mod:`search.core.attacks`: ``knight_attacks(sq)``, ``king_attacks(sq)``, ``pawn_attacks(colour, sq)``,
  ``bishop_attacks(sq, occ)``, ``rook_attacks(sq, occ)``, ``queen_attacks(sq, occ)`` (``uint64``); the tables
  ``KNIGHT_ATTACKS[sq]``, ``KING_ATTACKS[sq]``, ``PAWN_ATTACKS[colour, sq]``, ``BETWEEN[a, b]`` (strictly between two
  aligned squares, else 0), ``LINE[a, b]`` (the whole line through two aligned squares, else 0).
- :mod:`search.core.board`: the position as arrays ``bb`` (``uint64 (2, 7)``: ``bb[c, pt]``, ``bb[c, 0]`` all of
  colour c), ``mb`` (``int8 (64,)``: 0 empty, else ``8 * colour + piece_type``), ``st`` (``int64 (ST_LEN,)``, slots
  ``SIDE``, ``CASTLE``, ``EP``, ``HALFMOVE``, ``FULLMOVE``, ``PLY``, ``KIDX``, ``NULLFLOOR``; slots from ``ST_FREE``
  on are the search's), ``keys`` (``uint64``: the polyglot keys of the game's earlier positions then of the search
  path; the current key is ``keys[st[KIDX]]``) and ``undo`` (``int64 (MAX_PLY, 4)``, row ``st[PLY]``);
  ``from_board(board) -> Position`` (a NamedTuple ``bb, mb, st, keys, undo``; raises ``Unsupported``, a
  ``ValueError``, for chess960, variants and impossible positions); ``make_move(bb, mb, st, keys, undo, m)``,
  ``unmake_move(bb, mb, st, keys, undo, m)``, ``make_null(bb, mb, st, keys, undo)``, ``unmake_null(...)``;
  ``compute_key(bb, mb, st)``; ``is_repetition(st, keys)``, ``is_insufficient(bb)``; move packing: ``from | to << 6 |
  promotion << 12 | F_CAPTURE | F_EP | F_CASTLE | F_DOUBLE`` (``int32``, 0 no move; castling is the king's move).
- :mod:`search.core.movegen`: ``gen_moves(bb, mb, st, out) -> n`` (legal; ``out`` ``int32`` of ``MAX_MOVES``),
  ``gen_captures(bb, mb, st, out) -> n`` (legal captures, all capturing promotions, quiet queen promotions),
  ``in_check(bb, st)``, ``attackers_to(sq, occ, bb)`` (both colours), ``attacked_by(bb, colour, sq, occ)``,
  ``is_checkmate(bb, mb, st)``, ``is_draw(bb, mb, st, keys)`` (mimic's engine's rule: repetition, fifty moves
  unless mate, insufficient material with at most four men); ``move_to_chess(m)``, ``move_from_chess(board, move)``.
- :mod:`search.core.see`: ``see(bb, mb, st, m)`` equal to :func:`search.see.see` (allocates), ``see_into(bb, mb,
  st, m, gains)`` with a scratch ``int64`` buffer of ``GAINS_LEN``.
- :mod:`search.core.perft`: ``perft(board, depth) -> int``, ``divide(board, depth) -> [(chess.Move, int)]``;
  ``perft_arrays(bb, mb, st, keys, undo, moves, depth, counts)`` on the arrays (raw views inside).
- :mod:`search.core.warm`: ``python -m search.core.warm`` compiles or loads every entry point once (``make`` runs
  it after installing).
"""

"""``mimic export ORGANISM --explain FEN``: one position's inputs of the exported evaluation (mimic layout), in the
order it takes them, with their weights and what each adds, so that whoever ports the evaluation can check their
own counts term by term (docs/export.md).

Every input is White's count minus Black's of a term: the five material counts (taken from the board), the
positional terms the organism has (``terms[t]``), then a user layout's own terms (``user_terms[k]``, counted by the
term file's functions as the engine counts them). Its contribution is ``count × (MG × φ + EG × (1 − φ))``,
centipawns from White's point of view, φ = phase / 24. The score is computed as the exported ``mimic_evaluate``
computes it (the same sums in the same order, float64) and is given beside ``Organism.evaluate``'s.

May import: chess; ``evolve/export/``, ``organisms/``, ``search/runtime/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import chess

from evolve.export.organism import MATERIAL, OrganismTables, organism_tables
from evolve.export.table import ORGANISM, file_sha256, source_kind
from organisms import Organism
from organisms.features import TERM_NAMES
from organisms.terms import PHASE_MAX, board_terms
from organisms.userfeatures import term_difference
from organisms.userlayout import load_checked
from search.runtime.errors import InputError


@dataclass(frozen=True)
class Input:
    """One input of the evaluation: where the exported function takes it (``board``, ``terms[t]``,
    ``user_terms[k]``), its name, White's count minus Black's, its MG and EG weights (cp per unit, signs folded in)
    and its contribution (cp, White's view, at the position's phase)."""

    where: str
    name: str
    count: float
    mg: float
    eg: float
    contribution: float


@dataclass(frozen=True)
class Explanation:
    """A position's inputs (:class:`Input`, in the evaluation's order) and the sums: ``psq`` (the tables' part,
    already divided by 24), ``white_view`` (v, cp), ``tempo``, ``score`` (the export's arithmetic, side to move's view)
    and ``mimic`` (``Organism.evaluate``'s)."""

    fen: str
    phase: int
    inputs: tuple[Input, ...]
    psq: float
    white_view: float
    tempo: float
    white_to_move: bool
    score: int
    mimic: int

    def lines(self) -> list[str]:
        """The explanation as text: a head, one row per input, the sums."""
        width = max(12, *(len(f"{i.where} {i.name}") for i in self.inputs))
        rows = [f"{f'{i.where} {i.name}':<{width}}  {i.count + 0.0:>8g}  {i.mg + 0.0:>12.6g}  {i.eg + 0.0:>12.6g}  "
                f"{i.contribution + 0.0:>+13.4f}" for i in self.inputs]  # + 0.0: no -0
        side = "White" if self.white_to_move else "Black"
        return [f"# {self.fen}: phase {self.phase} of {PHASE_MAX} (phi = {self.phase / PHASE_MAX:.6g})",
                "# count: White's count minus Black's; MG, EG: cp per unit (a penalty's negative); contribution: "
                "count * (MG * phi + EG * (1 - phi)), cp, White's view",
                f"{'input':<{width}}  {'count':>8}  {'MG':>12}  {'EG':>12}  {'contribution':>13}", *rows,
                *(f"{label:<{width + 50}}{value:>+13.4f}" for label, value in (
                    ("piece-square tables (psq / 24)", self.psq), ("v, White's view", self.white_view),
                    ("tempo, for the side to move", self.tempo))),
                f"score: {self.score} cp from {side}'s view (mimic's Organism.evaluate: {self.mimic})"]


def explain(t: OrganismTables, organism: Organism, board: chess.Board) -> Explanation:
    """The exported evaluation of ``t`` (``organism``'s) on ``board``, input by input (module docstring)."""
    phase, diffs = board_terms(board)
    phi = phase / PHASE_MAX
    psq = 0.0
    for black in (False, True):
        for p in range(6):
            for s in board.pieces(p + 1, not black):
                if black:
                    psq += (-t.psq_mg[p][s ^ 56]) * phase + (-t.psq_eg[p][s ^ 56]) * (PHASE_MAX - phase)
                else:
                    psq += t.psq_mg[p][s] * phase + t.psq_eg[p][s] * (PHASE_MAX - phase)
    weights = [("board", name, diffs[p], t.value(w), t.value(w)) for p, (name, w)
               in enumerate(zip(MATERIAL, t.material_weights, strict=True))]
    weights += [(f"terms[{k}]", name, diffs[TERM_NAMES.index(name)], t.value(mg), t.value(eg))
                for k, (name, mg, eg) in enumerate(zip(t.terms, t.term_mg, t.term_eg, strict=True))]
    user = []
    if t.user is not None:
        layout = load_checked(t.user.source, t.user.sha256)
        for k, (group, term) in enumerate(zip(layout.groups, t.user.terms, strict=True)):
            count = term_difference(group.term, board, layout.source, layout.file)
            user.append((f"user_terms[{k}]", term.name, count, t.value(term.mg), t.value(term.eg)))
    mg = eg = 0.0
    for _, _, count, w_mg, _ in weights:
        mg += w_mg * float(count)
    for _, _, count, _, w_eg in weights:
        eg += w_eg * float(count)
    v = psq / PHASE_MAX + (mg * phi + eg * (1.0 - phi))
    u = 0.0
    for _, _, count, w_mg, w_eg in user:
        u += count * (w_mg * phi + w_eg * (1.0 - phi))
    if user:
        v += u
    inputs = tuple(Input(where, name, float(count), w_mg, w_eg, float(count) * (w_mg * phi + w_eg * (1.0 - phi)))
                   for where, name, count, w_mg, w_eg in weights + user)
    score = math.floor((v if board.turn else -v) + t.tempo + 0.5)
    return Explanation(board.fen(), phase, inputs, psq / PHASE_MAX, v, t.tempo, board.turn, score,
                       organism.evaluate(board))


STATUS_WORDS = {chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
                chess.STATUS_PAWNS_ON_BACKRANK: "a pawn on the first or last rank",
                chess.STATUS_INVALID_EP_SQUARE: "an en-passant square no pawn can take on"}
"""The flags of ``chess.Board.status()`` whose words say more than their names; the others are their names in
words (``TOO_MANY_KINGS``: too many kings)."""


def status_words(status: chess.Status) -> str:
    """Every flag of a board's ``status()`` in words, comma separated (``too many kings, bad castling rights``)."""
    return ", ".join(STATUS_WORDS.get(flag, str(flag.name).lower().replace("_", " "))
                     for flag in chess.Status if flag & status)


def explain_file(path: str, fen: str) -> Explanation:
    """:func:`explain` of the organism file ``path`` on the position ``fen``; an ``InputError`` for a net file, a FEN
    python-chess cannot read or a position it finds invalid (``board.status()``: three kings, a pawn on a back rank,
    the side not to move in check, a castling right or en-passant square the board does not allow, ...)."""
    if source_kind(path) != ORGANISM:
        raise InputError(f"{path}: a net file; --explain explains an organism's evaluation")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise InputError(f"--explain {fen!r}: not a FEN: {exc}") from exc
    status = board.status()
    if status != chess.STATUS_VALID:
        raise InputError(f"--explain {fen!r}: not a legal position: {status_words(status)}")
    organism = Organism.load(path)
    return explain(organism_tables(organism, path, file_sha256(path)), organism, board)

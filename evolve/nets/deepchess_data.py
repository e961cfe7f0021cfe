"""DeepChess (David, Netanyahu & Wolf, 2016): its training data, drawn from game sets (``mimic deepchess-data``).

From every game with a decisive result, up to ``per_game`` (10) random positions, none from the first
``skip_moves`` (5) moves (10 plies) and none where the move played next is a capture; each labelled with the game's
result (+1: White won, -1: Black won); draws are not used. Games are assigned to training / validation / test by a
seeded draw per game (a game's positions are all in one part), and each part is balanced by dropping random
positions of its larger class. Stored as ``positions.npz`` (``bits``: (N, 97) uint8, the 773 bits of
:mod:`organisms.comparator` packed by ``np.packbits``; ``result`` (N,) int8; ``part`` (N,) uint8, 0 training,
1 validation, 2 test; ``game`` (N,) int32) and ``positions.json`` (sources, settings, counts, time, provenance).
The networks that learn from them are in :mod:`evolve.nets.deepchess`.

A source is a PGN file, or a label file (a name ending ``.epd`` or ``.epd.gz``, read by :mod:`mentor.labels`) whose
lines are the searched positions of self-play games (``mimic datagen``): the same rules, as far as a label can tell
them (:func:`draw_label_file`). A line belongs to the game its ``id`` names (the id without its last ``:`` field:
``selfplay:RUN:GAME:PLY`` is game ``selfplay:RUN:GAME``), whose result is its ``c9``; its move number is ``fmvn`` (a
line without one counts as move 1: EPD has no move counters); its next move, which a label does not know, is the
mentor's best move, the first of its ``pv`` (a line without a pv is kept). A line that does not parse, has no id
naming a game, no ``c9`` of ``1-0``, ``0-1`` or ``1/2-1/2``, or another ``c9`` than its game's earlier lines, is
skipped and counted (the first ones named by file and line). A label file is read twice, streamed: once for each
game's result and the line numbers of its candidate positions, once for the chosen lines' positions.

May import chess, numpy, :mod:`evolve.nets.common` (its errors), :mod:`mentor.labels`, :mod:`organisms.comparator` and
:mod:`search` (no torch: drawing data needs none).
"""

from __future__ import annotations

import time
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import chess
import chess.pgn
import numpy as np

from evolve.nets.common import NoTrainingData
from mentor.labels import EpdError, label_lines, parse_label
from organisms.comparator import N_BITS, board_bits
from search.formats.pgn import read_games
from search.runtime.atomic import atomic_path, write_json_atomic
from search.runtime.errors import InputError
from search.runtime.provenance import provenance
from search.runtime.readback import NpzFile, ReadbackError
from search.runtime.workers import parallel_map

PARTS = ("training", "validation", "test")
"""The parts of the data, by their number in ``part``."""


@dataclass(frozen=True, kw_only=True)
class DataSettings:
    """How positions are drawn: ``per_game`` positions at most, none in the first ``skip_moves`` moves; the
    shares of games for validation and test; the seed of every draw."""

    per_game: int = 10
    skip_moves: int = 5
    validation: float = 0.1
    test: float = 0.1
    seed: int = 0


@dataclass
class FileDraw:
    """What one source gave: bits (N, 773) uint8, results (N,) int8, parts (N,) uint8, game numbers in the
    file (N,) int32, and counts of games; for a label file (``kind`` ``labels``) also its lines, the malformed
    ones and those skipped (by reason); ``errors`` the messages kept, ``unreported`` those left out."""

    bits: np.ndarray
    result: np.ndarray
    part: np.ndarray
    game: np.ndarray
    games: int = 0
    decisive: int = 0
    errors: list[str] = field(default_factory=list)
    kind: str = "pgn"
    lines: int = 0
    malformed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unreported: int = 0

    def source(self, path: str) -> dict[str, object]:
        """The source's entry in ``positions.json``."""
        entry: dict[str, object] = {"path": path, "kind": self.kind, "games": self.games, "decisive": self.decisive,
                                    "positions_drawn": len(self.result), "errors": len(self.errors) + self.unreported}
        if self.kind == "labels":
            entry.update(lines=self.lines, malformed=self.malformed, skipped=dict(self.skipped))
        return entry


def game_positions(game: chess.pgn.Game, rng: np.random.Generator, per_game: int = 10,
                   skip_moves: int = 5) -> list[chess.Board]:
    """Up to ``per_game`` positions of ``game``'s main line, drawn at random without replacement among those
    at ply ``2 * skip_moves`` or later whose next move is not a capture (copies, in game order)."""
    board = game.board()
    eligible: list[chess.Board] = []
    for ply, move in enumerate(game.mainline_moves()):
        if ply >= 2 * skip_moves and not board.is_capture(move):
            eligible.append(board.copy(stack=False))
        board.push(move)
    return [eligible[i] for i in _pick(len(eligible), per_game, rng)]


def _pick(n: int, per_game: int, rng: np.random.Generator) -> list[int]:
    """Indices (sorted) of up to ``per_game`` of ``n`` candidates: all of them, or a draw without replacement."""
    if n <= per_game:
        return list(range(n))
    return [int(i) for i in np.sort(rng.choice(n, size=per_game, replace=False))]


def _part(rng: np.random.Generator, s: DataSettings) -> int:
    u = rng.random()
    return 1 if u < s.validation else (2 if u < s.validation + s.test else 0)


def draw_file(path: str, file_index: int, settings: DataSettings) -> FileDraw:
    """The positions of one PGN file (module docstring); each game's draws are seeded by ``(seed, file_index,
    game number)``, so the result does not depend on how files are shared among workers."""
    rows: list[np.ndarray] = []
    results: list[int] = []
    parts: list[int] = []
    games_of: list[int] = []
    errors: list[str] = []
    games = decisive = 0
    for number, (_, game) in enumerate(read_games(path, errors.append)):
        games += 1
        outcome = game.headers.get("Result", "*")
        if outcome not in ("1-0", "0-1"):
            continue
        decisive += 1
        rng = np.random.default_rng([settings.seed, file_index, number])
        part = _part(rng, settings)
        for board in game_positions(game, rng, settings.per_game, settings.skip_moves):
            rows.append(board_bits(board))
            results.append(1 if outcome == "1-0" else -1)
            parts.append(part)
            games_of.append(number)
    bits = np.array(rows, dtype=np.uint8).reshape(-1, N_BITS)
    return FileDraw(bits, np.array(results, dtype=np.int8), np.array(parts, dtype=np.uint8),
                    np.array(games_of, dtype=np.int32), games, decisive, errors)


LABEL_SUFFIXES = (".epd", ".epd.gz")
"""A source whose name ends so (any case) is a label file; any other a PGN file."""
DECISIVE = {"1-0": 1, "0-1": -1}
RESULTS = ("1-0", "0-1", "1/2-1/2")
"""The ``c9`` a label line needs to be used (its game's result, White's view)."""
MAX_MESSAGES = 100
"""A label file's problems named by file and line at most; the rest only counted."""
MAX_GAMES = 1 << 20
"""Games a source may hold (the ``game`` column numbers sources apart by this)."""


def is_label_file(path: str | Path) -> bool:
    """Whether ``path`` is read as a label file (its name ends with ``.epd`` or ``.epd.gz``) rather than PGN."""
    return str(path).lower().endswith(LABEL_SUFFIXES)


def game_key(label_id: str | None) -> str | None:
    """The game a label's id names: the id without its last ``:`` field (``selfplay:1:0:8`` -> ``selfplay:1:0``);
    ``None`` when the id has no ``:`` or nothing before it."""
    head, colon, _ = (label_id or "").rpartition(":")
    return head if colon and head else None


@dataclass
class _LabelGame:
    """A label file's game while its lines are read: its number (first line's order), ``c9`` and candidate lines."""

    number: int
    result: str
    lines: array = field(default_factory=lambda: array("q"))


def draw_label_file(path: str, file_index: int, settings: DataSettings) -> FileDraw:
    """The positions of one label file (module docstring): the PGN rules with a label's move number (``fmvn``) and
    its mentor's best move (``pv``'s first) for the move played next; each game's draws seeded by ``(seed,
    file_index, game number)``, games numbered in the order of their first line."""
    draw = FileDraw(np.zeros((0, N_BITS), np.uint8), np.zeros(0, np.int8), np.zeros(0, np.uint8),
                    np.zeros(0, np.int32), kind="labels")
    skipped: Counter[str] = Counter()

    def note(message: str) -> None:
        if len(draw.errors) < MAX_MESSAGES:
            draw.errors.append(message)
        else:
            draw.unreported += 1

    def malformed(err: EpdError) -> None:
        draw.malformed += 1
        note(str(err))

    def skip(line_no: int, reason: str, why: str) -> None:
        skipped[reason] += 1
        note(f"{path}:{line_no}: {why}; line skipped")

    games: dict[str, _LabelGame] = {}
    for line_no, text in label_lines(path, malformed):
        draw.lines += 1
        try:
            label = parse_label(text, path, line_no)
        except EpdError as err:
            malformed(err)
            continue
        key = game_key(label.id)
        if key is None:
            skip(line_no, "no game id", f"no id naming its game (id \"RUN:GAME:PLY\"), got {label.id!r}")
            continue
        if label.result not in RESULTS:
            skip(line_no, "no result", f"no c9 game result (1-0, 0-1 or 1/2-1/2), got {label.result!r}")
            continue
        game = games.get(key)
        if game is None:
            game = games[key] = _LabelGame(len(games), label.result)
        elif game.result != label.result:
            skip(line_no, "other result", f"c9 {label.result!r} but game {key}'s earlier lines say {game.result!r}")
            continue
        first = label.pv[0] if label.pv else None  # legal: parse_label reads the pv as SAN from the position
        if label.result in DECISIVE and label.board.fullmove_number > settings.skip_moves \
                and (first is None or not label.board.is_capture(first)):
            game.lines.append(line_no)
    draw.skipped = dict(skipped)
    draw.games = len(games)
    if draw.games > MAX_GAMES:
        raise InputError(f"{path}: {draw.games} games, more than the {MAX_GAMES} a source may hold; split it")
    chosen: dict[int, tuple[int, int, int]] = {}  # line number -> (game number, result, part)
    for game in games.values():
        if game.result not in DECISIVE:
            continue
        draw.decisive += 1
        rng = np.random.default_rng([settings.seed, file_index, game.number])
        part = _part(rng, settings)
        for i in _pick(len(game.lines), settings.per_game, rng):
            chosen[game.lines[i]] = (game.number, DECISIVE[game.result], part)
    del games
    bits = np.zeros((len(chosen), N_BITS), np.uint8)  # filled in file order by the second pass: the chosen lines
    table = np.zeros((len(chosen), 3), np.int64)
    found = 0
    for line_no, text in label_lines(path, lambda err: None):
        if found == len(chosen):
            break
        if line_no in chosen:
            bits[found] = board_bits(parse_label(text, path, line_no).board)
            table[found] = chosen[line_no]
            found += 1
    if found < len(chosen):
        raise InputError(f"{path}: changed while it was read ({len(chosen) - found} chosen lines gone)")
    draw.bits = bits
    draw.game, draw.result, draw.part = table[:, 0].astype(np.int32), table[:, 1].astype(np.int8), \
        table[:, 2].astype(np.uint8)
    return draw


def _draw(item: tuple[int, str], settings: DataSettings) -> FileDraw:
    """:func:`draw_label_file` or :func:`draw_file` of one (file index, path) (the work of one task)."""
    index, path = item
    return draw_label_file(path, index, settings) if is_label_file(path) else draw_file(path, index, settings)


def balance(result: np.ndarray, part: np.ndarray, seed: int) -> np.ndarray:
    """Row indices (sorted) that keep, in every part, as many White-win as Black-win rows: the larger class of
    each part loses random rows (seeded)."""
    rng = np.random.default_rng([seed, 0xBA1])
    keep: list[np.ndarray] = []
    for p in range(len(PARTS)):
        w = np.flatnonzero((part == p) & (result > 0))
        b = np.flatnonzero((part == p) & (result < 0))
        n = min(len(w), len(b))
        keep += [np.sort(rng.choice(w, n, replace=False)), np.sort(rng.choice(b, n, replace=False))]
    return np.sort(np.concatenate(keep)) if keep else np.zeros(0, dtype=np.int64)


@dataclass
class DataSummary:
    positions: int
    per_part: dict[str, int]
    games: int
    decisive: int
    seconds: float
    errors: list[str]
    skipped_lines: int = 0
    """Label lines skipped or malformed, over all label files."""

    @property
    def rate(self) -> float:
        """Stored positions per wall second."""
        return self.positions / self.seconds if self.seconds > 0 else 0.0


def extract_positions(paths: Sequence[str], out: str | Path, settings: DataSettings, *, jobs: int = 1,
                      command: str = "") -> DataSummary:
    """Draw, balance and write the positions of the sources ``paths`` (PGN or label files) into ``out`` (module
    docstring)."""
    start = time.perf_counter()
    draws = list(parallel_map(_draw, list(enumerate(paths)), jobs, args=(settings,)))
    bits = np.concatenate([d.bits for d in draws]) if draws else np.zeros((0, N_BITS), np.uint8)
    result = np.concatenate([d.result for d in draws]) if draws else np.zeros(0, np.int8)
    part = np.concatenate([d.part for d in draws]) if draws else np.zeros(0, np.uint8)
    file_of = np.concatenate([np.full(len(d.result), i, np.int32) for i, d in enumerate(draws)]) if draws \
        else np.zeros(0, np.int32)
    game_in_file = np.concatenate([d.game for d in draws]) if draws else np.zeros(0, np.int32)
    keep = balance(result, part, settings.seed)
    if not len(keep):
        raise NoTrainingData(f"no White-win and Black-win positions to pair in {', '.join(paths)}")
    # One game number over all files: files are numbered apart by 2^20 games.
    game = (file_of[keep].astype(np.int64) << 20 | game_in_file[keep]).astype(np.int64)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / "positions.npz") as tmp:
        np.savez_compressed(tmp, bits=np.packbits(bits[keep], axis=1), result=result[keep], part=part[keep], game=game)
    seconds = time.perf_counter() - start
    errors = [e for d in draws for e in d.errors]
    per_part = {name: int((part[keep] == i).sum()) for i, name in enumerate(PARTS)}
    summary = DataSummary(len(keep), per_part, sum(d.games for d in draws), sum(d.decisive for d in draws),
                          seconds, errors, sum(d.malformed + sum(d.skipped.values()) for d in draws))
    sidecar = {"sources": [d.source(p) for p, d in zip(paths, draws, strict=True)],
               "settings": asdict(settings), "positions": len(keep), "per_part": per_part,
               "white_wins": int((result[keep] > 0).sum()), "black_wins": int((result[keep] < 0).sum()),
               "bits": "organisms.comparator (773 bits, np.packbits along each row)", "seconds": round(seconds, 2),
               "positions_per_second": round(summary.rate, 1), "errors": errors[:100],
               "error_count": len(errors) + sum(d.unreported for d in draws),
               "command": command, "provenance": provenance()}
    write_json_atomic(out / "positions.json", sidecar)
    return summary


@dataclass
class CmpData:
    """Positions read back: bits (N, 773) uint8, results (N,) int8, parts (N,) uint8, games (N,) int64."""

    bits: np.ndarray
    result: np.ndarray
    part: np.ndarray
    game: np.ndarray
    source: str

    def rows(self, part: int, sign: int) -> np.ndarray:
        """Row indices of one part (0, 1, 2) and one class (+1 White won, -1 Black won)."""
        return np.flatnonzero((self.part == part) & (self.result == sign))


MAX_POSITIONS = 1 << 25
"""A positions file holds at most this many positions (33 M; 3.3 GB of packed bits), checked before reading."""


def load_positions(folder: str | Path) -> CmpData:
    """Read ``folder/positions.npz`` (or the file itself), checked through :class:`search.runtime.readback.NpzFile`
    before anything is allocated: ``bits`` (N, 97) uint8 and ``result``, ``part``, ``game`` (N,) integers, results
    +1 or -1 and parts 0, 1, 2; a :class:`~search.runtime.readback.ReadbackError` (a ``ValueError``) naming the
    file and what is wrong otherwise."""
    path = Path(folder)
    if path.is_dir():
        path = path / "positions.npz"
    with NpzFile(path, "positions file of mimic deepchess-data") as data:
        data.require(["bits", "result", "part", "game"])
        result = data.array("result", kinds="i", max_elements=MAX_POSITIONS)
        n = len(result) if result.ndim == 1 else -1
        if n < 0:
            raise ReadbackError(f"{path}: result has shape {result.shape}, expected one number a position")
        packed = data.array("bits", (n, (N_BITS + 7) // 8), kinds="u", max_elements=MAX_POSITIONS * 97)
        part, game = (data.array(k, (n,), kinds="iu", max_elements=MAX_POSITIONS) for k in ("part", "game"))
    if not np.isin(result, (-1, 1)).all() or not np.isin(part, (0, 1, 2)).all():
        raise ReadbackError(f"{path}: results must be +1 or -1 and parts 0, 1 or 2")
    bits = np.unpackbits(packed, axis=1, count=N_BITS)
    return CmpData(bits, result, part, game, str(path))


__all__ = ["PARTS", "CmpData", "DataSettings", "DataSummary", "FileDraw", "balance", "draw_file", "draw_label_file",
           "extract_positions", "game_key", "game_positions", "is_label_file", "load_positions"]

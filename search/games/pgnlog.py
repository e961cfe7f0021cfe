"""The PGN log of a match or a round robin: whole games appended, torn games found and dropped, resuming.

A game is appended whole or not at all (:func:`append_whole`); a kill or a full disk can still leave a torn
game at the end, which :func:`repair_pgn` drops (rewriting the file through :mod:`search.runtime.atomic`)
before :func:`games_to_resume` counts the games the file holds. Imports chess and :mod:`search` only.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import chess
import chess.pgn

from search.conventions import RESULTS
from search.games.game import GameResult, Scheduled
from search.runtime.atomic import atomic_open
from search.runtime.errors import RunError, RunExists
from search.runtime.files import read_regular


def _game_chunks(data: bytes) -> list[bytes]:
    """Split a PGN file's bytes at the game boundaries our writer leaves: a game starts with ``[`` at
    the start of the file or after a blank line."""
    starts = [0] + [m.start() + 2 for m in re.finditer(rb"\n\n(?=\[)", data)]
    return [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)], strict=True) if data[a:b]]


def _complete_game(chunk: bytes) -> chess.pgn.Headers | None:
    """The headers of ``chunk`` when it is one whole game as :func:`run_match` writes it: it ends with
    a blank line, parses without error, and its movetext ends with the final result of its ``Result``
    header. ``None`` for a torn or foreign chunk."""
    if not chunk.endswith(b"\n\n"):
        return None
    text = chunk.decode("utf-8", errors="replace")
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None or game.errors:
        return None
    result = game.headers.get("Result", "*")
    if result not in RESULTS or not text.rstrip().endswith(result):
        return None
    return game.headers


def read_pgn_games(path: str | Path) -> tuple[list[tuple[bytes, chess.pgn.Headers]], int]:
    """The whole games of a match PGN (each with its bytes and headers, in file order) and the number
    of torn chunks left out (a game cut by a kill or a full disk, or text after it)."""
    data = read_regular(path, "PGN file")
    whole: list[tuple[bytes, chess.pgn.Headers]] = []
    torn = 0
    for chunk in _game_chunks(data):
        headers = _complete_game(chunk)
        if headers is None:
            torn += 1
        else:
            whole.append((chunk, headers))
    return whole, torn


def rounds_in_pgn(path: Path) -> list[GameResult]:
    """Finished games already in a PGN (for resuming); a torn game is not counted."""
    out: list[GameResult] = []
    if not Path(path).exists():
        return out
    for _, headers in read_pgn_games(path)[0]:
        out.append(GameResult(headers.get("Round", "?"), headers.get("White", "?"), headers.get("Black", "?"),
                              headers["Result"], headers.get("Termination", "normal"), "from earlier run", 0, "",
                              0.0))
    return out


def repair_pgn(path: str | Path) -> int:
    """Drop the torn chunks of a match PGN (see :func:`read_pgn_games`), rewriting it whole through
    :func:`search.runtime.atomic.atomic_open` (the file and its folder fsynced, no temporary file left on a
    failure). Returns how many chunks were dropped."""
    path = Path(path)
    whole, torn = read_pgn_games(path)
    if torn == 0:
        return 0
    with atomic_open(path, "wb") as fh:
        fh.write(b"".join(chunk for chunk, _ in whole))
    return torn


class PgnWriteError(RunError, OSError):
    """A game could not be appended to the match PGN; the file was cut back to its whole games."""


def append_whole(fd: int, data: bytes, path: Path) -> None:
    """Append ``data`` to the file open at ``fd`` (``O_APPEND``) whole or not at all: write every byte,
    flush it to disk with ``fsync``, and on any failure (a full disk, ``EFBIG``) truncate the file back
    to its previous size and raise :class:`PgnWriteError`."""
    size = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise PgnWriteError(f"{path}: cannot append a game ({exc.strerror or exc}); the file keeps its "
                            f"whole games, --resume continues the match") from exc


def games_to_resume(pgn: Path | None, todo: Sequence[Scheduled], resume: bool,
                    names: Mapping[str, str] | None = None,
                    on_repair: Callable[[str], None] | None = None) -> list[GameResult]:
    """The games of ``todo`` that the PGN at ``pgn`` already holds whole (same round, same White and
    Black names, ``names`` mapping a spec to its header name), in schedule order; a torn game at the
    end is dropped first (``on_repair`` is told). Raises ``FileExistsError`` for a non-empty PGN
    without ``resume`` and ``OSError`` for a path that is not a regular file."""
    if pgn is None or not pgn.exists():
        return []
    if not pgn.is_file():
        raise OSError(f"{pgn}: not a regular file")
    if pgn.stat().st_size == 0:
        return []
    if not resume:
        raise RunExists(f"{pgn} exists; pass --resume to continue it, or choose another file")
    dropped = repair_pgn(pgn)
    if dropped and on_repair is not None:
        on_repair(f"{pgn}: dropped {dropped} torn game(s) at the end; they are played again")
    names = names or {}
    done = {(g.round, g.white, g.black): g for g in rounds_in_pgn(pgn)}
    found = (done.get((rnd, names.get(w, w), names.get(b, b))) for rnd, w, b, _ in todo)
    return [g for g in found if g is not None]


def read_pgn_text(text: str) -> list[chess.pgn.Game]:
    """Every game of a PGN text (used by tests and reports)."""
    games = []
    fh = io.StringIO(text)
    while (g := chess.pgn.read_game(fh)) is not None:
        games.append(g)
    return games


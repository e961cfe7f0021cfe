"""DeepChess data from self-play label files (``mimic datagen``'s EPD, plain or gzip): evolve/nets/deepchess_data.py's
label sources and ``mimic deepchess-data`` on them. The games are written by hand as moves; each position becomes one
label line (python-chess's ``Board.epd``), with a ``pv`` whose first move is chosen by hand. Every expected count below
is derived by hand in the comments."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import chess
import numpy as np
import pytest

from evolve.nets.deepchess_data import (
    DataSettings,
    draw_label_file,
    extract_positions,
    game_key,
    is_label_file,
    load_positions,
)
from mentor.labels import parse_label
from organisms.comparator import board_bits

# Game A, "selfplay:7:0", 1-0: the Fried Liver. Plies 0..11 are the positions before each move, the pv's first move the
# move played; ply 12 (after 6...Kxf7) has no pv. Captures next at plies 8 (exd5), 9 (Nxd5), 10 (Nxf7), 11 (Kxf7).
A_MOVES = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "Ng5", "d5", "exd5", "Nxd5", "Nxf7", "Kxf7"]
# Game B, "selfplay:7:1", 0-1: a Queen's Gambit Declined without a capture played; the pv's first move is the move
# played but at ply 7 (before 4...Be7: 4...dxc4) and ply 8 (before 5.e3: 5.Bxf6), both captures. Ply 11 has no fmvn.
B_MOVES = ["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7", "e3", "O-O", "Nf3", "h6"]
B_PV = {7: "dxc4", 8: "Bxf6"}
# Game C, "selfplay:1:0": the brief's own line, a drawn game.
C_LINE = ('r1bqkb1r/1pp1npp1/p6p/4p3/1p2P3/5N2/P1PP1PPP/RNBQ1RK1 w kq - ce -144; acd 8; pv Bb2 Bg4 Bxe5 Nc6 Bb2 Qd7 '
          'h3 Bxf3 Qxf3 O-O-O; c9 "1/2-1/2"; id "selfplay:1:0:8"; c0 "selfplay"; c2 "141"; fmvn 5;')


def _boards(moves: list[str]) -> list[chess.Board]:
    """The positions before each move and after the last (ply 0 .. len(moves))."""
    board, out = chess.Board(), [chess.Board()]
    for san in moves:
        board.push_san(san)
        out.append(board.copy(stack=False))
    return out


def _line(board: chess.Board, pv: str | None, result: str | None, label_id: str | None, fmvn: bool = True) -> str:
    ops: dict[str, object] = {"ce": 10, "acd": 8}
    if pv is not None:
        ops["pv"] = [board.parse_san(pv)]
    if result is not None:
        ops["c9"] = result
    if label_id is not None:
        ops["id"] = label_id
    ops["c0"] = "selfplay"
    if fmvn:
        ops["fmvn"] = board.fullmove_number
    return board.epd(**ops)  # type: ignore[arg-type]


def _game_lines(key: str, moves: list[str], result: str, pvs: dict[int, str] | None = None,
                no_fmvn: tuple[int, ...] = ()) -> list[str]:
    """One line a position: plies 0..len(moves), the last without a pv."""
    boards = _boards(moves)
    return [_line(b, (pvs or {}).get(ply, moves[ply]) if ply < len(moves) else None, result, f"{key}:{ply}",
                  ply not in no_fmvn) for ply, b in enumerate(boards)]


A_LINES = _game_lines("selfplay:7:0", A_MOVES, "1-0")[:13]
B_LINES = _game_lines("selfplay:7:1", B_MOVES, "0-1", B_PV, no_fmvn=(11,))[:12]  # plies 0..11
OTHER_RESULT = _line(_boards(A_MOVES)[3], "Nc6", "0-1", "selfplay:7:0:13")  # game A's, but another c9
NO_ID = _line(_boards(A_MOVES)[6], "Ng5", "1-0", None)
NO_RESULT = _line(_boards(B_MOVES)[6], "Bg5", None, "selfplay:7:5:6")
MALFORMED = "this is not a position; ce 3;"

# File order (games interleaved, so a game is its id's, not a run of lines): A 0-5, B 0-5, C, A 6-12, the malformed
# line (line 21), B 6-11, then the other-result, no-id and no-c9 lines. Games numbered by first line: A 0, B 1, C 2.
LINES = (A_LINES[:6] + B_LINES[:6] + [C_LINE] + A_LINES[6:] + [MALFORMED] + B_LINES[6:]
         + [OTHER_RESULT, NO_ID, NO_RESULT])
MALFORMED_LINE = 6 + 6 + 1 + 7 + 1  # 21

# --skip-moves 2 keeps moves 3 on (ply 4 on). A: plies 4..7 and 12 (8..11 are captures; 12 has no pv, kept) = 5.
# B: plies 4..11 less 7, 8 (pv a capture) and 11 (no fmvn: move 1) = 5.
A_SKIP2, B_SKIP2 = (4, 5, 6, 7, 12), (4, 5, 6, 9, 10)
# --skip-moves 0: A plies 0..7 and 12 = 9; B plies 0..11 less 7, 8 = 10 (ply 11 back: move 1 is not skipped).
A_SKIP0, B_SKIP0 = (0, 1, 2, 3, 4, 5, 6, 7, 12), (0, 1, 2, 3, 4, 5, 6, 9, 10, 11)


def _write(tmp_path: Path, lines: list[str], name: str = "labels.epd") -> Path:
    path = tmp_path / name
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def _bits_of(boards: list[chess.Board]) -> set[bytes]:
    return {board_bits(b).tobytes() for b in boards}


def _rows_of(bits: np.ndarray, game: np.ndarray, number: int) -> set[bytes]:
    return {row.tobytes() for row in bits[game == number]}


def test_a_game_is_its_id_without_the_last_field() -> None:
    assert game_key("selfplay:1:0:8") == "selfplay:1:0" and game_key("a:b") == "a"
    assert game_key("x") is None and game_key(":8") is None and game_key(None) is None
    assert is_label_file("a/b.EPD") and is_label_file("b.epd.gz") and not is_label_file("g.pgn")


@pytest.mark.parametrize("skip, a_plies, b_plies", [(2, A_SKIP2, B_SKIP2), (0, A_SKIP0, B_SKIP0)])
def test_which_games_and_positions_by_hand(tmp_path: Path, skip: int, a_plies: tuple[int, ...],
                                           b_plies: tuple[int, ...]) -> None:
    path = _write(tmp_path, LINES)
    draw = draw_label_file(str(path), 0, DataSettings(per_game=100, skip_moves=skip))
    assert draw.kind == "labels" and draw.lines == len(LINES) == 30
    assert (draw.games, draw.decisive) == (3, 2)  # A, B, C; C drawn
    assert draw.malformed == 1 and draw.skipped == {"other result": 1, "no game id": 1, "no result": 1}
    assert draw.errors[0].startswith(f"{path}:{MALFORMED_LINE}:") and len(draw.errors) == 4
    assert sorted(np.unique(draw.game)) == [0, 1]  # no position of C (game 2)
    assert _rows_of(draw.bits, draw.game, 0) == _bits_of([_boards(A_MOVES)[p] for p in a_plies])
    assert _rows_of(draw.bits, draw.game, 1) == _bits_of([_boards(B_MOVES)[p] for p in b_plies])
    assert (draw.game == 0).sum() == len(a_plies) and (draw.game == 1).sum() == len(b_plies)
    assert set(draw.result[draw.game == 0]) == {1} and set(draw.result[draw.game == 1]) == {-1}
    assert all(len(set(draw.part[draw.game == g])) == 1 for g in (0, 1))
    # No chosen position's pv starts with a capture, and none is from the first `skip` moves (its line's fmvn).
    by_bits = {board_bits(label.board).tobytes(): label for label in map(parse_label, A_LINES + B_LINES)}
    for row in draw.bits:
        label = by_bits[row.tobytes()]
        assert not label.pv or not label.board.is_capture(label.pv[0])
        assert (label.fullmove or 1) > skip  # no fmvn: move 1


def test_per_game_is_a_seeded_choice_among_the_candidates(tmp_path: Path) -> None:
    path = _write(tmp_path, LINES)
    s = DataSettings(per_game=3, skip_moves=2, seed=5)
    draw = draw_label_file(str(path), 0, s)
    for number, moves, plies in ((0, A_MOVES, A_SKIP2), (1, B_MOVES, B_SKIP2)):  # 3 of 5 candidates each
        rows = _rows_of(draw.bits, draw.game, number)
        assert len(rows) == 3 and rows <= _bits_of([_boards(moves)[p] for p in plies])
    again = draw_label_file(str(path), 0, s)
    np.testing.assert_array_equal(draw.bits, again.bits)
    other = [draw_label_file(str(path), 0, DataSettings(per_game=3, skip_moves=2, seed=k)).bits for k in range(6)]
    assert len({o.tobytes() for o in other}) > 1  # the choice depends on the seed (C(5,3)^2 = 100 outcomes)


def test_gzip_reads_as_plain(tmp_path: Path) -> None:
    plain = draw_label_file(str(_write(tmp_path, LINES)), 0, DataSettings(per_game=3, skip_moves=2))
    packed = draw_label_file(str(_write(tmp_path, LINES, "labels.epd.gz")), 0, DataSettings(per_game=3, skip_moves=2))
    for key in ("bits", "result", "part", "game"):
        np.testing.assert_array_equal(getattr(plain, key), getattr(packed, key))
    assert (plain.games, plain.decisive, plain.lines, plain.malformed, plain.skipped) == \
        (packed.games, packed.decisive, packed.lines, packed.malformed, packed.skipped)


def test_split_by_game_and_balanced_with_a_pgn_source(tmp_path: Path) -> None:
    # Eight decisive games, their lines interleaved round-robin: four of A's moves (1-0: 5 candidates each at
    # --skip-moves 2), four of B's (0-1: 5 each), plus a drawn one; and a PGN file of one 1-0 game.
    games = [_game_lines(f"selfplay:9:{k}", A_MOVES, "1-0") for k in range(4)]
    games += [_game_lines(f"selfplay:9:{k}", B_MOVES, "0-1", B_PV, no_fmvn=(11,))[:12] for k in range(4, 8)]
    games += [_game_lines("selfplay:9:8", B_MOVES, "1/2-1/2")]
    lines = [g[i] for i in range(13) for g in games if i < len(g)] + [MALFORMED]
    labels = _write(tmp_path, lines, "sp.epd.gz")
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 1-0\n\n')
    s = DataSettings(per_game=10, skip_moves=2, validation=0.3, test=0.3, seed=3)
    draw = draw_label_file(str(labels), 1, s)
    assert [int((draw.game == g).sum()) for g in range(9)] == [5] * 8 + [0]
    out = tmp_path / "d"
    summary = extract_positions([str(pgn), str(labels)], out, s)
    data = load_positions(out)
    for g in np.unique(data.game):  # a game's positions in one part only
        assert len(np.unique(data.part[data.game == g])) == 1
    for part in range(3):
        assert len(data.rows(part, 1)) == len(data.rows(part, -1))
    assert set(np.unique(data.game >> 20)) <= {0, 1}  # file 0 the PGN, file 1 the labels
    side = json.loads((out / "positions.json").read_text())
    pgn_source, label_source = side["sources"]
    assert pgn_source["kind"] == "pgn" and (pgn_source["games"], pgn_source["decisive"]) == (1, 1)
    # The PGN game: plies 4..11 (3. Bb5 to 6... b5), none a capture: 8 positions.
    assert pgn_source["positions_drawn"] == 8
    assert label_source == {"path": str(labels), "kind": "labels", "games": 9, "decisive": 8, "positions_drawn": 40,
                            "errors": 1, "lines": 9 * 13 - 4 + 1, "malformed": 1, "skipped": {}}
    assert summary.skipped_lines == 1 and side["error_count"] == 1


def test_the_command_on_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evolve.cli import main

    path = _write(tmp_path, LINES, "labels.epd.gz")
    assert main(["deepchess-data", str(path), "--out", str(tmp_path / "d"), "--skip-moves", "2",
                 "--validation", "0", "--test", "0"]) == 0
    out, err = capsys.readouterr()
    # All in training: A's 5 White-win and B's 5 Black-win positions, balanced: 10.
    assert "10 balanced positions (10 training, 0 validation, 0 test) from 2 decisive of 3 games" in out
    assert "4 label lines skipped" in out and f"{path}:{MALFORMED_LINE}:" in err
    drawn = tmp_path / "drawn.epd"
    drawn.write_text(C_LINE + "\n")
    assert main(["deepchess-data", str(drawn), "--out", str(tmp_path / "e")]) == 2
    assert "no White-win and Black-win positions" in capsys.readouterr().err

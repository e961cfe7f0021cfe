"""tools/validation_summary.py recounts matches and suites through the library's own readers."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import chess

from search.games.suite import SuiteRow, write_csv

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validation_summary", ROOT / "tools" / "validation_summary.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("validation_summary", module)
    spec.loader.exec_module(module)
    return module


def _game(rnd: str, white: str, black: str, result: str, termination: str) -> str:
    return (f'[Event "t"]\n[Round "{rnd}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Termination "{termination}"]\n\n1. e4 e5 {result}\n\n')


def test_match_row_recounts_a_pgn(tmp_path: Path) -> None:
    # A = "a". Round 1.1: A White wins (A +1); 1.2: B White wins (A -1); 2.1: draw (A =1);
    # 2.2: "*" is unfinished and not counted. So 3 games, +1 =1 -1, score 50%, Elo +0;
    # terminations: adjudication 1 (the draw), normal 2.
    (tmp_path / "m.pgn").write_text(_game("1.1", "a", "b", "1-0", "normal") + _game("1.2", "b", "a", "1-0", "normal")
                                    + _game("2.1", "a", "b", "1/2-1/2", "adjudication")
                                    + _game("2.2", "b", "a", "*", "unterminated"))
    tool = _tool()
    row = tool.match_row("a vs b", "m", tmp_path)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:4] == ["a vs b", "3", "+1 =1 -1", "50.0%"]
    assert re.fullmatch(r"[+-]0 ± \d+", cells[4])  # Elo 0 at a 50% score (printed -0 or +0)
    assert cells[5] == "50.0%"  # likelihood of superiority with as many wins as losses: Phi(0) = 50%
    assert cells[6] == "adjudication 1, normal 2"
    assert tool.match_row("x", "missing", tmp_path) == "| x | (not run) | | | |"


def test_suite_counts_a_csv(tmp_path: Path) -> None:
    fen = chess.STARTING_FEN
    rows = [SuiteRow("s.1", fen, "e4", "", "e4", True, 10, 10, 5, 100, 1.0, 20, None),
            SuiteRow("s.2", fen, "d4", "", "e4", False, 3, 10, 5, 100, 1.0, 20, None)]
    write_csv(rows, tmp_path / "sts-x.csv")
    s = _tool().suite("sts-x", tmp_path)
    # solved 1 of 2; points 10 + 3 = 13 of 10 + 10 = 20
    assert (s.solved, s.total, s.points, s.max_points) == (1, 2, 13, 20)

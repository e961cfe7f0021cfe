"""The summary of ``results/deepred/`` (issue 15's experiments), recounted from its PGN files and its books.

    python tools/deepred_summary.py results/deepred > results/deepred/summary.md

Three parts, every number counted here from the files the run wrote (nothing copied by hand):

- **Learning by playing**: for each curve (a ``learning/NAME-block-NN.pgn`` series: one match of the pure
  DeepRed player against a fixed opponent per block, learning with ``--learn``), DeepRed's score per block, the
  mover's view, with a 95% Wilson interval (the upper bound is one minus the lower bound of the opponent's score,
  :func:`search.book.tree.wilson_lower`), drawn in ``learning.png``. The goal: the last block's interval lies above the
  first block's.
- **The champions' book**: the import's log line, the file's size, and how deep the book reaches: from the start
  position, the positions reachable through moves seen in at least ``--min`` games (the book player's
  threshold), per ply, by a breadth-first walk over the stored child keys.
- **With and without the book**: the match log's score and Elo lines, and from its PGN how many plies of each game
  the book player played from its book (moves reported with no score and depth 0, ``?/0`` in the comment) and at
  which ply (from the start position, the opening's moves included) it left the book.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import chess
import chess.pgn
from match_table import section  # tools/, beside this script

from search.book.tree import Book, wilson_lower
from search.runtime.provenance import describe

BLOCK_RE = re.compile(r"(?P<curve>.+)-block-(?P<k>\d+)\.pgn$")


def deepred_score(path: Path) -> tuple[int, int, int]:
    """DeepRed's (wins, draws, losses) in a block's PGN: the player whose name starts with ``deepred:``."""
    w = d = losses = 0
    with open(path, encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            result = game.headers.get("Result", "*")
            if result == "1/2-1/2":
                d += 1
                continue
            if result not in ("1-0", "0-1"):
                continue
            white_won = result == "1-0"
            deepred_white = game.headers.get("White", "").startswith("deepred:")
            if white_won == deepred_white:
                w += 1
            else:
                losses += 1
    return w, d, losses


def interval(w: int, d: int, losses: int) -> tuple[float, float, float]:
    """(score, low, high): the score (W + D/2)/n and its 95% Wilson interval."""
    n = w + d + losses
    return (w + d / 2) / n, wilson_lower(w, d, losses), 1.0 - wilson_lower(losses, d, w)


def learning(root: Path) -> tuple[list[str], dict[str, list[tuple[int, tuple[int, int, int]]]]]:
    """The learning section's lines and each curve's (block, (W, D, L)) rows."""
    curves: dict[str, list[tuple[int, tuple[int, int, int]]]] = {}
    for path in sorted((root / "learning").glob("*-block-*.pgn")):
        m = BLOCK_RE.match(path.name)
        if m:
            curves.setdefault(m["curve"], []).append((int(m["k"]), deepred_score(path)))
    lines = ["## Learning by playing", "",
             "Each block is one `mimic match ... --learn` of the pure DeepRed player against the fixed opponent "
             "(run.sh says which), from the start position, half the games with each colour; the book learns every "
             "game's moves, both sides', as the game ends.", ""]
    for name, rows in curves.items():
        rows.sort()
        lines += [f"### `{name}`", "", "| block | games | DeepRed W-D-L | score | 95% interval |",
                  "|---:|---:|---|---:|---|"]
        for k, (w, d, losses) in rows:
            s, lo, hi = interval(w, d, losses)
            lines.append(f"| {k} | {w + d + losses} | {w}-{d}-{losses} | {s:.3f} | [{lo:.3f}, {hi:.3f}] |")
        first, last = interval(*rows[0][1]), interval(*rows[-1][1])
        verdict = "above" if last[1] > first[2] else "not above"
        lines += ["", f"Last block {last[0]:.3f} [{last[1]:.3f}, {last[2]:.3f}] against the first {first[0]:.3f} "
                  f"[{first[1]:.3f}, {first[2]:.3f}]: the last block's interval is **{verdict}** the first's.", ""]
    if len(curves) > 1 and len({tuple(wdl for _, wdl in rows) for rows in curves.values()}) == 1:
        lines += [f"The curves {', '.join(f'`{n}`' for n in curves)} are identical block for block.", ""]
    return lines, curves


def plot(curves: dict[str, list[tuple[int, tuple[int, int, int]]]], out: Path) -> None:
    """``learning.png``: each curve's score per block with its 95% interval."""
    from evolve.plots import figure, save

    fig, ax = figure(size=(7, 4))
    for i, (name, rows) in enumerate(curves.items()):
        ks = [k + 0.08 * i for k, _ in rows]
        stats = [interval(*wdl) for _, wdl in rows]
        ax.errorbar(ks, [s for s, _, _ in stats], yerr=[[s - lo for s, lo, _ in stats], [hi - s for s, _, hi in stats]],
                    marker="o", capsize=3, label=name)
    ax.set_xlabel("block of games")
    ax.set_ylabel("DeepRed's score (95% Wilson interval)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    save(fig, out, dpi=100)


def book_depth(path: Path, min_games: int, max_ply: int = 400) -> list[int]:
    """New positions per ply reachable from the start through moves seen in at least ``min_games`` games.

    A breadth-first walk over the stored edges (parent key, child key), White's table at even plies and
    Black's at odd ones. A position counts once, at the first ply it is reached: games repeated in the
    collection that shuffle pieces back and forth would otherwise keep the walk going for ever."""
    from search.book.keys import book_key

    counts: list[int] = []
    start = book_key(chess.Board())
    frontier, seen = {start}, {(start, chess.WHITE)}
    with Book(path, readonly=True) as book:
        for ply in range(max_ply):
            if not frontier:
                break
            counts.append(len(frontier))
            mover = chess.WHITE if ply % 2 == 0 else chess.BLACK
            reached = {e.child for key in frontier for e in book.edges_at(key, mover) if e.n >= min_games}
            frontier = {k for k in reached if (k, not mover) not in seen}
            seen.update((k, not mover) for k in frontier)
    return counts


def book_plies(pgn: Path) -> tuple[list[int], list[int]]:
    """For each game of the match: the book player's moves from its book, and the ply, counted from the game's
    first position (the opening's), at which it left it."""
    moves, exits = [], []
    with open(pgn, encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            side = chess.WHITE if "+book:" in game.headers.get("White", "") else chess.BLACK
            n, exit_ply = 0, None
            board = game.board()  # the position before each move, followed along (not replayed per move)
            for ply, node in enumerate(game.mainline()):
                mover = board.turn
                board.push(node.move)
                if mover != side or not node.comment:
                    continue  # the opponent's move, or one of the opening's (no comment)
                if node.comment.startswith("?/0 "):
                    n += 1
                else:
                    exit_ply = ply
                    break
            moves.append(n)
            exits.append(exit_ply if exit_ply is not None else len(list(game.mainline())))
    return moves, exits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--min", type=int, default=3, help="the book player's threshold (games)")
    args = ap.parse_args()
    root: Path = args.root
    out = ["# DeepRed's experience tree: the experiments (issue 15)", "",
           f"Recounted from the files here by `tools/deepred_summary.py` ({describe()}); `run.sh` made them.", ""]
    lines, curves = learning(root)
    out += lines
    if curves:
        plot(curves, root / "learning.png")
        out += ["![learning curve](learning.png)", ""]
    book = root / "champions.sqlite"
    if book.exists():
        out += ["## The champions' book", ""]
        log = root / "import.log"
        if log.exists():
            out += ["```", *[ln for ln in log.read_text().splitlines() if ln.strip()][-4:], "```", ""]
        with Book(book, readonly=True) as b:
            games, edges = b.game_count(), b.edge_count()
        size = book.stat().st_size
        depth = book_depth(book, args.min)
        out += [f"{games:,} games, {edges:,} edges, {size / 1e6:.1f} MB ({size / edges:.1f} bytes an edge).", "",
                f"Depth reached through moves seen in at least {args.min} games (the book player's threshold): "
                f"{len(depth) - 1} plies, {sum(depth):,} positions; new positions per ply from the start: "
                + ", ".join(f"{c:,}" for c in depth) + ".", ""]
    log = root / "book-vs-nobook.log"
    pgn = root / "book-vs-nobook.pgn"
    if log.exists() and pgn.exists():
        text = [ln for ln in section(log) if " games in " not in ln]
        moves, exits = book_plies(pgn)
        out += ["## The evolved organism with and without the champions' book", "", "```", *text, "```", ""]
        if moves:
            out += [f"{len(moves)} games. Book moves a game: mean {sum(moves) / len(moves):.1f}, most {max(moves)}; "
                    f"games with at least one: {sum(m > 0 for m in moves)}. The book player's first move out of its "
                    f"book came {sum(exits) / len(exits):.1f} plies after the opening position on average (the "
                    "shipped openings are 8 plies deep, so at ply 8 + that).",
                    ""]
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

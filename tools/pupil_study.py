"""The pupil study's tables (results/pupil-study/run.sh): one table per factor, one row per exact fit played.

    python tools/pupil_study.py results/pupil-study > results/pupil-study/study.md
    python tools/pupil_study.py results/pupil-study --finished > ...   # rows still measuring shown as dashes
    python tools/pupil_study.py results/pupil-study --best-net sp200k sp1m sp2m   # the net row that scored best
    python tools/pupil_study.py --best results/sf-pupil/pick/depth-1 ...            # the folder that scored best

For each row folder it reads what run.sh wrote: the labels it was fitted on and its held-out error and loss
(``fit.log``), the match against the expert at 2,000 nodes (``vs-expert-2000n.log``), STS at 10,000 nodes
(``sts-10000n.log``), the depth-2 error on the two held-out sets (``heldout-*.md``, beside the expert's from
``results/heldout-*/errors.md``) and the organism's material genes against PeSTO's (benchmarks/wdl_study.py's
readers). A row not measured yet shows dashes; a row still measuring shows its match so far, or with
``--finished`` (for a commit while the study runs) dashes until its last step (``heldout-mixed.md``) is written.
Nothing is recomputed; passes or fails nothing.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tools"))
from drop_replays import key  # noqa: E402  (a game's opening and colours)
from wdl_study import match_line, material, sts_points  # noqa: E402  (the wdl study's readers of the same logs)

from search.games.pgnlog import read_pgn_games  # noqa: E402
from search.runtime.provenance import describe  # noqa: E402

FACTORS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("The loss", "Both exact fits on the base labels; the study's other rows use the one that plays better.", (
        ("sp200k", "wdl: L-BFGS-B on every training row"),
        ("loss-l1", "L1: IRLS on a 100,000-row subsample"))),
    ("The mentor's depth", "The same 200,000 self-play positions, relabelled by Stockfish 15.1.", (
        ("depth-eval", "static evaluation (`eval`), target: the position itself"),
        ("depth-1", "depth 1"), ("depth-2", "depth 2"), ("depth-4", "depth 4"),
        ("sp200k", "depth 8 (the base)"), ("depth-10", "depth 10"))),
    ("The mentor", "Stockfish at depth 8 against mimic's perspective net searching 2 plies, on the same 100,000 "
     "positions; the crowd (four engines at depths 6-8) against its Stockfish alone, on the same crowd positions.", (
        ("sp100k", "Stockfish, depth 8, 100,000 positions"),
        ("pnet-mentor", "results/pnet's net, 2 plies in mimic's engine, same positions"),
        ("crowd", "the crowd's median (results/data/crowd)"),
        ("crowd-sf", "Stockfish's own score in the crowd file (--score 1)"))),
    ("Where the positions come from", "200,000 positions each, labelled by Stockfish at depth 8; DAgger rounds add "
     "100,000 positions each where the last round's organism searches.", (
        ("games", "the champions' games and random playouts (results/rich-stockfish's positions)"),
        ("sp200k", "Stockfish's self-play (the base)"),
        ("tree", "search trees of the organism, the expert and the net (results/data/search-tree)"),
        ("dagger-1", "DAgger round 1: base + 100,000 of sp200k's organism's search"),
        ("dagger-2", "round 2: + 100,000 of round 1's organism's search"),
        ("dagger-3", "round 3: + 100,000 of round 2's organism's search"))),
    ("How many", "Self-play labels at depth 8, the first N of results/data/sf-selfplay-d8.", (
        ("sp100k", "100,000"), ("sp200k", "200,000"), ("sp1m", "1,000,000"), ("sp2m", "2,000,000"))),
    ("The target", "The base labels; the WDL target blended with the self-play game's result (--lambda-result).", (
        ("sp200k", "the mentor's score alone (lambda 1)"),
        ("lambda-0.9", "0.9 x mentor + 0.1 x result"),
        ("lambda-0.7", "0.7 x mentor + 0.3 x result"))),
    ("Two factors together", "The depth that played best alone (1) on the source whose organism stays nearest "
     "the expert where material is unbalanced inside a search (search trees; the next section), and on all "
     "2,000,000 self-play positions.", (
        ("depth-1", "self-play positions, depth 1"), ("tree", "search-tree positions, depth 8"),
        ("tree-d1", "search-tree positions, depth 1"), ("sp2m-d1", "all 2,000,000 self-play positions, depth 1"))),
)


NET_FACTORS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("The perspective net: how many", "One net of 64 units a perspective (results/pnet's settings, 30 epochs), on "
     "the first N self-play labels; on 200,000, two more seeds of the same training (how far the seed alone moves a "
     "net).", (("sp200k", "200,000"), ("sp200k-seed-2", "200,000, seed 2"), ("sp200k-seed-3", "200,000, seed 3"),
               ("sp1m", "1,000,000"), ("sp2m", "2,000,000"))),
    ("The perspective net: the mentor's depth", "The same 200,000 positions as the organism's depth rows; the "
     "best depth on all 2,000,000.", (
        ("depth-1", "depth 1"), ("depth-2", "depth 2"), ("depth-4", "depth 4"), ("sp200k", "depth 8"),
        ("depth-10", "depth 10"), ("sp2m-d1", "depth 1 on all 2,000,000 positions"),
        ("sp2m-d1-128", "depth 1 on all 2,000,000 positions, 128 units"))),
    ("The perspective net: where the positions come from", "DAgger rounds with the net's own search, 100,000 "
     "positions each, added to the last round's; the crowd; and the organism rows' other sources, 200,000 positions "
     "each.", (
        ("sp200k", "self-play (the base)"), ("dagger-1", "round 1"), ("dagger-2", "round 2"),
        ("dagger-3", "round 3"), ("crowd", "the crowd's median"), ("crowd-sf", "Stockfish's score of the crowd"),
        ("games", "the champions' games and random playouts (results/pnet's kind of positions)"),
        ("tree", "search-tree positions, depth 8"), ("tree-d1", "search-tree positions, depth 1"))),
    ("The perspective net: width and the mean of nets", "All 2,000,000 self-play positions: one net of 64, 128 or "
     "256 units at depth 8 (the size that taught one net best, the first table); at depth 1 (which taught one net "
     "better on them), one net of 64, 128 or 320 units (the mean's total) and the mean of five nets.", (
        ("sp2m", "depth 8, one net, 64 units"), ("width-128", "depth 8, one net, 128 units"),
        ("width-256", "depth 8, one net, 256 units"), ("sp2m-d1", "depth 1, one net, 64 units"),
        ("sp2m-d1-128", "depth 1, one net, 128 units"), ("width-320", "depth 1, one net, 320 units"),
        ("mean-5x64", "depth 1, the mean of five 64-unit nets"))),
)

SCORE = re.compile(r"^Score of .* vs expert: \d+ - \d+ - \d+\s+\[([\d.]+)\] (\d+)", re.M)


def score(folder: Path) -> float | None:
    """The last score against the expert in a row's match log (the row's view), or ``None`` before its match."""
    log = folder / "vs-expert-2000n.log"
    found = SCORE.findall(log.read_text()) if log.exists() else []
    return float(found[-1][0]) if found else None


def fit_error(folder: Path) -> str:
    """The fit's held-out error of its nearest organism (cp) and, for the wdl loss, its held-out loss."""
    log = folder / "fit.log"
    text = log.read_text() if log.exists() else ""
    rows = re.search(r"(\d+) used \((\d+) training, (\d+) held out\)", text)
    found = re.findall(r"^(WDL|L1) fit .*nearest organism \S+ / (\S+)$", text, re.M)
    if not found:
        return "–"
    kind, cp = found[-1]
    loss = re.search(r"win-probability loss .*nearest organism \S+ / (\S+)$", text, re.M) if kind == "WDL" else None
    used = f"{int(rows.group(2)):,} rows; " if rows else ""
    return f"{used}{cp} cp" + (f", loss {loss.group(1)}" if loss else "")


def net_fit(folder: Path) -> tuple[str, str]:
    """A net row's held-out error (cp, the mentor's) and loss (a mean of nets: the mean's, not its first member's),
    and its values of a piece up (cp: pawn, knight, bishop, rook, queen), from the summary.md `mimic train-pnet`
    wrote; dashes before it."""
    path = folder / "summary.md"
    text = path.read_text() if path.exists() else ""
    rows = re.search(r"\((\d+) training, (\d+) held out\)", text)
    loss = re.search(r"^\| loss \| \S+ \| (\S+) \|$", text, re.M)
    cp = re.search(r"^\| mean abs error \(cp\) \| \S+ \| (\S+) \|$", text, re.M)
    errors = (cp.group(1), loss.group(1)) if cp and loss else None
    if mean := re.search(r"Held-out error of the mean: (\S+) cp, loss (\S+);", text):  # not member 1's tables
        errors = (mean.group(1), mean.group(2))
    up = re.search(r"A piece up in quiet positions \(cp, pairs\): pawn (-?\d+) \(\d+\), knight (-?\d+) \(\d+\), "
                   r"bishop (-?\d+) \(\d+\), rook (-?\d+) \(\d+\), queen (-?\d+)", text)
    fit = f"{int(rows.group(1)):,} rows; {errors[0]} cp, loss {errors[1]}" if rows and errors else "–"
    return fit, ", ".join(up.groups()) + " (a piece up)" if up else "–"


@functools.cache
def positions(path: Path) -> frozenset[str]:
    """The positions (an EPD line's first four fields) of a label file, gzipped or not."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return frozenset(" ".join(line.split()[:4]) for line in f if line.strip())


def trained_on(folder: Path) -> Path | None:
    """The label file a row was fitted or trained on (its organism's meta, or its net's summary.md title)."""
    if (folder / "organism.json").exists():
        labels = json.loads((folder / "organism.json").read_text()).get("meta", {}).get("labels")
    else:
        summary = folder / "summary.md"
        found = re.search(r"^# Perspective net trained on (\S+)", summary.read_text(), re.M) if summary.exists() \
            else None
        labels = found.group(1) if found else None
    return REPO / labels if labels and (REPO / labels).exists() else None


def heldout_cell(folder: Path, name: str) -> str:
    """A row's mean depth-2 error on the held-out set ``name``, and how many of that set's positions its own labels
    hold when any do (the set is then not held out for that row)."""
    cell = heldout(folder / f"{name}.md")
    labels = trained_on(folder) if cell != "–" else None
    if labels is None:
        return cell
    held = positions(REPO / "results" / name / "labels.epd")
    shared = len(held & positions(labels))
    return f"{cell} ({shared:,} of its {len(held):,} positions in the row's labels)" if shared else cell


def heldout(path: Path, spec: str | None = None) -> str:
    """The mean depth-2 error (cp) of a heldout_error.py table: its first row, or the row of ``spec``."""
    if not path.exists():
        return "–"
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0].startswith("`") and (spec is None or cells[0] == f"`{spec}`"):
            return cells[1]
    return "–"


def table(root: Path, factors: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...], finished: bool) -> None:
    """The factors' tables of the rows under ``root``; ``finished``: a row still measuring shows dashes."""
    for title, what, rows in factors:
        print(f"## {title}\n\n{what}\n")
        print("| row | labels | vs expert, 2,000 nodes | STS | fit, held out | heldout-tcec | heldout-mixed | "
              "material |")
        print("|---|---|---|---|---|---|---|---|")
        for name, labels in rows:
            print(f"| {name} | {labels} | {measured(root / name, finished)} |")
        print()


@functools.cache
def measured(d: Path, finished: bool) -> str:
    """A row's measured cells (match, STS, fit, the two held-out sets, material), read once however many tables
    show the row (the base row is in five); ``finished`` (``--finished``): dashes, as for a row not begun, until its
    last step (``heldout-mixed.md``) is written."""
    if finished and not (d / "heldout-mixed.md").exists():
        return " | ".join(["–"] * 6)
    fit, values = (fit_error(d), material(d)[0]) if (d / "organism.json").exists() else net_fit(d)
    return (f"{match_line(d)}{distinct(d)} | {sts_points(d)} | {fit} | {heldout_cell(d, 'heldout-tcec')} | "
            f"{heldout_cell(d, 'heldout-mixed')} | {values}")


def distinct(folder: Path) -> str:
    """`` (N distinct)`` when the row's match PGN replays openings (tools/drop_replays.py's key), else ``""``."""
    pgn = folder / "vs-expert-2000n.pgn"
    games = read_pgn_games(pgn)[0] if pgn.exists() else []
    n = len({key(headers) for _, headers in games})
    return f" ({n} distinct)" if n < len(games) else ""


def best(folders: list[Path]) -> Path:
    """The folder whose match against the expert scored best (the first on a tie; the first if none has played)."""
    played = [(-s, i) for i, folder in enumerate(folders) if (s := score(folder)) is not None]
    return folders[min(played)[1]] if played else folders[0]


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[2] == "--best-net":  # run.sh: which of these net rows scored best
        print(best([Path(sys.argv[1]) / "pnet" / name for name in sys.argv[3:]]).name)
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--best":  # results/sf-pupil/run.sh: which of these folders scored best
        print(best([Path(name) for name in sys.argv[2:]]))
        return
    finished = "--finished" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--finished"]
    root = Path(args[0] if args else "results/pupil-study")
    expert = {s: heldout(REPO / f"results/{s}/errors.md", "expert") for s in ("heldout-tcec", "heldout-mixed")}
    print(f"# The pupil study: what teaches a shallow searcher\n\nMade by `tools/pupil_study.py {root}` from the files "
          f"beside `run.sh`; {describe()}.\n")
    print("Each row is the rich genome's exact fit on its labels, its nearest organism played as it is: the score "
          "against the expert at 2,000 nodes a move (the organism's view; 200 games, or fewer when the SPRT [0, 20] "
          "decided, never before 40; \"N distinct\" where games replay an opening already played with the same "
          "colours: at a fixed number of nodes both engines search the same way every time, so such a game (almost "
          "always) repeats an earlier one move for move and the Elo interval shown, which counts it, is too narrow), "
          "STS points of 15,000 at 10,000 nodes, the fit's held-out error (cp) and loss, "
          "the depth-2 mean error (cp) on the two held-out sets (the expert's: "
          f"{expert['heldout-tcec']} on heldout-tcec, {expert['heldout-mixed']} on heldout-mixed), and the material "
          "genes in cp (pawn, knight, bishop, rook, queen) with their mean ratio to PeSTO's.\n")
    table(root, FACTORS, finished)
    gap = root / "eval-gap.md"
    if gap.exists():
        print("## Where the organisms depart from the expert inside a search\n\n`benchmarks/eval_gap.py` (eval-gap.md)"
              ": each organism's static evaluation against the expert's on the positions sp200k's organism's search "
              "evaluates in its first 8 games against the expert, by material imbalance.\n")
        print(gap.read_text())
    print("Each perspective-net row is one net (or a mean of nets) played as it is, with the same measures; its fit "
          "column is the net's own held-out error (the mentor's cp) and loss from its summary.md, and its material "
          "column the net's values of a piece up in quiet positions (cp).\n")
    table(root / "pnet", NET_FACTORS, finished)
    spread, noise = root / "member-spread.md", root / "mean-noise" / "scores.txt"
    if spread.exists() and noise.exists():
        print("## What the mean of nets buys\n\nHow far each member of mean-5x64 strays from the mean, on the "
              "positions the mean's search evaluates (`benchmarks/eval_gap.py --reference`, member-spread.md); the "
              "members differ only in their seeds, so this is the noise a mean of five divides by about the square "
              "root of five. Then what noise of each size costs a search: the expert plus position-keyed noise "
              "against the expert at 2,000 nodes, 100 games (`benchmarks/noisy_expert.py`, a standard deviation "
              "of 1.25 x the mean absolute size; mean-noise/), at the size of one member's own noise and of what "
              "is left in the mean.\n")
        print(spread.read_text())
        print("\n".join(f"- {line}" for line in noise.read_text().splitlines() if line.strip()) + "\n")


if __name__ == "__main__":
    main()

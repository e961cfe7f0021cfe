#!/usr/bin/env bash
# The Stockfish reference run (paper settings, Gray-coded genes), exactly as recorded in summary.md and in
# labels.epd.json, plus the depth and encoding studies beside it (depth.md, encoding.md).
# From the repository root: bash results/paper-stockfish/run.sh   (needs .venv from `make test`, Stockfish)
# Re-running with today's code gives the same labels (Stockfish 15.1, Threads=1, cleared hash, fixed depth) and the
# same GA; the exact L1 fit is now solved by IRLS above 2,000 rows (evolve.ga.fit.LP_MAX_ROWS), which may move its
# figure in the second decimal.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/paper-stockfish
G=$(ls data/player-games/*.pgn | sed 's/^/--source /' | tr '\n' ' ')
[ -s $R/labels.epd ] && RESUME=--resume || RESUME=
# shellcheck disable=SC2086
$M label --mentor stockfish --depth 12 --positions 5000 --source random $G --seed 1 --jobs 2 --no-progress \
   --out $R/labels.epd $RESUME
[ -e $R/checkpoint.npz ] && EVRESUME=--resume || EVRESUME=
# shellcheck disable=SC2086
$M evolve $R/labels.epd --out $R --seed 1 --encoding gray --jobs 2 --no-progress $EVRESUME
# The tables that depth.md and encoding.md quote (with their commentary) are printed here, not written over them.
.venv/bin/python benchmarks/label_depth.py --positions 300 --depths 6,8,10,12,14 --reference 18
.venv/bin/python benchmarks/encoding.py $R/labels.epd --seeds 5 --split-seed 1

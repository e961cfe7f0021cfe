#!/usr/bin/env bash
# Issue 24's second held-out set: positions from games between engines of mixed strength, where material is
# often unbalanced (results/recognition-engines: `mimic games` round robins of Stockfish at 2,000 nodes and at
# Skill Level 3, Toga II, Glaurung, Ethereal, Phalanx, sunfish and an evolved organism; 896 games), labelled by
# Stockfish 15.1 at depth 10; then each evaluator's depth-2 error against those labels (as results/heldout-tcec).
# No reference run trains on these games (their labels come from random play and the champions' games).
# From the repository root: bash results/heldout-mixed/run.sh   (needs .venv from `make test`, Stockfish).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
D=results/heldout-mixed
G=results/recognition-engines
$M label --mentor stockfish --depth 10 --positions 3000 --source $G/games.pgn --source $G/test.pgn \
   --per-game 4 --skip-plies 16 --seed 1 --jobs 2 --no-progress --out $D/labels.epd --resume > $D/label.log 2>&1
.venv/bin/python benchmarks/heldout_error.py $D/labels.epd --depth 2 \
   --evals material,expert,organism:results/rich-stockfish/organism.json,organism:results/rich-builtin/organism.json,organism:results/wdl-study/wdl/ceiling-l1.json,organism:results/wdl-study/wdl/ceiling-wdl.json --jobs 2 \
   > $D/errors.md
cat $D/errors.md

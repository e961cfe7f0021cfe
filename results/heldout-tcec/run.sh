#!/usr/bin/env bash
# Held-out positions from engine games no reference run trains on (TCEC Superfinals S11-S13), labelled by
# Stockfish at depth 10, then each evaluator's depth-2 error against those labels.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
D=results/heldout-tcec
$M label --mentor stockfish --depth 10 --positions 3000 --source data/engine-games/tcec-superfinals-s11-s13.pgn \
   --per-game 12 --skip-plies 16 --seed 1 --jobs 2 --out $D/labels.epd --resume
.venv/bin/python benchmarks/heldout_error.py $D/labels.epd --depth 2 \
   --evals material,expert,random:1,organism:results/paper-stockfish/organism.json,organism:results/paper-builtin/organism.json,organism:results/rich-stockfish/organism.json,organism:results/rich-builtin/organism.json --jobs 2 \
   | tee $D/errors.md

#!/usr/bin/env bash
# Issue 24, "labels that teach": positions from mimic's own games. The expert and the organism taught by the expert
# (results/rich-builtin, which plays it evenly) play 400 games at 0.05 s a move; Stockfish 15.1 labels 20 positions
# of each at depth 10 (after the first 10 plies; 7,415 after duplicates and game ends), as the study's "self-play positions added" row uses them.
# From the repository root: bash results/wdl-study/selfplay.sh   (needs .venv from `make test`, Stockfish). Resumable.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/wdl-study
$M games expert organism:results/rich-builtin/organism.json --names expert,rich-builtin --movetime 0.05 \
  --games 400 --seed 1 --jobs 2 --out $R/selfplay.pgn --resume > $R/selfplay.log 2>&1
[ -s $R/selfplay-labels.epd ] && RESUME=--resume || RESUME=
$M label --mentor stockfish --depth 10 --positions 8000 --source $R/selfplay.pgn --per-game 20 --seed 1 --jobs 2 \
  --no-progress --out $R/selfplay-labels.epd $RESUME >> $R/selfplay-label.log 2>&1
tail -n 6 $R/selfplay-label.log

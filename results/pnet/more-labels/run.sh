#!/usr/bin/env bash
# More Stockfish labels for the perspective net (issue 26): results/pnet/labels-needed.md shows its play against the
# expert still rising steeply with the number of training positions (12.0 % at 25,000, 38.5 % at 158,674), so
# Debian's Stockfish 15.1 labels 200,000 further positions at depth 10, as results/rich-stockfish's were: 30 a game
# (after the first 10 plies) from the 8,000 games of Stockfish against itself at 250 to 1,000 nodes a move
# (results/deepchess/selfplay.pgn), positions none of the reference labels come from. The net trains on them with
# `mimic train-pnet --more-labels` (training rows only: its held-out rows stay results/rich-stockfish's).
# From the repository root: bash results/pnet/more-labels/run.sh   (needs .venv and Stockfish). Resumable.
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=results/pnet/more-labels
[ -s $R/labels.epd ] && RESUME=--resume || RESUME=
.venv/bin/mimic label --mentor stockfish --depth 10 --positions 200000 --source results/deepchess/selfplay.pgn \
  --per-game 30 --seed 2 --jobs 2 --no-progress --out $R/labels.epd $RESUME >> $R/label.log 2>&1
tail -n 4 $R/label.log

# A check of the decay with the further labels (the reference, ../run.sh, keeps decay 1, which explore/ picked on
# rich-stockfish's labels alone): decay 0.5, otherwise the reference's settings, 100 games against the expert at
# 2,000 nodes.
M=.venv/bin/mimic
if [ ! -f $R/wd0.5/pnet.npz ]; then
  mkdir -p $R/wd0.5
  [ -f $R/wd0.5/checkpoint.npz ] && TR=--resume || TR=
  $M train-pnet results/rich-stockfish/labels.epd --more-labels $R/labels.epd --out $R/wd0.5 --units 64 --epochs 30 \
    --seed 1 --psqt --weight-decay 0.5 $TR >> $R/wd0.5/train.log 2>&1
  mv $R/wd0.5/summary.md $R/wd0.5/train.md
fi
$M match pnet:$R/wd0.5/pnet.npz expert --games 100 --jobs "${JOBS:-2}" --nodes 2000 --pgn $R/wd0.5/vs-expert-2000n.pgn \
  --resume >> $R/wd0.5/vs-expert-2000n.log 2>&1
tail -n 4 $R/wd0.5/vs-expert-2000n.log

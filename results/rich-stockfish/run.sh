#!/usr/bin/env bash
# Issue 11, the Stockfish mentor with the rich genome: Debian's Stockfish 15.1 labels 200,000 positions (random
# playouts and the ten champions' games, 40 per game) at depth 10 (why: summary.md, from
# results/paper-stockfish/depth.md); labels-needed.md gives the exact fit's error against the number of training
# rows; the GA evolves the rich genome (417 genes), the memetic polish reported beside it; the GA's winner plays
# the expert 200 games at 0.2 s a move, then the STS suite at 1 s a position.
# From the repository root: bash results/rich-stockfish/run.sh   (needs .venv from `make test`, Stockfish)
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/rich-stockfish
G=$(ls data/player-games/*.pgn | sed 's/^/--source /' | tr '\n' ' ')
[ -s $R/labels.epd ] && RESUME=--resume || RESUME=
# shellcheck disable=SC2086
$M label --mentor stockfish --depth 10 --positions 200000 --source random $G --per-game 40 --seed 1 --jobs 2 \
  --no-progress --out $R/labels.epd $RESUME >> $R/label.log 2>&1
[ -f $R/checkpoint.npz ] && EV_RESUME=--resume || EV_RESUME=
# shellcheck disable=SC2086
$M evolve $R/labels.epd --genome rich --polish 2 --out $R --seed 1 --jobs 2 --no-progress $EV_RESUME \
  > $R/evolve.log 2>&1
$M match organism:$R/organism.json expert --games 200 --jobs 2 --movetime 0.2 --pgn $R/evolved-vs-expert.pgn \
  --resume > $R/evolved-vs-expert.log 2>&1
tail -n 12 $R/evolved-vs-expert.log
$M suite benchmarks/data/sts-v3.epd --engine organism:$R/organism.json --movetime 1 --jobs 2 \
  --csv $R/sts.csv --resume > $R/sts.log 2>&1
tail -n 5 $R/sts.log
.venv/bin/python benchmarks/label_count.py $R/labels.epd --genome rich --counts 2000,8000,32000 --seed 1 --jobs 2 \
  > $R/labels-needed.md

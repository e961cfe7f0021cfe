#!/usr/bin/env bash
# Issue 11, the paper's setting with the rich genome: the built-in mentor (our engine with the built-in expert,
# depth 2) labels 40,000 positions (random playouts and the ten champions' games, 10 per game); labels-needed.md
# shows why that many (the exact fit's held-out error against the number of training rows); the GA evolves the
# rich genome (417 genes) against them, with the memetic polish reported beside it; the GA's winner then plays
# the expert, its mentor's evaluation, 200 games at 0.2 s a move (as results/paper-builtin did).
# From the repository root: bash results/rich-builtin/run.sh   (needs .venv from `make test`)
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/rich-builtin
G=$(ls data/player-games/*.pgn | sed 's/^/--source /' | tr '\n' ' ')
[ -s $R/labels.epd ] && RESUME=--resume || RESUME=
# shellcheck disable=SC2086
$M label --mentor builtin --depth 2 --positions 40000 --source random $G --per-game 10 --seed 1 --jobs 2 --no-progress \
  --out $R/labels.epd $RESUME >> $R/label.log 2>&1
[ -f $R/checkpoint.npz ] && EV_RESUME=--resume || EV_RESUME=
# shellcheck disable=SC2086
$M evolve $R/labels.epd --genome rich --polish 2 --out $R --seed 1 --jobs 2 --no-progress $EV_RESUME \
  > $R/evolve.log 2>&1
$M match organism:$R/organism.json expert --games 200 --jobs 2 --movetime 0.2 --pgn $R/evolved-vs-expert.pgn \
  --resume > $R/evolved-vs-expert.log 2>&1
tail -n 12 $R/evolved-vs-expert.log
.venv/bin/python benchmarks/label_count.py $R/labels.epd --genome rich --counts 2000,4000,8000,16000,all --seed 1 \
  > $R/labels-needed.md

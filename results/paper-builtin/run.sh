#!/usr/bin/env bash
# The paper's own setting: the mentor's evaluation is available inside our engine. The built-in mentor (our
# engine with the built-in expert, depth 2) labels the same kind of positions as the Stockfish reference run;
# an organism evolves against them; then it plays the expert, its mentor's evaluation, at equal time.
# From the repository root: bash results/paper-builtin/run.sh   (needs .venv from `make test`)
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/paper-builtin
G=$(ls data/player-games/*.pgn | sed 's/^/--source /' | tr '\n' ' ')
[ -s $R/labels.epd ] && RESUME=--resume || RESUME=
# shellcheck disable=SC2086
$M label --mentor builtin --depth 2 --positions 5000 --source random $G --seed 1 --jobs 2 --no-progress \
  --out $R/labels.epd $RESUME | tee $R/label.log
[ -f $R/checkpoint.json ] && EV_RESUME=--resume || EV_RESUME=
$M evolve $R/labels.epd --out $R --seed 1 --encoding gray --jobs 2 --no-progress $EV_RESUME | tee $R/evolve.log
$M match organism:$R/organism.json expert --games 200 --jobs 2 --movetime 0.2 --pgn $R/evolved-vs-expert.pgn \
  --resume > $R/evolved-vs-expert.log 2>&1
tail -n 12 $R/evolved-vs-expert.log

#!/usr/bin/env bash
# The Stockfish reference labels (results/paper-stockfish/labels.epd, made by that folder's run.sh) evolved with
# plain binary genes, the paper's reading. The recorded command in summary.md has no --encoding flag because
# binary was the default then; Gray is the default now, so the flag is explicit here.
# From the repository root: bash results/paper-stockfish-binary/run.sh   (needs .venv from `make test`)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/paper-stockfish-binary
[ -s results/paper-stockfish/labels.epd ] || bash results/paper-stockfish/run.sh
[ -e $R/checkpoint.npz ] && EVRESUME=--resume || EVRESUME=
# shellcheck disable=SC2086
.venv/bin/mimic evolve results/paper-stockfish/labels.epd --out $R --seed 1 --encoding binary --jobs 2 --no-progress \
   $EVRESUME

#!/usr/bin/env bash
# Issue 38's self-play data set: 2,000,000 labels of Stockfish 15.1 playing itself at depth 8 (`mimic datagen`): the
# shipped openings plus 6 random plies, every searched position a label with its game's result (c9), move number
# (fmvn) and plies to the end (c2), leaving out the first 8 plies, checks, captures and promotions as best move and
# scores beyond 1,500 cp (and mates). One hash a game; games written whole in game order (seed 1), so the file is the
# same for any JOBS and when resumed. About 2 hours of 2 cores (291 labels/s measured at depth 8 with these filters).
# The file (gzip, ~60 MB) is not committed: the repository keeps its sidecar, SHA-256, line count and a sample
# (results/data/summarize.sh). From the repository root: bash results/data/sf-selfplay-d8/run.sh   (needs .venv and
# Debian's stockfish; rerun it to resume: a killed run loses at most the games in flight).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/sf-selfplay-d8
F=labels.epd.gz
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic datagen --mentor stockfish --depth 8 --positions 2000000 --seed 1 --jobs "${JOBS:-2}" \
    --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"

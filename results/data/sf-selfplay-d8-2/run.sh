#!/usr/bin/env bash
# Issue 39's second self-play data set: 2,000,000 further labels of Stockfish 15.1 playing itself at depth 8, made as
# results/data/sf-selfplay-d8 was (the same command and filters) but with seed 2, so every game is another one (game g
# of seed s draws its opening and random plies from a generator seeded with (s, g)). With sf-selfplay-d8 it gives the
# perspective net 4,000,000 labels (train-pnet --more-labels): one net gained 12.5 points against the expert from
# 1,000,000 to 2,000,000 labels (results/pupil-study/study.md). About 2 hours of 2 cores.
# The file (gzip, ~65 MB) is not committed: the repository keeps its sidecar, SHA-256, line count and a sample
# (results/data/summarize.sh). From the repository root: bash results/data/sf-selfplay-d8-2/run.sh   (needs .venv and
# Debian's stockfish; rerun it to resume: a killed run loses at most the games in flight).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/sf-selfplay-d8-2
F=labels.epd.gz
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic datagen --mentor stockfish --depth 8 --positions 2000000 --seed 2 --jobs "${JOBS:-2}" \
    --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"

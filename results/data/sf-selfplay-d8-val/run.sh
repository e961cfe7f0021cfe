#!/usr/bin/env bash
# Issue 42's watch set for TD-Leaf: 20,000 labels of Stockfish 15.1 playing itself at depth 8, made exactly as
# sf-selfplay-d8 (its run.sh says how) but from seed 3, so from games the bootstrap never saw. TD-Leaf reads the
# bootstrap back and learns from self-play alone; this file only gives its held-out error per iteration (and the
# final net's errors), so a TD-Leaf run needs no 2,000,000-label file remade on a new machine (~2 hours).
# The file (gzip, under 1 MB) is committed beside its sidecar, SHA-256, line count, a sample and summary.md.
# From the repository root: bash results/data/sf-selfplay-d8-val/run.sh   (needs .venv and Debian's stockfish; about
# 2 minutes of 2 cores; rerun it to resume).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/sf-selfplay-d8-val
F=labels.epd.gz
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic datagen --mentor stockfish --depth 8 --positions 20000 --seed 3 --jobs "${JOBS:-2}" \
    --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"

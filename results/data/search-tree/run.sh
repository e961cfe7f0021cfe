#!/usr/bin/env bash
# Issue 38's search-tree data set: 201,000 positions where three evaluators' own searches evaluate while each plays
# itself from the shipped openings at 2,000 nodes a move (`mimic label --source search:SPEC`, one position in 50 kept,
# chosen by a seeded hash of the position), a third each: the rich organism taught by Stockfish (results/sf-wdl), the
# built-in expert and the perspective net (results/pnet); labelled by Stockfish 15.1 at depth 8. These are the
# positions the pupil's search compares (after exchanges, material unbalanced), which games rarely show.
# The file (gzip, 10 MB) is committed beside its sidecar, SHA-256, line count, a sample and summary.md.
# From the repository root: bash results/data/search-tree/run.sh   (needs .venv and Debian's stockfish; rerun it to
# resume: the positions are sampled the same way again and those already labelled are skipped).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/search-tree
F=labels.epd.gz
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic label --mentor stockfish --depth 8 --positions 201000 --seed 1 --jobs "${JOBS:-2}" --tree-every 50 \
    --source search:organism:results/sf-wdl/organism.json@nodes=2000 --source search:expert@nodes=2000 \
    --source search:pnet:results/pnet/pnet.npz@nodes=2000 --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"

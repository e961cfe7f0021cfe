#!/usr/bin/env bash
# Issue 39's pick of labels, as a data set: every position of results/data/sf-selfplay-d8 (Stockfish 15.1's self-play
# at depth 8, 2,000,035 labels) relabelled by Stockfish at depth 1, the depth that taught the organism and one net best
# on 200,000 of them (results/pupil-study/study.md). Positions whose depth-1 score is beyond the cap of 1,500 cp (or a
# mate) are left out, as in every label file (about 2.4 %). About 40 min of 2 cores (900 labels/s at depth 1).
# The file (gzip, ~60 MB) is not committed: the repository keeps its sidecar, SHA-256, line count and a sample
# (results/data/summarize.sh). From the repository root: bash results/data/sf-selfplay-d1/run.sh   (needs .venv,
# Debian's stockfish and results/data/sf-selfplay-d8, which it makes first when missing; rerun it to resume).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/sf-selfplay-d1
F=labels.epd.gz
. results/steps.sh  # made
made sf-selfplay-d8
# mimic label reads positions from an .epd file: the depth-8 file unpacked beside this script while it runs
P=$D/positions.epd
[ -s "$D/$F" ] && grep -qs '^speed:' "$D/label.log" && { bash results/data/summarize.sh "$D" "$F"; exit 0; }
[ -s $P ] || { zcat results/data/sf-selfplay-d8/labels.epd.gz > $P.tmp && mv $P.tmp $P; }
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic label --mentor stockfish --depth 1 --source $P --positions 2000035 --seed 1 --jobs "${JOBS:-2}" \
    --no-progress --out "$D/$F" $resume > "$D/label.log" 2>&1 || [ $? -eq 1 ]  # 1: some positions failed, counted
rm -f $P
bash results/data/summarize.sh "$D" "$F"

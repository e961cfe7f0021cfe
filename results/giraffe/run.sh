#!/usr/bin/env bash
# Issue 13's reference run, part 1: the Giraffe-style net trained on the Stockfish labels of results/rich-stockfish
# (200,000 positions, Stockfish 15.1 at depth 10: depth.md there says why), with the same seeded held-out split as
# the organisms evolved on them (seed 1, 20 %), then TD-Leaf(0.7) self-play; and the 49-gene exact fits on the same
# labels and split, the comparison the issue asks for. From the repository root:
#   bash results/giraffe/run.sh
# Needs .venv from `make test` (torch from the `nets` extra). Resumable: train-net --resume continues from its
# checkpoints. STS at 1 s is the last step; the matches are not in this script yet.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/giraffe
L=results/rich-stockfish/labels.epd
resume=
[ -e $R/net.npz ] || [ -e $R/bootstrap.npz ] && resume=--resume
.venv/bin/mimic train-net $L --out $R --seed 1 --epochs 120 --batch 256 --td-iterations 20 --jobs 2 --no-progress \
  $resume 2>&1 | tee -a $R/train.log
# The 49-gene organism's ceiling (exact fits) on the same labels and split.
.venv/bin/mimic fit $L --genome paper --seed 1 --jobs 2 > $R/fit-paper.txt 2>&1
cat $R/fit-paper.txt
# STS at 1 s a position with the trained net (the organisms': rich-stockfish 7,923, paper-stockfish 7,768).
.venv/bin/mimic suite benchmarks/data/sts-v3.epd --engine net:$R/net.npz --movetime 1 --jobs 2 \
  --csv $R/sts.csv --resume > $R/sts.log 2>&1
tail -n 5 $R/sts.log

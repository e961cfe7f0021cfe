#!/bin/sh
# Re-creates results/ga-study/study.md: the GA study of issue 11 item 2 on the rich genome
# (benchmarks/ga_study.py; same labels, same held-out split, features extracted once).
# Part 1: one factor at a time around the paper's settings, seed 0 (rows 0-9).
# Part 2: uniform crossover + gaussian gene mutation at 300 generations, and the first rich defaults, seeds 0 and 1.
# Part 3: the shrinking gaussian step and 3,000 generations (rows 12-14), seed 0.
# Each run is followed by 2 passes of GreKo's coordinate descent from its winner (the memetic option),
# reported in its own columns beside the pure GA's figure.
set -e
cd "$(dirname "$0")/../.."
.venv/bin/python benchmarks/ga_study.py results/paper-builtin/labels.epd --genome rich --polish 2 \
    --only 0,1,2,3,4,5,6,7,8,9 --seeds 1 --out results/ga-study/part1.md
.venv/bin/python benchmarks/ga_study.py results/paper-builtin/labels.epd --genome rich --polish 2 \
    --only 10,11 --seeds 2 --out results/ga-study/part2.md
.venv/bin/python benchmarks/ga_study.py results/paper-builtin/labels.epd --genome rich --polish 2 \
    --only 12,13,14 --seeds 1 --out results/ga-study/part3.md

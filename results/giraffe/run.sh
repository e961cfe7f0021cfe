#!/usr/bin/env bash
# Issue 13's reference run, part 1: the Giraffe-style net trained on the Stockfish labels of results/rich-stockfish
# (200,000 positions, Stockfish 15.1 at depth 10: depth.md there says why), with the same seeded held-out split as
# the organisms evolved on them (seed 1, 20 %), then TD-Leaf(0.7) self-play; and the 49-gene exact fits on the same
# labels and split, the comparison the issue asks for. From the repository root:
#   bash results/giraffe/run.sh
# Needs .venv from `make test` (torch from the `nets` extra). Resumable: train-net --resume continues from its
# checkpoints; a finished step (its output present) is skipped, and matches and suites resume from their PGN / CSV.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/giraffe
L=results/rich-stockfish/labels.epd
resume=
[ -e $R/net.npz ] || [ -e $R/bootstrap.npz ] && resume=--resume
[ -e $R/net.npz ] || .venv/bin/mimic train-net $L --out $R --seed 1 --epochs 120 --batch 256 --td-iterations 20 --jobs 2 --no-progress \
  $resume 2>&1 | tee -a $R/train.log
# The 49-gene organism's ceiling (exact fits) on the same labels and split.
[ -s $R/fit-paper.txt ] || .venv/bin/mimic fit $L --genome paper --seed 1 --jobs 2 > $R/fit-paper.txt 2>&1
# STS at 1 s a position with the trained net (the organisms': rich-stockfish 7,923, paper-stockfish 7,768).
grep -q solved $R/sts.log 2>/dev/null || .venv/bin/mimic suite benchmarks/data/sts-v3.epd --engine net:$R/net.npz \
  --movetime 1 --jobs 2 --csv $R/sts.csv --resume > $R/sts.log 2>&1
tail -n 1 $R/sts.log

# Item 5's matches, 200 games each (100 paired openings, colours swapped), 2 at a time. Equal time: 0.1 s a move for
# both. Equal nodes: 2,000 a move for both (about 0.06 s for the organism, 0.11 s for the net, which searches at half
# the organism's nodes/s: benchmarks/net_nps.py). The best evolved organism is rich-stockfish's (STS 7,923).
M=.venv/bin/mimic
NET=net:$R/net.npz
ORG=organism:results/rich-stockfish/organism.json
. results/steps.sh
run() { step $R "$@"; }
run net-vs-organism-time  $M match "$NET" "$ORG" --games 200 --jobs 2 --movetime 0.1 --pgn $R/net-vs-organism-time.pgn --resume
run net-vs-organism-nodes $M match "$NET" "$ORG" --games 200 --jobs 2 --nodes 2000 --pgn $R/net-vs-organism-nodes.pgn --resume
run net-vs-expert-time    $M match "$NET" expert --games 200 --jobs 2 --movetime 0.1 --pgn $R/net-vs-expert-time.pgn --resume
run net-vs-expert-nodes   $M match "$NET" expert --games 200 --jobs 2 --nodes 2000 --pgn $R/net-vs-expert-nodes.pgn --resume
# Giraffe's probability-limited search against depth-limited search, the same evaluator (the net), equal time.
run prob-vs-depth         $M match "$NET@search=prob" "$NET" --games 200 --jobs 2 --movetime 0.1 --pgn $R/prob-vs-depth.pgn --resume
# STS at equal nodes, 10,000 a position, for the net and the best organism (the node limit binds, not the 30 s).
run sts-nodes-net      $M suite benchmarks/data/sts-v3.epd --engine "$NET@nodes=10000" --movetime 30 --jobs 2 \
  --csv $R/sts-nodes-net.csv --resume
run sts-nodes-organism $M suite benchmarks/data/sts-v3.epd --engine "$ORG@nodes=10000" --movetime 30 --jobs 2 \
  --csv $R/sts-nodes-organism.csv --resume
# The net before TD-Leaf (the supervised bootstrap) against the final net, equal nodes: did self-play help its play?
run bootstrap-vs-final-nodes $M match "net:$R/bootstrap.npz" "$NET" --games 200 --jobs 2 --nodes 2000 \
  --pgn $R/bootstrap-vs-final-nodes.pgn --resume

# The table of item 5, gathered from the logs above.
.venv/bin/python tools/match_table.py --title "The Giraffe-style net in play (issue 13, item 5)" \
  $R/net-vs-organism-time.log $R/net-vs-organism-nodes.log $R/net-vs-expert-time.log $R/net-vs-expert-nodes.log \
  $R/prob-vs-depth.log $R/bootstrap-vs-final-nodes.log $R/sts.log $R/sts-nodes-net.log $R/sts-nodes-organism.log > $R/matches.md

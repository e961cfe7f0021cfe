#!/usr/bin/env bash
# Issue 13's optional part: a move-probability net for Giraffe's probability-limited search, trained on the mentor's
# best moves (the first PV move) of results/rich-stockfish's 200,000 Stockfish labels (Stockfish 15.1 at depth 10),
# measured on held-out positions and on the TCEC positions of results/heldout-tcec; then the search with it against
# the search with the static heuristic, the same evaluator (the rich organism, STS 7,923), at equal nodes and equal
# time. From the repository root:
#   bash results/movenet/run.sh
# Needs .venv from `make test` (torch from the `nets` extra). A finished step (its log or net present) is skipped;
# matches resume from their PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/movenet
M=.venv/bin/mimic
[ -e $R/movenet.npz ] || $M train-moves results/rich-stockfish/labels.epd --out $R --test results/heldout-tcec/labels.epd \
  --epochs 8 --jobs 2 --seed 1 2>&1 | tee $R/train.log
ORG=organism:results/rich-stockfish/organism.json
NETSEARCH=prob-net:$R/movenet.npz
. results/steps.sh
run() { step $R "$@"; }
# WAC at 5,000 nodes a position: solved positions, iterations reached and nodes/s of each search (one core).
run wac .venv/bin/python benchmarks/prob_search.py --eval "$ORG" --nodes 5000 --searches "depth,prob,$NETSEARCH"
# 200 games each (100 paired openings, colours swapped), 2 at a time: equal nodes (2,000 a move: the quality of the
# move probabilities alone) and equal time (0.1 s a move: the net's cost in nodes/s counts too).
run net-vs-heuristic-nodes $M match "$ORG@search=$NETSEARCH" "$ORG@search=prob" --games 200 --jobs 2 --nodes 2000 \
  --pgn $R/net-vs-heuristic-nodes.pgn --resume
run net-vs-heuristic-time $M match "$ORG@search=$NETSEARCH" "$ORG@search=prob" --games 200 --jobs 2 --movetime 0.1 \
  --pgn $R/net-vs-heuristic-time.pgn --resume
# The net's distribution is much sharper than the heuristic's, so the search it drives is far more selective
# (temperature.log: mean entropy over the TCEC positions by temperature). At temperature 2 it is flatter, with the
# same ranking of moves: is selectivity what costs the Elo above?
[ -s $R/temperature.log ] || .venv/bin/python tools/movenet_temperature.py $R/movenet.npz results/heldout-tcec/labels.epd \
  > $R/temperature.log
run wac-t2 .venv/bin/python benchmarks/prob_search.py --eval "$ORG" --nodes 5000 --searches "$NETSEARCH?t=2"
run net-t2-vs-heuristic-nodes $M match "$ORG@search=$NETSEARCH?t=2" "$ORG@search=prob" --games 200 --jobs 2 \
  --nodes 2000 --pgn $R/net-t2-vs-heuristic-nodes.pgn --resume
.venv/bin/python tools/match_table.py --title "The move-probability net in the probability-limited search" \
  $R/net-vs-heuristic-nodes.log $R/net-vs-heuristic-time.log $R/net-t2-vs-heuristic-nodes.log > $R/matches.md
# And at equal time, where the net also pays for its features (0.61x the heuristic's nodes/s at t=2 on WAC: wac*.log).
run net-t2-vs-heuristic-time $M match "$ORG@search=$NETSEARCH?t=2" "$ORG@search=prob" --games 200 --jobs 2 \
  --movetime 0.1 --pgn $R/net-t2-vs-heuristic-time.pgn --resume
# Since the commit after these: ProbEngine caches the policy's weights by position key (the same tree, fewer net
# calls). WAC and the equal-time match again with the cache (the equal-nodes results do not change: same tree).
run wac-t2-cached .venv/bin/python benchmarks/prob_search.py --eval "$ORG" --nodes 5000 --searches "prob,$NETSEARCH?t=2"
run net-t2-vs-heuristic-time-cached $M match "$ORG@search=$NETSEARCH?t=2" "$ORG@search=prob" --games 200 --jobs 2 \
  --movetime 0.1 --pgn $R/net-t2-vs-heuristic-time-cached.pgn --resume
.venv/bin/python tools/match_table.py --title "The move-probability net in the probability-limited search" \
  $R/net-vs-heuristic-nodes.log $R/net-vs-heuristic-time.log $R/net-t2-vs-heuristic-nodes.log \
  $R/net-t2-vs-heuristic-time.log $R/net-t2-vs-heuristic-time-cached.log > $R/matches.md

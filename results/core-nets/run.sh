#!/usr/bin/env bash
# Issue 63, item 2: the learned evaluators in the compiled core at real time controls, both sides in the core.
#   1. the perspective net taught by Stockfish (results/sf-pnet: the mean of five members, 320 units, played natively
#      in the core: search/core/eval_pnet.py) against the expert, 0.1 s a move, 200 games from the shipped 500
#      openings (goal: at least 75 %; in today's engine it scored results/sf-pnet/vs-expert-0.1s.log);
#   2. the self-play Giraffe net (results/giraffe-selfplay/boot-all, natively in the core: search/core/eval_giraffe.py)
#      against the expert, 0.1 s a move, 200 games (goal: at least 50 %; 30.2 % in today's engine,
#      results/giraffe-selfplay/matches.md);
#   3. the nodes and the depth a move each reaches at 0.1 s (benchmarks/search_nps.py --movetime 0.1 on the 24
#      Bratko-Kopec positions), and nodes/s at depth 4 beside today's engine.
# From the repository root: bash results/core-nets/run.sh   (needs .venv from `make test`). Resumable: a finished step
# is skipped, a match resumes from its PGN. The steps at a fixed time a move need an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=${MIMIC:-.venv/bin/mimic}
PY=${PYTHON:-.venv/bin/python}
R=results/core-nets
J=${JOBS:-2}
OPENINGS=search/data/openings-500.epd
SF_PNET=pnet:results/sf-pnet/pnet.npz
GIRAFFE=net:results/giraffe-selfplay/boot-all/net.npz
mkdir -p $R
. results/steps.sh

step $R sf-pnet-vs-expert-0.1s $M match $SF_PNET expert --games 200 --jobs $J --movetime 0.1 \
  --openings $OPENINGS --pgn $R/sf-pnet-vs-expert-0.1s.pgn --resume
step $R giraffe-vs-expert-0.1s $M match $GIRAFFE expert --games 200 --jobs $J --movetime 0.1 \
  --openings $OPENINGS --pgn $R/giraffe-vs-expert-0.1s.pgn --resume
[ -s $R/nodes-0.1s.txt ] || $PY benchmarks/search_nps.py --movetime 0.1 --evals expert,$SF_PNET > $R/nodes-0.1s.txt
[ -s $R/nps.txt ] || $PY benchmarks/search_nps.py --evals expert,$SF_PNET > $R/nps.txt
$PY tools/match_table.py --title "The learned evaluators in the compiled core (issue 63)" \
  $R/sf-pnet-vs-expert-0.1s.log $R/giraffe-vs-expert-0.1s.log > $R/matches.md
cat $R/matches.md $R/nodes-0.1s.txt $R/nps.txt

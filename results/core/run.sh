#!/usr/bin/env bash
# Issue 62, items 4-6: the compiled core against today's engine, the expert on both sides.
#   1. equal nodes: the expert in the core (`expert`, the default search) against the expert in today's Python engine
#      (`expert@search=python`), 2,000 nodes a move, 200 games from the shipped 500 openings: the same algorithm, so
#      50 % within noise;
#   2. what the speed buys: the same pair at 0.1 s a move (200 games), and the nodes and depth a move each reaches at
#      0.1 s (benchmarks/search_nps.py --movetime 0.1 on the 24 Bratko-Kopec positions);
#   3. games an hour at 2,000 nodes, core against today's engine (results/sf-pupil's organism against the expert);
#   4. WAC (300 positions) and ECM (879) at 2,000 nodes a position by both: at least as many solved;
#   5. nodes/s side by side at depth 4 (benchmarks/search_nps.py).
# From the repository root: bash results/core/run.sh   (needs .venv from `make test`). Resumable: a finished step is
# skipped, a match resumes from its PGN. The steps at a fixed time a move need an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=${MIMIC:-.venv/bin/mimic}
PY=${PYTHON:-.venv/bin/python}
R=results/core
J=${JOBS:-2}
OPENINGS=search/data/openings-500.epd
mkdir -p $R
. results/steps.sh

step $R core-vs-python-2000n $M match expert expert@search=python --games 200 --jobs $J --nodes 2000 \
  --openings $OPENINGS --pgn $R/core-vs-python-2000n.pgn --resume
# the same match continued to 400 games (openings 101-200 added) for a tighter interval
step $R core-vs-python-2000n-400 $M match expert expert@search=python --games 400 --jobs $J --nodes 2000 \
  --openings $OPENINGS --pgn $R/core-vs-python-2000n.pgn --resume
step $R core-vs-python-0.1s $M match expert expert@search=python --games 200 --jobs $J --movetime 0.1 \
  --openings $OPENINGS --pgn $R/core-vs-python-0.1s.pgn --resume
# games an hour at 2,000 nodes (issue 62, item 5): the same pairing (results/sf-pupil's rich organism against the
# expert, which results/sf-pupil/vs-expert-2000n.log plays at 666 games an hour) in the core and in today's engine (60
# games: its rate is the figure)
PUPIL=organism:results/sf-pupil/organism.json
step $R games-per-hour-core $M match $PUPIL expert --games 200 --jobs $J --nodes 2000 --openings $OPENINGS \
  --pgn $R/games-per-hour-core.pgn --resume
step $R games-per-hour-python $M match $PUPIL@search=python expert@search=python --games 60 --jobs $J \
  --nodes 2000 --openings $OPENINGS --pgn $R/games-per-hour-python.pgn --resume
step $R wac-core-2000n $M suite benchmarks/data/wac.epd --engine expert@nodes=2000 --no-progress --csv $R/wac-core.csv
step $R wac-python-2000n $M suite benchmarks/data/wac.epd --engine expert@search=python@nodes=2000 --no-progress \
  --csv $R/wac-python.csv
step $R ecm-core-2000n $M suite benchmarks/data/ecm.epd --engine expert@nodes=2000 --no-progress --csv $R/ecm-core.csv
step $R ecm-python-2000n $M suite benchmarks/data/ecm.epd --engine expert@search=python@nodes=2000 --no-progress \
  --csv $R/ecm-python.csv
[ -s $R/nodes-0.1s.txt ] || $PY benchmarks/search_nps.py --movetime 0.1 --evals expert > $R/nodes-0.1s.txt
[ -s $R/nps.txt ] || $PY benchmarks/search_nps.py > $R/nps.txt
$PY tools/match_table.py --title "The compiled core against today's engine (issue 62)" $R/core-vs-python-2000n.log \
  $R/core-vs-python-2000n-400.log $R/core-vs-python-0.1s.log $R/games-per-hour-core.log $R/games-per-hour-python.log \
  $R/wac-core-2000n.log $R/wac-python-2000n.log $R/ecm-core-2000n.log $R/ecm-python-2000n.log > $R/matches.md
cat $R/matches.md $R/nodes-0.1s.txt $R/nps.txt

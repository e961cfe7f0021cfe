#!/usr/bin/env bash
# Issue 39's reference net: the perspective net (results/pnet's design: (768 -> units) x 2 -> 1, clipped ReLU, the
# linear PSQT path, AdamW with weight decay 1, 30 epochs, seed 1) that the pupil study (results/pupil-study/study.md,
# its perspective-net tables) found to play best against the expert: of the rows on all 2,000,000 self-play labels
# (one net of 64, 128 or 256 units a perspective at depth 8; on the same positions labelled at depth 1, one net of 64,
# 128 or 320 units, or the mean of five 64-unit nets), the one that
# scored best over its 200 games from openings 1-100 of search/data/openings-500.epd. Training is deterministic
# (seeded), so the study's net is taken as it is (copied with its training summary, train.md), not trained again.
# results/pnet stays as it was (issue 26's reference). Then what users care about, as results/pnet: matches against
# the expert at 2,000 nodes and at 0.1 s a move (400 games each, or fewer when the SPRT [0, 20], alpha = beta = 0.05,
# decides, never before 40 games) from openings 101-300 of openings-500.epd (none the pick played), against
# results/sf-pupil's organism at both limits (200 games), STS at 1 s a position, the depth-2 error on the two held-out
# sets, nodes/s against the rich organism's (benchmarks/pnet_speed.py), and the start position's score and a pawn,
# knight and queen up against the expert's values (benchmarks/eval_values.py).
# From the repository root: bash results/sf-pnet/run.sh   (needs the study's net rows: bash results/pupil-study/run.sh,
# and results/sf-pupil/organism.json: bash results/sf-pupil/run.sh). Resumable: every step skips what it already
# wrote or resumes it. The steps at a fixed time a move need an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/sf-pnet
S=results/pupil-study
N=$R/pnet.npz
O=results/sf-pupil/organism.json
J=${JOBS:-2}
. results/steps.sh  # heldout, finished

CANDIDATES=(sp2m width-128 width-256 width-320 mean-5x64 sp2m-d1 sp2m-d1-128)  # the study's rows on all 2,000,000
mkdir -p $R
if [ ! -f $N ]; then
  for name in "${CANDIDATES[@]}"; do
    grep -q 'games in' $S/pnet/$name/vs-expert-2000n.log 2>/dev/null || {
      echo "$S/pnet/$name has not finished its match: bash results/pupil-study/run.sh first" >&2; exit 1; }
  done
  best=$($PY tools/pupil_study.py $S --best-net "${CANDIDATES[@]}")
  cp $S/pnet/$best/pnet.npz $N.tmp && cp $S/pnet/$best/summary.md $R/train.md && mv $N.tmp $N
  echo "picked: $S/pnet/$best (the best of ${CANDIDATES[*]} against the expert at 2,000 nodes)" | tee $R/picked.txt
fi
[ -f $O ] || { echo "$O is missing: bash results/sf-pupil/run.sh first" >&2; exit 1; }
OPENINGS=search/data/openings-500.epd
[ -s $R/openings.epd ] || sed -n 101,300p $OPENINGS > $R/openings.epd  # openings 101-300

match() {  # LOG OPPONENT GAMES [limit...]: the net against OPPONENT, appended (a killed match resumes;
  # a finished one is not run again)
  local log=$1 opponent=$2 games=$3; shift 3
  finished $log || $M match pnet:$N "$opponent" --games $games "$@" --openings $R/openings.epd --pgn ${log%.log}.pgn \
    --resume >> $log 2>&1
  grep "^Score" $log | tail -n 1
}

SPRT=(--sprt 0,20,0.05,0.05 --sprt-min-games 40)
match $R/vs-expert-2000n.log expert 400 --jobs $J --nodes 2000 "${SPRT[@]}"
[ -s $R/values.md ] || $PY benchmarks/eval_values.py expert pnet:$N organism:$O > $R/values.md
heldout $R pnet:$N
match $R/vs-organism-2000n.log organism:$O 200 --jobs $J --nodes 2000
# At a fixed time a move (an otherwise idle machine: on an overloaded one the engines miss the hang limit), and the
# speed measurement, which needs one too
[ -s $R/speed.txt ] || $PY benchmarks/pnet_speed.py --pnet $N --organism $O > $R/speed.txt
match $R/vs-expert-0.1s.log expert 400 --jobs 2 --movetime 0.1 "${SPRT[@]}"
match $R/vs-organism-0.1s.log organism:$O 200 --jobs 2 --movetime 0.1
$M suite benchmarks/data/sts-v3.epd --engine pnet:$N --movetime 1 --jobs 2 --no-progress --csv $R/sts-1s.csv \
  --resume >> $R/sts-1s.log 2>&1
tail -n 1 $R/sts-1s.log

#!/usr/bin/env bash
# Issue 40's worked example (docs/terms.md, "What two terms are worth"): the rich layout plus two terms of one's own
# (docs/examples/threats.py: pawns attacking pieces, pawns on a bishop's colour) against the rich layout alone.
# Both are solved exactly on the same labels and split (results/rich-stockfish/labels.epd: 200,000 positions, Stockfish
# 15.1 at depth 10; `mimic fit --loss wdl`, the pupil study's loss, seed 1), so the difference is the two terms and
# nothing else; then the two organisms play each other at fixed nodes (the evaluations' quality: 2,000 nodes a move,
# the shipped openings, 400 games, an SPRT [0, 10] that may stop the match after 200) and at fixed time (their worth
# with the terms' cost: 0.1 s a move, the same), and each plays the expert 200 games at 2,000 nodes. (The first plan,
# up to 1,000 games a match and 400 against the expert, was about nine CPU hours: two terms worth a few Elo are
# measured to +-30 Elo in 400 games, which says whether they are worth tens of Elo, not whether they are worth 5.)
# The term file is copied beside the organisms: their files record its path and SHA-256, and find the copy when the
# path is elsewhere. From the repository root: bash results/user-terms/run.sh   (needs .venv from `make test`)
# Resumable: every step skips what it already wrote or resumes it. JOBS (default 2) sets the worker processes.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/user-terms
L=results/rich-stockfish/labels.epd
J=${JOBS:-2}
cmp -s docs/examples/threats.py $R/threats.py || cp docs/examples/threats.py $R/threats.py

fit() {  # NAME GENOME: the exact wdl fit's nearest organism, NAME.json, and its log
  [ -s $R/$1.json ] || $M fit $L --genome "$2" --loss wdl --seed 1 --jobs $J --out $R/$1.json > $R/fit-$1.log 2>&1
}

match() {  # NAME A B [match flags...]: a match written to NAME.pgn (resumed) and NAME.log (appended)
  local name=$1 a=$2 b=$3; shift 3
  $M match "$a" "$b" --jobs $J --pgn $R/$name.pgn --resume "$@" >> $R/$name.log 2>&1
}

fit rich rich
fit threats $R/threats.py
match threats-vs-rich-2000n organism:$R/threats.json organism:$R/rich.json --games 400 --nodes 2000 \
  --sprt 0,10,0.05,0.05 --sprt-min-games 200
match threats-vs-rich-0.1s organism:$R/threats.json organism:$R/rich.json --games 400 --movetime 0.1 \
  --sprt 0,10,0.05,0.05 --sprt-min-games 200
match threats-vs-expert-2000n organism:$R/threats.json expert --games 200 --nodes 2000
match rich-vs-expert-2000n organism:$R/rich.json expert --games 200 --nodes 2000
# The terms' cost in the search: nodes/s of both organisms at depth 4 on benchmarks/search_nps.py's positions.
[ -s $R/nps.txt ] || .venv/bin/python benchmarks/search_nps.py --evals organism:$R/rich.json,organism:$R/threats.json \
  > $R/nps.txt
for f in fit-rich fit-threats; do grep -h "fit (" $R/$f.log; done
.venv/bin/python tools/match_table.py --title "Two terms of one's own against the rich layout alone (docs/terms.md)" \
  $R/threats-vs-rich-2000n.log $R/threats-vs-rich-0.1s.log $R/threats-vs-expert-2000n.log $R/rich-vs-expert-2000n.log \
  > $R/matches.md
for m in threats-vs-rich-2000n threats-vs-rich-0.1s threats-vs-expert-2000n rich-vs-expert-2000n; do
  echo "== $m"; grep -E "^(Score|Elo|SPRT)" $R/$m.log | tail -n 3
done

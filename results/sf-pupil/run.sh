#!/usr/bin/env bash
# Issue 39's reference run: the GA organism whose teacher is Stockfish 15.1, on the labels the pupil study
# (results/pupil-study/study.md) found to teach the rich organism best. The GA is results/sf-wdl's (`mimic evolve
# --genome rich --loss wdl --init fit --sample 10000 --seed 1`: the win-probability loss, started from its exact
# fit, 10,000 training rows a generation); the labels are picked by play, not by fit error: the GA runs on each of
# the study's best-playing label sets (CANDIDATES, with the reason beside each) and its winner plays 200 games
# against the expert at 2,000 nodes from the study's openings (the first 100 of search/data/openings-500.epd;
# pick/NAME/, an SPRT [0, 20] may stop it, never before 40 games); the best of those is the reference organism. Then
# what users care about, as results/sf-wdl: matches against the expert at 2,000 nodes and at 0.1 s a move (400 games
# each, or fewer when the SPRT [0, 20] decides) from openings the pick never played (the file's openings 101-300:
# at fixed nodes the games are deterministic, so the pick's own openings would replay the games that picked it),
# STS at 1 s a position, the depth-2 error on the two held-out sets, the piece-square tables (pst.png) and the GA's
# curve.
# From the repository root: bash results/sf-pupil/run.sh   (needs .venv from `make test`, Stockfish, and the study's
# label files: bash results/pupil-study/run.sh). Resumable: every step skips what it already wrote or resumes it.
# The steps at a fixed time a move need an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/sf-pupil
S=results/pupil-study
J=${JOBS:-2}
. results/steps.sh  # heldout, finished

# The candidates: the study's three best organism rows against the expert (study.md), their labels and fit flags.
declare -A LABELS=(
  [tree-d1]="$S/data/tree-d1.epd"  # 54.7 %: search-tree positions, Stockfish at depth 1
  [depth-1]="$S/data/depth-1.epd"  # 51.7 %: self-play positions, Stockfish at depth 1
  [crowd]="results/data/crowd/labels.epd.gz"  # 49.2 %: the crowd's median (four engines at depths 6-8)
  # The same with a prior toward the exact fit: from tree-d1's and depth-1's fits the plain GA moved 346 and 335 of
  # the 417 genes, most the ones its samples barely see, and lost about 8 points to the fit (46.0 and 43.2 %);
  # with --prior 0.1 a probe on tree-d1's labels (not committed; these picks measure it in play) kept the held-out
  # loss at the fit's (1.000 x) and every gene within 9.5 cp of it (1.72 on average; W = 1: 0.66).
  [tree-d1-prior]="$S/data/tree-d1.epd --prior 0.1"
  [depth-1-prior]="$S/data/depth-1.epd --prior 0.1"
  [crowd-prior]="results/data/crowd/labels.epd.gz --prior 0.1"
)
CANDIDATES=(tree-d1 depth-1 crowd tree-d1-prior depth-1-prior crowd-prior)

evolve() {  # DIR LABELS [flags...]: the GA into DIR unless DIR/organism.json is there (resumed from its checkpoint)
  local d=$1; shift
  [ -f $d/organism.json ] && return 0
  mkdir -p $d
  local resume=; [ -f $d/checkpoint.npz ] && resume=--resume
  $M evolve "$@" --genome rich --loss wdl --init fit --sample 10000 --out $d --seed 1 --jobs $J --no-progress \
    $resume > $d/evolve.log 2>&1
}

vs_expert() {  # LOG ORGANISM GAMES [limit...]: a match against the expert, appended (a killed match
  # resumes; a finished one is not run again)
  local log=$1 o=$2 games=$3; shift 3
  finished $log || $M match organism:$o expert --games $games "$@" --sprt 0,20,0.05,0.05 --sprt-min-games 40 \
    --pgn ${log%.log}.pgn --resume >> $log 2>&1
  grep "^Score" $log | tail -n 1
}

OPENINGS=search/data/openings-500.epd
[ -s $R/openings.epd ] || sed -n 101,300p $OPENINGS > $R/openings.epd  # openings 101-300

picks=()
for name in "${CANDIDATES[@]}"; do
  file=${LABELS[$name]%% *}
  [ -s $file ] || [ -f $R/pick/$name/organism.json ] || {
    echo "$file is missing: make it first (bash results/pupil-study/run.sh)" >&2; exit 1; }
  # shellcheck disable=SC2086  # the flags after the file split on purpose
  evolve $R/pick/$name ${LABELS[$name]}
  vs_expert $R/pick/$name/vs-expert-2000n.log $R/pick/$name/organism.json 200 --jobs $J --nodes 2000 \
    --openings $OPENINGS
  picks+=($R/pick/$name)
done
# The best fit replayed on the final's openings: tree-d1's exact fit scored 54.7 % on the study's openings, the GA from
# it 46.0 % on the same and the GA with the prior, every gene within 9.5 cp of the fit, 43.2 %. Was the fit's lead luck?
vs_expert $R/fit-tree-d1-vs-expert-2000n.log $S/tree-d1/organism.json 200 --jobs $J --nodes 2000 \
  --openings $R/openings.epd
best=$($PY tools/pupil_study.py --best "${picks[@]}")
echo "picked: $best" | tee $R/picked.txt
for f in organism.json logbook.csv curve.png pst.png summary.md settings.json evolve.log; do
  [ -f $best/$f ] && cp $best/$f $R/$f
done
O=$R/organism.json

vs_expert $R/vs-expert-2000n.log $O 400 --jobs $J --nodes 2000 --openings $R/openings.epd
vs_expert $R/vs-expert-0.1s.log $O 400 --jobs 2 --movetime 0.1 --openings $R/openings.epd
$M suite benchmarks/data/sts-v3.epd --engine organism:$O --movetime 1 --jobs 2 --no-progress \
  --csv $R/sts-1s.csv --resume >> $R/sts-1s.log 2>&1
tail -n 3 $R/sts-1s.log
heldout $R organism:$O
cat $R/heldout-tcec.md $R/heldout-mixed.md

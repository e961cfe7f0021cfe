#!/usr/bin/env bash
# Issue 42's Giraffe: the Giraffe-style net (363 Giraffe features, mimic's default widths: results/giraffe/summary.md)
# bootstrapped on Stockfish 15.1's self-play (results/data/sf-selfplay-d8, 2,000,035 positions and their scores at
# depth 8; results/data/sf-selfplay-d1, the same positions less repeats, 1,951,487, relabelled at depth 1), then
# TD-Leaf self-play of the net itself, as Giraffe was trained.
#   1. The labels the bootstrap needs: first the depth and the loss, on the first 200,000 labels of each file
#      (boot-200000: depth 8; boot-200000-d1: depth 1, the depth the pupil study found to teach the perspective net
#      best; both with Giraffe's L1 loss on centipawns, and again with the perspective net's win-probability loss,
#      train-net --loss wdl: boot-200000-wdl, boot-200000-d1-wdl); then, of the pair that played best, the first
#      500,000 and 1,000,000 labels and all of them (boot-N plus the pair's suffix, -d1 and/or -wdl). Beside them,
#      not a candidate for the series (added once it had begun): depth 8, L1 and a linear path from the features to
#      the output (train-net --linear: boot-200000-linear), after benchmarks/eval_gap.py showed the net hundreds of
#      centipawns off the expert at large material imbalances inside a search; and the 200,971 search-tree positions
#      (results/data/search-tree, depth 8), their own score (--target root: boot-200000-tree-root) and their PV's
#      quiet leaf's (boot-200000-tree), after the linear path left that gap as it was; and the mean of five nets
#      trained alike from seeds 1-5 (train-net --members 5: boot-200000-mean5), the perspective net's best lever;
#      and the pair at 2 and 4 times the widths (boot-200000-w2, -w4), the series going on at the widths that played
#      best (the issue allows any within 0.5 x the organism's nodes/s). 40 epochs each (batch 256, Adam; seed 1, 20 %
#      of the rows held out), each net played as it is: 200 games against the expert at 2,000 nodes a move from
#      search/data/openings-500.epd (an SPRT [0, 20], alpha = beta = 0.05, may stop it, never before 40 games) and
#      its depth-2 error on results/heldout-tcec and results/heldout-mixed. labels-needed.md.
#   2. TD-Leaf(0.7) from the bootstrap that played best: 100 iterations of 64 self-play games of 12 plies (Giraffe's)
#      at 300 nodes a search, its net kept every 20 iterations (td/td-nets/), each kept net played against the expert
#      like the bootstraps: td-curve.md, the curve of play over the iterations. Its held-out error per iteration is
#      on results/data/sf-selfplay-d8-val (20,098 labels of other self-play games, committed): TD-Leaf learns from
#      self-play alone, so it needs no 2,000,000-label file (about 2 hours to remake on a new machine).
#   3. The final net (the better at 2,000 nodes of the best bootstrap and the last TD-Leaf net): 200 games against
#      the expert at 0.1 s a move, Giraffe's probability-limited search against the depth-limited one at 0.1 s, STS
#      at 1 s a position, nodes/s beside the organism's (benchmarks/net_nps.py). matches.md. The mean of five nets on
#      all the labels (boot-all-mean5) was to be a candidate too; it is not run: it needs the 2,000,000-label file
#      remade on each new machine (2 hours) and 4 more nets (about an hour), and on 200,000 labels the mean of five
#      gained 3 points, within a match's noise.
# From the repository root: bash results/giraffe-selfplay/run.sh (needs .venv from `make test`, with torch; a
# bootstrap still to train needs its data set: bash results/data/run.sh sf-selfplay-d8 sf-selfplay-d1). Resumable: a
# finished step (its output present, a match log's closing line) is skipped; training resumes from its checkpoints
# (the bootstrap's after every epoch, TD-Leaf's after every iteration), matches from their PGN. JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/giraffe-selfplay
SP8=results/data/sf-selfplay-d8/labels.epd.gz
SP1=results/data/sf-selfplay-d1/labels.epd.gz
J=${JOBS:-2}
OPENINGS=search/data/openings-500.epd  # 500 openings: 200 games at fixed nodes are 200 distinct games
mkdir -p $R
. results/steps.sh
BOOT=(--seed 1 --epochs 40 --batch 256 --jobs $J --no-progress)

play() {  # DIR NET: 200 games against the expert at 2,000 nodes and the depth-2 held-out errors of net:NET
  local d=$1 net=$2
  step $d vs-expert-2000n $M match "net:$net" expert --games 200 --jobs $J --nodes 2000 --sprt 0,20,0.05,0.05 \
    --sprt-min-games 40 --openings $OPENINGS --pgn $d/vs-expert-2000n.pgn --resume
  heldout $d "net:$net"
}

train() {  # DIR LABELS [train-net flags...]: train-net into DIR, resumed when it has begun; net.npz is the end
  local d=$1 labels=$2; shift 2
  [ -s $d/net.npz ] && return 0
  local resume=; { [ -e $d/boot-checkpoint.npz ] || [ -e $d/bootstrap.npz ] || [ -e $d/td-checkpoint.npz ] || \
    [ -e $d/member-1 ]; } && resume=--resume
  local data=${labels#results/data/}; need ${data%%/*}  # the label file, made first (results/data/NAME/run.sh)
  mkdir -p $d
  $M train-net $labels --out $d "${BOOT[@]}" "$@" $resume >> $d/train.log 2>&1
}

# 1. The bootstrap: the depth and the loss on 200,000 labels, then growing numbers of labels with the pair that played
# best. Depth 1 with the L1 loss played far worse than depth 8 (18.8 % against 33.2 %), while depth 1 taught the
# perspective net, which fits win probabilities, as well or better: the -wdl rows tell whether the loss was why.
pairs=()
for suffix in "" -d1 -wdl -d1-wdl; do
  labels=$SP8; [ "${suffix#-d1}" != "$suffix" ] && labels=$SP1
  loss=(); [ "${suffix%-wdl}" != "$suffix" ] && loss=(--loss wdl)
  train $R/boot-200000$suffix $labels --limit 200000 "${loss[@]}"
  play $R/boot-200000$suffix $R/boot-200000$suffix/net.npz
  pairs+=($R/boot-200000$suffix)
done
suffix=$($PY tools/giraffe_table.py best "${pairs[@]}"); suffix=${suffix#$R/boot-200000}
SP=$SP8; [ "${suffix#-d1}" != "$suffix" ] && SP=$SP1
LOSS=(); [ "${suffix%-wdl}" != "$suffix" ] && LOSS=(--loss wdl)
# Beside the pairs (not candidates for the series: added once it had begun), each on 200,000 labels at depth 8:
# the linear path; then the positions where a search evaluates (results/data/search-tree: the organism's, the expert's
# and the perspective net's searches at 2,000 nodes), scored as they are (--target root: the mentor's score of the
# position, hanging pieces and all) and at the PV's quiet leaf (the default, as every other row).
train $R/boot-200000-linear $SP8 --limit 200000 --linear
play $R/boot-200000-linear $R/boot-200000-linear/net.npz
need search-tree
TREE=results/data/search-tree/labels.epd.gz
train $R/boot-200000-tree-root $TREE --limit 200000 --target root
play $R/boot-200000-tree-root $R/boot-200000-tree-root/net.npz
train $R/boot-200000-tree $TREE --limit 200000
play $R/boot-200000-tree $R/boot-200000-tree/net.npz
# and the mean of five nets (train-net --members 5), as the perspective net's mean gained 11 points over one net
train $R/boot-200000-mean5 $SP8 --limit 200000 --members 5
play $R/boot-200000-mean5 $R/boot-200000-mean5/net.npz
# Why the nets play as they do, on boot-200000's games: how far each evaluation strays from the expert's where a
# search evaluates, by who could win material at once (benchmarks/eval_gap.py --by threat: eval-gap-threat.md), and how
# well each orders close positions, siblings most (benchmarks/close_pairs.py --siblings: close-pairs.md); beside them
# the perspective net on the same 200,000 labels (the pupil study's sp200k) and the reference one (results/sf-pnet).
if [ ! -s $R/eval-gap-threat.md ]; then
  $PY benchmarks/eval_gap.py net:$R/boot-200000/net.npz net:$R/boot-200000-tree-root/net.npz \
    net:$R/boot-200000-linear/net.npz pnet:results/pupil-study/pnet/sp200k/pnet.npz pnet:results/sf-pnet/pnet.npz \
    --games $R/boot-200000/vs-expert-2000n.pgn --first 8 --by threat > $R/eval-gap-threat.md.tmp
  mv $R/eval-gap-threat.md.tmp $R/eval-gap-threat.md
fi
if [ ! -s $R/close-pairs.md ]; then
  $PY benchmarks/close_pairs.py net:$R/boot-200000/net.npz expert pnet:results/pupil-study/pnet/sp200k/pnet.npz \
    pnet:results/sf-pnet/pnet.npz --siblings 150 --jobs $J > $R/close-pairs.md.tmp
  mv $R/close-pairs.md.tmp $R/close-pairs.md
fi
# The widths (the issue: Giraffe's 363 features at the widths that play best within 0.5 x the organism's nodes/s): the
# pair's net at 2 and 4 times mimic's default widths (train-net --units 19 44 26 --hidden 64) on the same 200,000
# labels, after 500,000 labels played no better than 200,000 (a net too small to use more data?). The series below
# goes on at the widths that played best (their nodes/s in widths-nps.md).
wide_flags() { echo --units $((19 * $1)) $((44 * $1)) $((26 * $1)) --hidden $((64 * $1)); }  # W times the widths
widths=($R/boot-200000$suffix)
for w in 2 4; do
  train $R/boot-200000$suffix-w$w $SP --limit 200000 "${LOSS[@]}" $(wide_flags $w)
  play $R/boot-200000$suffix-w$w $R/boot-200000$suffix-w$w/net.npz
  widths+=($R/boot-200000$suffix-w$w)
done
if [ ! -s $R/widths-nps.md ]; then
  for d in "${widths[@]}"; do echo "## ${d##*/}"; echo; $PY benchmarks/net_nps.py --net $d/net.npz; echo; done \
    > $R/widths-nps.md.tmp
  mv $R/widths-nps.md.tmp $R/widths-nps.md
fi
wide=$($PY tools/giraffe_table.py best "${widths[@]}"); wide=${wide#$R/boot-200000$suffix}
W=(); [ -n "$wide" ] && W=($(wide_flags ${wide#-w}))
other=($R/boot-200000-linear $R/boot-200000-tree-root $R/boot-200000-tree $R/boot-200000-mean5)
other+=("${pairs[@]}" "${widths[@]:1}" $R/boot-500000$suffix)  # beside the series, unless in it
suffix=$suffix$wide
boots=()
for n in 200000 500000 1000000 all; do
  limit=(); [ $n = all ] || limit=(--limit $n)
  train $R/boot-$n$suffix $SP "${limit[@]}" "${LOSS[@]}" "${W[@]}"
  play $R/boot-$n$suffix $R/boot-$n$suffix/net.npz
  boots+=($R/boot-$n$suffix)
done
best=$($PY tools/giraffe_table.py best "${boots[@]}")
rows=(); for d in "${other[@]}"; do [[ " ${boots[*]} " == *" $d "* ]] || rows+=($d); done
[ -s $R/labels-needed.md ] || $PY tools/giraffe_table.py labels "${rows[@]}" "${boots[@]}" > $R/labels-needed.md

# 2. TD-Leaf from the best bootstrap: its bootstrap.npz copied, so train-net --resume goes straight to self-play.
mkdir -p $R/td
[ -e $R/td/bootstrap.npz ] || cp $best/bootstrap.npz $R/td/bootstrap.npz
train $R/td results/data/sf-selfplay-d8-val/labels.epd.gz "${W[@]}" --td-iterations 100 --td-games 64 --td-plies 12 \
  --td-nodes 300 --td-snapshot-every 20
# the last kept net first: the final net is chosen between it and the best bootstrap
mkdir -p $R/td/iter-0100
play $R/td/iter-0100 $R/td/td-nets/iter-0100.npz

# 3. The final net in play (final.txt names it as soon as it is chosen: results/tournament-giraffe reads it).
final=$($PY tools/giraffe_table.py best $best $R/td/iter-0100)
net=$final/net.npz; [ -e $net ] || net=$R/td/td-nets/iter-0100.npz
echo "final net: $net" > $R/final.txt
step $R vs-expert-0.1s $M match "net:$net" expert --games 200 --jobs $J --movetime 0.1 --openings $OPENINGS \
  --pgn $R/vs-expert-0.1s.pgn --resume
step $R prob-vs-depth $M match "net:$net@search=prob" "net:$net" --games 200 --jobs $J --movetime 0.1 \
  --openings $OPENINGS --pgn $R/prob-vs-depth.pgn --resume
step $R sts $M suite benchmarks/data/sts-v3.epd --engine "net:$net" --movetime 1 --jobs $J --csv $R/sts.csv --resume
[ -s $R/nps.md ] || $PY benchmarks/net_nps.py --net $net > $R/nps.md
$PY tools/match_table.py --title "The self-play Giraffe net in play (issue 42; final net: $net)" \
  $final/vs-expert-2000n.log $R/vs-expert-0.1s.log $R/prob-vs-depth.log $R/sts.log > $R/matches.md

# The curve of TD-Leaf in play: the other kept nets, played like the bootstraps.
for k in 0020 0040 0060 0080; do
  mkdir -p $R/td/iter-$k
  play $R/td/iter-$k $R/td/td-nets/iter-$k.npz
done
$PY tools/giraffe_table.py td $best $R/td > $R/td-curve.md

#!/usr/bin/env bash
# Issue 39's study: what teaches a shallow searcher best. One factor at a time, each row the rich organism's exact fit
# of the win-probability loss (`mimic fit --loss wdl`: L-BFGS-B on every training row, from the L1 fit; the study's
# loss, and why, in study.md), its nearest organism played as it is: 200 games against the expert at 2,000 nodes from
# the first 100 openings of search/data/openings-500.epd (OPENINGS below; an SPRT [0, 20], alpha = beta = 0.05, may
# stop a match, never before 40 games), STS at 10,000 nodes a position, its depth-2 error on results/heldout-tcec and
# results/heldout-mixed, and its material values.
# The base row `sp200k` is the first 200,000 labels of Stockfish 15.1's self-play at depth 8
# (results/data/sf-selfplay-d8), target the mentor's score alone; each factor changes one thing:
#   loss      loss-l1: the exact L1 fit instead (bounded IRLS, on a 100,000-row subsample)
#   depth     depth-eval, depth-1, depth-2, depth-4, depth-10: the same 200,000 positions relabelled by Stockfish's
#             static evaluation (`eval`; fitted on the position itself, --target root, as it has no PV to a quiet
#             leaf) or at that depth (sp200k is depth 8)
#   mentor    sp100k, pnet-mentor: the first 100,000 positions by Stockfish at depth 8 and by mimic's perspective net
#             (results/pnet) searching 2 plies in mimic's engine (100,000: the net labels 21 positions/s on 2 cores);
#             crowd, crowd-sf: the crowd data set (results/data/crowd, four engines at depths 6-8) trained on the crowd's
#             median and on Stockfish's own score (--score 1) of the same positions
#   source    games: the 200,000 positions of results/rich-stockfish (the champions' games and random playouts)
#             relabelled at depth 8; tree: the first 200,000 search-tree positions (results/data/search-tree);
#             dagger-1..3: DAgger rounds, each adding 100,000 positions where the last round's organism's own search
#             evaluates (1 in 50, at 2,000 nodes a move, from the shipped openings) labelled at depth 8, then refitting
#   size      sp1m, sp2m: the first 1,000,000 and all 2,000,000 self-play labels
#   target    lambda-0.9, lambda-0.7: the mentor's expected score blended with the self-play game's result
#   together  tree-d1: the depth that played best alone (1) on the source whose organism stays nearest the expert
#             where material is unbalanced inside a search (search trees, eval-gap.md): tree.epd relabelled at depth 1;
#             sp2m-d1: the same depth on all 2,000,000 self-play positions (results/data/sf-selfplay-d1)
#   the net  pnet/NAME: one perspective net (results/pnet's settings, 64 units) where its rows may differ from the
#             organism's: sp200k (and seeds 2 and 3 of it), sp1m, sp2m, depth-1..10, sp2m-d1 (also with 128
#             units), its own DAgger rounds, crowd, crowd-sf, games, tree, tree-d1;
#             width-128/256 on the size that taught one net best (all 2,000,000, depth 8); the mean of five
#             64-unit nets, one net of 320 units (the mean's total) and the mean of five 128-unit nets on the depth
#             that taught best on all 2,000,000 (depth 1)
# Then tools/pupil_study.py writes study.md from the files beside this script.
# Label files are made in data/ (not committed), each only when a row still needs it (a row whose organism or net is
# written needs none: `labels` below), so a new machine with the finished rows makes only what the rest need. From the
# repository root: bash results/pupil-study/run.sh (needs .venv from `make test`, Debian's stockfish and the data sets
# the unfinished rows need: bash results/data/run.sh). Resumable: every step skips what it already wrote or resumes
# it. JOBS (default 2) sets the worker processes; no step depends on it.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
PY=.venv/bin/python
R=results/pupil-study
D=$R/data
J=${JOBS:-2}
SP=results/data/sf-selfplay-d8/labels.epd.gz
SP1=results/data/sf-selfplay-d1/labels.epd.gz  # the same positions at depth 1
mkdir -p $D

. results/steps.sh  # need, have, made, heldout

prefix() {  # N OUT [FILE]: the first N labels of FILE (the self-play set)
  [ -s "$2" ] || { zcat "${3:-$SP}" | head -n "$1" > "$2.tmp" || true; mv "$2.tmp" "$2"; }
}

label() {  # OUT MENTOR N SOURCE [label flags...]: N positions of SOURCE labelled by MENTOR (resumed; a finished file
  # has its log's closing speed line)
  local out=$1 mentor=$2 n=$3 src=$4; shift 4
  grep -qs '^speed:' "$out.log" && return 0
  local resume=; [ -s "$out" ] && resume=--resume
  $M label --mentor "$mentor" --source "$src" --positions "$n" --seed 1 --jobs $J --no-progress --out "$out" \
    $resume "$@" > "$out.log" 2>&1 || [ $? -eq 1 ]  # 1: some positions failed, counted in the log
}

labels() {  # FILE: make FILE, a label file a row is about to fit or train on, and first what it is made from
  local f=$1 name=${1#$D/} k prev pupil spec
  case $f in
    results/data/*) made "$(basename "$(dirname "$f")")"; return ;;
    $D/*) [ -s $f ] && { [ ! -e $f.log ] || grep -qs '^speed:' $f.log; } && return ;;  # made (a label run: finished)
    *) return ;;  # a committed file
  esac
  case $name in
    sp100k.epd) labels $SP; prefix 100000 $f ;;
    sp200k.epd) labels $SP; prefix 200000 $f ;;
    sp1m.epd) labels $SP; prefix 1000000 $f ;;
    tree.epd) need search-tree; prefix 200000 $f results/data/search-tree/labels.epd.gz ;;
    depth-eval.epd) labels $D/sp200k.epd; label $f stockfish@eval 200000 $D/sp200k.epd ;;
    depth-*.epd) k=${name#depth-}; labels $D/sp200k.epd; label $f "stockfish@depth=${k%.epd}" 200000 $D/sp200k.epd ;;
    games.epd) label $f stockfish@depth=8 200000 results/rich-stockfish/labels.epd ;;
    pnet-mentor.epd) labels $D/sp100k.epd; label $f builtin:pnet:results/pnet/pnet.npz@depth=2 100000 $D/sp100k.epd ;;
    tree-d1.epd) labels $D/tree.epd; label $f stockfish@depth=1 200000 $D/tree.epd ;;
    dagger-[123].epd|pnet-dagger-[123].epd)  # DAgger: label where the last pupil's search looks, add to its labels
      [ -s $f ] && return
      k=${name%.epd}; k=${k##*-}
      if [ "${name#pnet-}" = "$name" ]; then spec=organism; pupil=$R/dagger-$((k - 1))/organism.json
        [ $k = 1 ] && pupil=$R/sp200k/organism.json
      else spec=pnet; pupil=$R/pnet/dagger-$((k - 1))/pnet.npz
        [ $k = 1 ] && pupil=$R/pnet/sp200k/pnet.npz
      fi
      prev=$D/${name%-*}-$((k - 1)).epd; [ $k = 1 ] && prev=$D/sp200k.epd
      labels $prev
      label ${f%.epd}-new.epd stockfish@depth=8 100000 "search:$spec:$pupil@nodes=2000" --tree-every 50
      cat $prev ${f%.epd}-new.epd > $f.tmp && mv $f.tmp $f ;;
    *) echo "no recipe for $f" >&2; exit 1 ;;
  esac
}

# The openings: the first 100 of search/data/openings-500.epd, so the 200 games are 200 distinct ones. The rows played
# before that file came (the organism rows up to pnet-mentor) used the 50 shipped openings, which are its first 50, and
# at 2,000 nodes their games 101-200 replayed games 1-100 move for move: tools/drop_replays.py drops those replays
# (exit status 3) and the resumed match plays their rounds from openings 51-100. A row's STS and held-out errors do not
# depend on the openings and stay.
OPENINGS=search/data/openings-500.epd
play() {  # DIR SPEC: the match, STS and the held-out errors of a player (organism:FILE, pnet:FILE)
  local d=$1 o=$2 replays=0 said=
  [ -s $d/vs-expert-2000n.pgn ] && { said=$($PY tools/drop_replays.py $d/vs-expert-2000n.pgn) || replays=$?; }
  [ $replays -eq 0 ] || [ $replays -eq 3 ] || exit 1
  [ $replays -eq 3 ] && echo "$said" >> $d/vs-expert-2000n.log  # a complete row's log stays as it is
  # complete: its last step written and the match's closing line after any replays dropped (a killed match has none)
  if [ $replays -eq 0 ] && [ -s $d/heldout-mixed.md ] && grep -E 'games in [0-9]+ s|colours dropped$' \
    $d/vs-expert-2000n.log | tail -n 1 | grep -q 'games in'; then return 0; fi
  $M match "$o" expert --games 200 --jobs $J --nodes 2000 --sprt 0,20,0.05,0.05 --sprt-min-games 40 \
    --openings $OPENINGS --pgn $d/vs-expert-2000n.pgn --resume >> $d/vs-expert-2000n.log 2>&1  # appended
  [ -s $d/heldout-mixed.md ] && return 0
  $M suite benchmarks/data/sts-v3.epd --engine "$o@nodes=10000" --movetime 60 --jobs $J --no-progress \
    --csv $d/sts-10000n.csv --resume >> $d/sts-10000n.log 2>&1
  heldout $d "$o"
}

row() {  # NAME LABELS [fit flags...]: the exact fit (organism.json, fit.log), then play it
  local name=$1 labels=$2; shift 2
  local d=$R/$name loss=wdl
  mkdir -p $d
  for arg in "$@"; do [ "$arg" = l1 ] && loss=l1; done
  if [ ! -s $d/organism.json ]; then
    labels "$labels"
    $M fit "$labels" --genome rich --seed 1 --jobs $J --out $d/organism.json $([ $loss = wdl ] && echo --loss wdl) \
      "$@" > $d/fit.log 2>&1
  fi
  play $d organism:$d/organism.json
}

TRAIN=(--units 64 --epochs 30 --seed 1 --psqt --weight-decay 1)  # results/pnet's settings
net() {  # NAME LABELS [train-pnet flags...]: a perspective net (pnet/NAME/pnet.npz), then play it
  local d=$R/pnet/$1 labels=$2; shift 2
  mkdir -p $d
  if [ ! -f $d/pnet.npz ]; then
    labels "$labels"
    local resume=
    if compgen -G "$d/checkpoint.npz" > /dev/null || compgen -G "$d/member-*/checkpoint.npz" > /dev/null; then
      resume=--resume
    fi
    $M train-pnet "$labels" --out $d "${TRAIN[@]}" "$@" $resume >> $d/train.log 2>&1
  fi
  play $d pnet:$d/pnet.npz
}

row sp200k $D/sp200k.epd
row loss-l1 $D/sp200k.epd --loss l1
row sp1m $D/sp1m.epd
for depth in eval 1 2 4 10; do
  target=(); [ $depth = eval ] && target=(--target root)  # a static score (stockfish@eval): no PV
  row depth-$depth $D/depth-$depth.epd "${target[@]}"
done
row lambda-0.9 $D/sp200k.epd --lambda-result 0.9
row lambda-0.7 $D/sp200k.epd --lambda-result 0.7
row sp2m $SP  # after the depth and target rows: sp1m fitted no better than sp200k
row games $D/games.epd
row tree $D/tree.epd

for k in 1 2 3; do row dagger-$k $D/dagger-$k.epd; done  # DAgger: each round's labels add its pupil's search

row sp100k $D/sp100k.epd
row pnet-mentor $D/pnet-mentor.epd
if have crowd; then
  row crowd results/data/crowd/labels.epd.gz
  row crowd-sf results/data/crowd/labels.epd.gz --score 1
else
  echo "rows crowd and crowd-sf wait for results/data/crowd (bash results/data/crowd/run.sh)" >&2
fi
# Two factors together: the best depth alone (1) on search-tree positions
row tree-d1 $D/tree-d1.epd
# and on all 2,000,000 self-play positions: depth 1 taught the net better than depth 8 on 200,000 too (pnet/depth-1)
row sp2m-d1 $SP1
# Where the organisms depart from the expert inside a search, by material imbalance (benchmarks/eval_gap.py): the
# positions sp200k's organism's search evaluates in its first 8 games against the expert, beside results/pnet's net
# and the organism taught by the expert itself (results/rich-builtin)
if [ ! -s $R/eval-gap.md ]; then
  $PY benchmarks/eval_gap.py organism:$R/sp200k/organism.json $(for r in depth-eval depth-1 sp2m tree tree-d1 dagger-1 \
    lambda-0.9 crowd crowd-sf pnet-mentor; do echo organism:$R/$r/organism.json; done) pnet:results/pnet/pnet.npz \
    organism:results/rich-builtin/organism.json --games $R/sp200k/vs-expert-2000n.pgn --first 8 > $R/eval-gap.md.tmp
  mv $R/eval-gap.md.tmp $R/eval-gap.md
fi
# The perspective net where its rows may differ from the organism's: how many, the mentor's depth, the crowd, DAgger
# with its own search; then its width (64, 128, 256 units a perspective on the self-play labels that taught it best of
# the three sizes; the mean of five 64-unit nets against one net of 64 and one of 320, the mean's total width, at the
# depth that taught best on all of them).
net sp200k $D/sp200k.epd
net sp1m $D/sp1m.epd
net sp2m $SP
# the width and the mean of nets next: they set results/sf-pnet's design; the depth rows (200,000 labels, quick) first
best=$($PY tools/pupil_study.py $R --best-net sp200k sp1m sp2m)  # the size whose net scored best against the expert
labels=$D/$best.epd; [ $best = sp2m ] && labels=$SP
for units in 128 256; do net width-$units $labels --units $units; done
# The best depth (1) on all the self-play positions, at 64 and 128 units: these two set label's default depth for a
# UCI mentor, so they come before the quick rows below (and so need the whole data set relabelled at depth 1 first)
net sp2m-d1 $SP1
net sp2m-d1-128 $SP1 --units 128
for depth in 1 2 4 10; do net depth-$depth $D/depth-$depth.epd; done
# The same 200,000 labels and training with two more seeds: how far the seed alone moves a net's score
for seed in 2 3; do net sp200k-seed-$seed $D/sp200k.epd --seed $seed; done
# The sources the organism rows found best (search trees, depth 1, both) and the one results/pnet learned from (games)
net tree-d1 $D/tree-d1.epd
net tree $D/tree.epd
net games $D/games.epd
if have crowd; then
  net crowd results/data/crowd/labels.epd.gz
  net crowd-sf results/data/crowd/labels.epd.gz --score 1
fi
# The mean of nets and the one net of the mean's total width, on all 2,000,000 positions at depth 1 (the labels that
# taught one net best: sp2m-d1 against sp2m), so they compare with sp2m-d1 (64 units) and sp2m-d1-128; the mean of
# five 64-unit nets first: it is results/sf-pnet's likeliest pick
net mean-5x64 $SP1 --members 5
# DAgger with the net's own search: each round labels 100,000 positions first
for k in 1 2 3; do net dagger-$k $D/pnet-dagger-$k.epd; done
net width-320 $SP1 --units 320
# (No mean of five 128-unit nets: the mean against one net of its members' width and one of its total width answers
# what the mean buys; five 128-unit members would take about 2.5 hours of the two cores, which the reference runs need.)
# What the mean buys: how far each member strays from the mean on the positions the mean's search evaluates
# (benchmarks/eval_gap.py --reference), and what position-keyed noise of one member's size and of what is left in the
# mean costs the expert (benchmarks/noisy_expert.py, 100 games each at 2,000 nodes). The sizes: the members stray
# 20 cp (mean absolute) from the mean; for independent noise that is 0.89 x a member's own (the square root of 1 -
# 1/5), 22 cp, a standard deviation of 28 cp (x 1.25); the mean keeps 28 / the square root of 5 = 12.5 cp.
M5=$R/pnet/mean-5x64
if [ ! -s $R/member-spread.md ]; then
  $PY benchmarks/eval_gap.py pnet:$M5/pnet.npz $(for k in 1 2 3 4 5; do echo pnet:$M5/member-$k/pnet.npz; done) \
    --reference pnet:$M5/pnet.npz --games $M5/vs-expert-2000n.pgn --first 8 > $R/member-spread.md.tmp
  mv $R/member-spread.md.tmp $R/member-spread.md
fi
mkdir -p $R/mean-noise
if [ ! -s $R/mean-noise/scores.txt ]; then
  $PY benchmarks/noisy_expert.py 12.5 28 --games 100 --jobs $J --out $R/mean-noise > $R/mean-noise/scores.txt.tmp
  mv $R/mean-noise/scores.txt.tmp $R/mean-noise/scores.txt
fi
$PY tools/pupil_study.py $R > $R/study.md

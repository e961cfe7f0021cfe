#!/usr/bin/env bash
# Issue 24's study: on the same 200,000 Stockfish 15.1 labels (results/rich-stockfish/labels.epd, depth 10), the rich
# genome evolved with one factor changed at a time, each winner measured as users care:
#   l1          today's loss, mean |eval - mentor| in cp: the L1 GA winner of the reference run results/rich-stockfish
#               (same labels, its run.sh: --polish 2; not evolved again)
#   wdl         --loss wdl: sigmoid(eval/K) against Stockfish 15.1's win expectation of the mentor's score, squared
#   wdl-result  wdl blended with the game result where the label has one (--lambda-result 0.5)
#   wdl-quiet   wdl on quiet labels only (--quiet-labels: not in check, the mentor's best move no capture/promotion)
#   wdl-self    wdl on the labels plus 8,000 positions of mimic's own games (selfplay.sh: the expert against the
#               organism it taught, 0.05 s a move, labelled by Stockfish at depth 10)
#   fit-wdl, fit-l1  the exact fits' nearest organisms (wdl: L-BFGS-B from the L1 fit; l1: IRLS), played without a GA
#   fit-wdl-quiet, fit-wdl-result, fit-wdl-self  the same wdl fit on each label variant (no GA: the label variants
#               compared without the GA's noise)
#   wdl-init    the GA with --loss wdl started from the exact L1 fit's organism (--init): from a random start the
#               wdl GA ends in another basin (row wdl: pieces twice PeSTO's, the pawn 26 cp, 1.38 x the ceiling)
#   fit-wdl-50k the wdl fit on the first 50,000 labels (not a random quarter: all 18,182 random-playout labels come
#               first, 36 % of these against 9 % of the whole file), played as it is
# The GA rows for the label variants (wdl-quiet, wdl-result, wdl-self) are not run: from a random start the wdl GA
# lands in row wdl's basin, and the fit rows compare the label variants without the GA's noise.
# Each row: the exact fit's ceiling for its loss (fit.log), the GA (3,000 generations, seed 1), its winner against the
# expert at 2,000 nodes a move (200 games on the shipped openings, or fewer when an SPRT [0, 20] decides), and STS
# at 10,000 nodes a position.
# From the repository root: bash results/wdl-study/run.sh   (needs .venv from `make test`, Stockfish). Resumable:
# every step skips what it already wrote or resumes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/wdl-study
L=results/rich-stockfish/labels.epd
[ -s $R/selfplay-labels.epd.json ] || bash $R/selfplay.sh  # done once (its logs are the record)
if [ ! -s $R/with-selfplay.labels ]; then  # the two label files, one after the other (EPD lines; not committed)
  cat $L $R/selfplay-labels.epd > $R/with-selfplay.labels.tmp && mv $R/with-selfplay.labels.tmp $R/with-selfplay.labels
fi

play() {  # FOLDER ORGANISM: the match against the expert at 2,000 nodes (200 games, or fewer when the SPRT of
  # elo0 0, elo1 20, alpha = beta = 0.05 decides: the issue's goal is above 0), then STS at 10,000 nodes
  local d=$1 organism=$2
  $M match organism:$organism expert --games 200 --jobs 2 --nodes 2000 --sprt 0,20,0.05,0.05 \
    --pgn $d/vs-expert-2000n.pgn --resume >> $d/vs-expert-2000n.log 2>&1  # appended: a rerun keeps the record
  $M suite benchmarks/data/sts-v3.epd --engine organism:$organism@nodes=10000 --movetime 60 --jobs 2 \
    --no-progress --csv $d/sts-10000n.csv --resume >> $d/sts-10000n.log 2>&1
}

evolve_row() {  # NAME LABELS FLAGS...: the exact fits for the row's loss (their nearest organisms ceiling-*.json), the GA
  # ($GA: more flags for mimic evolve alone, e.g. --init: mimic fit takes none of them)
  local name=$1 labels=$2; shift 2
  local d=$R/$name ga=()
  [ -n "${GA:-}" ] && read -ra ga <<< "$GA"
  mkdir -p $d
  [ -s $d/ceiling-l1.json ] || $M fit $labels --genome rich --seed 1 --loss l1 "$@" --out $d/ceiling.json --jobs 2 \
    > $d/fit.log 2>&1
  if [ ! -f $d/organism.json ]; then
    local resume=; [ -f $d/checkpoint.npz ] && resume=--resume
    $M evolve $labels --genome rich --out $d --seed 1 --jobs 2 --no-progress $resume "${ga[@]}" "$@" > $d/evolve.log 2>&1
  fi
}

row() {  # NAME LABELS FLAGS...: evolve_row, then play its winner
  evolve_row "$@"
  play $R/$1 $R/$1/organism.json
}

ceiling() {  # NAME ORGANISM: an exact fit's nearest organism played as it is (no GA)
  mkdir -p $R/$1
  play $R/$1 $2
}

fitrow() {  # NAME LABELS FLAGS...: the exact wdl fit of a label variant, played as it is (no GA)
  local name=$1 labels=$2; shift 2
  local d=$R/$name
  mkdir -p $d
  [ -s $d/ceiling-wdl.json ] || $M fit $labels --genome rich --seed 1 --loss l1 --loss wdl "$@" --out $d/ceiling.json \
    --jobs 2 > $d/fit.log 2>&1
  play $d $d/ceiling-wdl.json
}

row wdl $L --loss wdl
ceiling fit-wdl $R/wdl/ceiling-wdl.json
ceiling fit-l1 $R/wdl/ceiling-l1.json
fitrow fit-wdl-quiet $L --quiet-labels
fitrow fit-wdl-result $L --lambda-result 0.5
fitrow fit-wdl-self $R/with-selfplay.labels
GA="--init $R/wdl/ceiling-l1.json" row wdl-init $L --loss wdl
# The GA from the wdl fit with 10,000-row samples: the settings of results/sf-wdl, whose run.sh evolves the same
# organism (same genes, seed and labels) and plays it there (400 games at 2,000 nodes and at 0.1 s; STS at 1 s).
GA="--init fit --sample 10000" evolve_row wdl-fit-s10k $L --loss wdl
ln -sf ../../sf-wdl/vs-expert-2000n.log $R/wdl-fit-s10k/vs-expert-2000n.log  # its match, for the table
ceiling l1 results/rich-stockfish/organism.json  # the L1 GA winner of the reference run (its run.sh: --polish 2)
if [ ! -s $R/labels-50k.labels ]; then  # a quarter of the labels (EPD lines; not committed): do more labels help?
  head -n 50000 $L > $R/labels-50k.labels.tmp && mv $R/labels-50k.labels.tmp $R/labels-50k.labels
fi
fitrow fit-wdl-50k $R/labels-50k.labels  # made as labels-50k.epd (its fit.log names that)
.venv/bin/python benchmarks/wdl_study.py $R > $R/study.md

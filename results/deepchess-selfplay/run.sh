#!/usr/bin/env bash
# Issue 42's DeepChess: the comparator at the paper's widths (Pos2Vec 773-600-400-200-100, top 400-200-100-2), trained
# on positions of the decisive games of Stockfish 15.1's self-play at depth 8 (results/data/sf-selfplay-d8: 28,048
# games, about two in three decisive), as the paper drew them from decisive CCRL games.
#   1. Positions: up to 30 a decisive game (none from the first 5 moves, none whose next move is a capture: the pv's
#      first move stands for the move played), games split 80/10/10 into training, validation and test (seed 0), each
#      part balanced between White and Black wins. data/positions.npz is not committed (remade in minutes); its JSON is.
#   2. Pos2Vec pretrained layer-wise (5 epochs a layer), the comparator on fresh random (win, loss) pairs each epoch for
#      up to 60 epochs, stopped early once 10 bring no better validation pair accuracy and kept at its best epoch
#      (--patience 10: the 40-epoch net of results/deepchess overfitted), then the distilled comparator (Pos2Vec
#      773-64-32, top 32-2) for 20 epochs. The test pairs are from games the nets never saw. (The reference run was
#      begun with --keep-best alone and resumed with --patience after 28 epochs: train.log; the kept epoch is the same.)
#   3. In play, 200 games each from search/data/openings-500.epd (an SPRT [0, 20], alpha = beta = 0.05, may stop a
#      match, never before 40 games): the comparator against the expert and against material at 2,000 nodes a move,
#      the distilled one against the expert at 2,000 nodes and at 0.1 s a move; STS at 1 s a position. matches.md.
#   4. Why it plays as it does: how often the comparators (and the expert, results/pnet's net) order quiet positions of
#      one self-play game 1, 2 or 10 plies apart, and two quiet children of one position (siblings, the pairs a
#      search compares; 150 positions' children labelled at depth 8), as Stockfish's scores do
#      (benchmarks/close_pairs.py: close-pairs.md; the pair accuracy above is of far pairs), and what the comparison
#      search alone gives or costs: the expert's own evaluation in it (expert@search=compare) and in the ordinary
#      engine with the same pruning off (expert@search=plain) against the expert at 2,000 nodes, 200 games each.
# From the repository root: bash results/deepchess-selfplay/run.sh (needs .venv from `make test`, with torch, and the
# data set: bash results/data/sf-selfplay-d8/run.sh). Resumable: the data step is skipped once written, train-cmp
# resumes from its checkpoint, matches and the suite from their PGN / CSV. JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/deepchess-selfplay
SP=results/data/sf-selfplay-d8/labels.epd.gz
J=${JOBS:-2}
OPENINGS=search/data/openings-500.epd  # 500 openings: 200 games at fixed nodes are 200 distinct games
mkdir -p $R
. results/steps.sh
# The positions (not committed) only while the nets are still to train: a new machine with the nets remakes nothing
if [ ! -s $R/cmp-small.npz ] && [ ! -s $R/data/positions.npz ]; then
  need sf-selfplay-d8
  $M deepchess-data $SP --out $R/data --per-game 30 --seed 0 --jobs $J > $R/data.log 2>&1
  tail -n 3 $R/data.log
fi

[ -s $R/cmp-small.npz ] || $M train-cmp $R/data --out $R --pos2vec 600 400 200 100 --top 400 200 100 --ae-epochs 5 \
  --epochs 60 --patience 10 --distill-epochs 20 --seed 0 $([ -e $R/checkpoint.npz ] && echo --resume) \
  >> $R/train.log 2>&1

run() { step $R "$@"; }
SPRT=(--sprt 0,20,0.05,0.05 --sprt-min-games 40)
run cmp-vs-expert-2000n $M match cmp:$R/cmp.npz expert --games 200 --jobs $J --nodes 2000 "${SPRT[@]}" \
  --openings $OPENINGS --pgn $R/cmp-vs-expert-2000n.pgn --resume
run cmp-vs-material-2000n $M match cmp:$R/cmp.npz material --games 200 --jobs $J --nodes 2000 "${SPRT[@]}" \
  --openings $OPENINGS --pgn $R/cmp-vs-material-2000n.pgn --resume
run small-vs-expert-2000n $M match cmp:$R/cmp-small.npz expert --games 200 --jobs $J --nodes 2000 "${SPRT[@]}" \
  --openings $OPENINGS --pgn $R/small-vs-expert-2000n.pgn --resume
# 4. Why (before the steps that need an idle machine): close pairs, then the comparison search alone
if [ ! -s $R/close-pairs.md ]; then
  need sf-selfplay-d8
  .venv/bin/python benchmarks/close_pairs.py cmp:$R/cmp.npz cmp:$R/cmp-small.npz expert pnet:results/pnet/pnet.npz \
    --siblings 150 --jobs $J > $R/close-pairs.md.tmp && mv $R/close-pairs.md.tmp $R/close-pairs.md
fi
for search in compare plain; do
  run expert-$search-vs-expert-2000n $M match expert@search=$search expert --games 200 --jobs $J --nodes 2000 \
    --openings $OPENINGS --pgn $R/expert-$search-vs-expert-2000n.pgn --resume
done
.venv/bin/python tools/match_table.py --title "The comparison search alone: the expert's evaluation in it (issue 42)" \
  $R/expert-compare-vs-expert-2000n.log $R/expert-plain-vs-expert-2000n.log > $R/search-alone.md
run small-vs-expert-0.1s $M match cmp:$R/cmp-small.npz expert --games 200 --jobs $J --movetime 0.1 "${SPRT[@]}" \
  --openings $OPENINGS --pgn $R/small-vs-expert-0.1s.pgn --resume
run sts $M suite benchmarks/data/sts-v3.epd --engine cmp:$R/cmp.npz --movetime 1 --jobs $J --csv $R/sts.csv --resume
.venv/bin/python tools/match_table.py --title "The self-play DeepChess comparator in play (issue 42)" \
  $R/cmp-vs-expert-2000n.log $R/cmp-vs-material-2000n.log $R/small-vs-expert-2000n.log $R/small-vs-expert-0.1s.log \
  $R/sts.log > $R/matches.md

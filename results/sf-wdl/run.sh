#!/usr/bin/env bash
# Issue 24's reference run: the rich organism taught by Stockfish 15.1 with the settings the study
# (results/wdl-study/study.md) picked: the win-probability loss (--loss wdl: Stockfish 15.1's own WDL model, power 2,
# K fitted on the training rows), the GA started from the exact fit of that loss (--init fit) with 10,000 training
# rows a generation (--sample 10000: with the default 1,000, rarely seen genes such as pawns on the 7th rank drift
# and the winner plays 8 points below its start, study row wdl-init), on the 200,000 depth-10 labels of
# results/rich-stockfish (the labels the study used; study.md says what it shows about their number). Then what users care about: matches against the expert at 2,000 nodes and
# at 0.1 s a move (400 games each, or fewer when the SPRT [0, 20] decides), STS at 1 s a position, and the depth-2
# error on the two held-out sets (TCEC games; games of engines of mixed strength).
# From the repository root: bash results/sf-wdl/run.sh   (needs .venv from `make test`, Stockfish). Resumable:
# every step skips what it already wrote or resumes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/sf-wdl
L=results/rich-stockfish/labels.epd
O=$R/organism.json
if [ ! -f $O ]; then
  resume=; [ -f $R/checkpoint.npz ] && resume=--resume
  $M evolve $L --genome rich --loss wdl --init fit --sample 10000 --out $R --seed 1 --jobs 2 --no-progress $resume > $R/evolve.log 2>&1
fi
tail -n 6 $R/evolve.log
$M match organism:$O expert --games 400 --jobs 2 --nodes 2000 --sprt 0,20,0.05,0.05 \
  --pgn $R/vs-expert-2000n.pgn --resume >> $R/vs-expert-2000n.log 2>&1  # appended: a rerun keeps the record
tail -n 12 $R/vs-expert-2000n.log
$M match organism:$O expert --games 400 --jobs 2 --movetime 0.1 --sprt 0,20,0.05,0.05 \
  --pgn $R/vs-expert-0.1s.pgn --resume >> $R/vs-expert-0.1s.log 2>&1
tail -n 12 $R/vs-expert-0.1s.log
$M suite benchmarks/data/sts-v3.epd --engine organism:$O --movetime 1 --jobs 2 --no-progress \
  --csv $R/sts-1s.csv --resume >> $R/sts-1s.log 2>&1
tail -n 5 $R/sts-1s.log
for set in heldout-tcec heldout-mixed; do  # the expert's figures: results/$set/errors.md
  [ -s $R/$set.md ] || .venv/bin/python benchmarks/heldout_error.py results/$set/labels.epd --depth 2 \
    --evals organism:$O --jobs 2 > $R/$set.md
  cat $R/$set.md
done

#!/usr/bin/env bash
# NOTE (added when this folder moved): this is the record of the perspective net's first design, without the
# linear PSQT path, exactly as it was run from the repository root at commit 808e05c, when these files lived in
# results/pnet/ (so the paths below, and the player names inside the logs and PGNs, say results/pnet/...). The
# PSQT net replaced it as results/pnet/pnet.npz; to replay this script, check out 808e05c.
# results/pnet/summary.md, gathered from the files run.sh wrote (the training's train.md, values.md, speed.txt, the
# match and suite logs that exist so far, labels-needed.md); nothing is recomputed. From the repository root:
# bash results/pnet/summary.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/pnet
logs=()
for f in vs-expert-2000n vs-organism-2000n vs-expert-0.1s vs-organism-0.1s sts-1s; do
  [ -f $R/$f.log ] && logs+=("$R/$f.log")
done
{
  cat $R/train.md
  echo
  echo "## Start position and material (benchmarks/eval_values.py)"
  echo
  cat $R/values.md
  echo
  echo "## Speed (benchmarks/pnet_speed.py: equal nodes, CPU time)"
  echo
  echo '```'
  cat $R/speed.txt
  echo '```'
  echo
  .venv/bin/python tools/match_table.py --title "Play (the organism: results/rich-builtin/organism.json)" "${logs[@]}" \
    | sed 's/^#/##/'
  echo
  echo "vs-expert-2000n: its game of round 5.1 first ended on the match's 120 s hang watchdog (the operator had paused"
  echo "the process to train the labels-needed nets); that game was dropped from the PGN and played again with --resume"
  echo "(the log's last block). vs-organism-2000n was stopped after 141 games for lack of time; its other 59 games"
  echo "were played with --resume in the next session."
  echo
  echo "How many positions the net needs: labels-needed.md. Exploration before this run: explore/."
  if [ -f $R/expert-labels/vs-expert-2000n.log ]; then
    echo
    .venv/bin/python tools/match_table.py --title "Diagnostic: the net trained on the expert's own scores (expert-labels/)" \
      $R/expert-labels/vs-expert-2000n.log | sed 's/^#/##/'
    echo
    echo "Its training: expert-labels/train.md. Where the nets depart from the expert inside a search (eval-gap.md):"
    echo
    cat $R/eval-gap.md
  fi
} > $R/summary.md

#!/usr/bin/env bash
# results/pnet/summary.md, gathered from the files run.sh wrote (the trainings' train.md, values.md, speed.txt,
# eval-gap.md, the match and suite logs that exist so far, labels-needed.md); nothing is recomputed. From the
# repository root: bash results/pnet/summary.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/pnet
present() { for f in "$@"; do [ -f "$f" ] && echo "$f"; done; return 0; }
mapfile -t logs < <(present $R/vs-expert-2000n.log $R/vs-organism-2000n.log $R/vs-expert-0.1s.log \
  $R/vs-organism-0.1s.log $R/sts-1s.log)
{
  cat $R/train.md
  for f in values.md speed.txt eval-gap.md; do
    [ -f $R/$f ] || continue
    echo
    case $f in
      values.md) echo "## Start position and material (benchmarks/eval_values.py)"; echo; cat $R/$f ;;
      speed.txt) echo "## Speed (benchmarks/pnet_speed.py: equal nodes, CPU time)"; echo; echo '```'; cat $R/$f
                 echo '```' ;;
      eval-gap.md) echo "## Where the nets depart from the expert inside a search (benchmarks/eval_gap.py)"; echo
                   cat $R/$f ;;
    esac
  done
  if [ ${#logs[@]} -gt 0 ]; then
    echo
    .venv/bin/python tools/match_table.py --title "Play (the organism: results/rich-builtin/organism.json)" \
      "${logs[@]}" | sed 's/^#/##/'
  fi
  if [ -f $R/expert-labels/vs-expert-2000n.log ]; then
    echo
    .venv/bin/python tools/match_table.py --title "Diagnostic: the net trained on the expert's own scores (expert-labels/)" \
      $R/expert-labels/vs-expert-2000n.log | sed 's/^#/##/'
    echo
    echo "Its training: expert-labels/train.md."
  fi
  if [ -f $R/labels-needed.md ]; then
    echo
    echo "How many positions the net needs: labels-needed.md."
  fi
  echo
  echo "The first design, without the PSQT path, and its runs: no-psqt/ (its summary.md)."
} > $R/summary.md

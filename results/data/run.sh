#!/usr/bin/env bash
# Issue 38's data sets, each made by its own run.sh (resumable; rerun to continue) and recorded by summarize.sh:
#   search-tree/    200,971 search-tree positions labelled by Stockfish 15.1 at depth 8 (made: ~15 min of 2 cores)
#   sf-selfplay-d8/ 2,000,000 Stockfish self-play labels at depth 8 (~2 h of 2 cores; the file is not committed)
#   crowd/          200,000 positions labelled by Stockfish, Toga II, Ethereal and Glaurung at depth 8 (hours)
#   sf-selfplay-d8-2/ (issue 39) 2,000,000 further self-play labels, seed 2 (~2 h of 2 cores; not committed)
#   sf-selfplay-d1/ (issue 39) sf-selfplay-d8's positions relabelled at depth 1 (~40 min of 2 cores; not committed)
#   sf-selfplay-d8-val/ (issue 42) 20,098 self-play labels at depth 8, seed 3: TD-Leaf's watch set (~2 min; committed)
# From the repository root: bash results/data/run.sh [NAME ...]   (default: all six, in that order). Each needs
# .venv (make test) and Debian's engines; crowd/run.sh installs its three when run as root.
set -euo pipefail
cd "$(dirname "$0")/../.."
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(search-tree sf-selfplay-d8 crowd sf-selfplay-d8-2 sf-selfplay-d1 sf-selfplay-d8-val)
for name in "${names[@]}"; do
  bash "results/data/$name/run.sh"
done

#!/usr/bin/env bash
# Issue 41's engine set, off results/recognition-engines' openings and settings, and replay's accuracy and speed on it.
# Eight players, each at a limit it honours (an external engine is sent its spec's own limit alone): Stockfish 15.1 at
# 20,000 nodes and at Skill Level 5 (randomised), Toga II and Glaurung at depth 6, Glaurung aggressive
# (Aggressiveness 200, Cowardice 50) at depth 6 (Glaurung with Threads=1: its default is 2, which is not deterministic), Ethereal at depth 8 (Ethereal 12 stops `go nodes` after depth 1), Phalanx and sunfish at 0.1 s a move (time
# alone: they do not replay exactly). The shipped openings 41-48 (recognition-engines used 1-8 and 26-33), each
# pairing 4 games (`mimic games --games 4`): 112 games, 28 game sides a player.
# Then `recognize classify --method replay` at k = 1 with every player a candidate at its own spec: the normalised
# ranking (the default) and the raw one, top-1 accuracy, who is predicted how often, and the time per game side
# (summary.md, tools/replay_summary.py). DIR is results/recognition-engines (replay reads only its settings:
# no skipped plies). From the repository root: bash results/replay-engines/run.sh (needs .venv and .venv-sunfish:
# make test; make sunfish; Debian's stockfish toga2 glaurung ethereal-chess phalanx). Resumable: the games resume,
# the replays are cached ($MIMIC_CACHE/replay).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/replay-engines
SF=/usr/games/stockfish
PLAYERS=(
  "SF=uci:$SF?Threads=1&Hash=16@nodes=20000"
  "SF-skill5=uci:$SF?Threads=1&Hash=16&Skill%20Level=5@nodes=20000"
  "Toga=uci:/usr/games/toga2@depth=6"
  "Glaurung=uci:/usr/games/glaurung?Threads=1&Hash=16@depth=6"
  "Glaurung-aggr=uci:/usr/games/glaurung?Threads=1&Hash=16&Aggressiveness=200&Cowardice=50@depth=6"
  "Ethereal=uci:/usr/games/ethereal-chess@depth=8"
  "Phalanx=xboard:/usr/games/phalanx"
  "Sunfish=uci:.venv-sunfish/bin/sunfish-uci"
)
NAMES=$(printf '%s\n' "${PLAYERS[@]}" | cut -d= -f1 | paste -sd, -)
SPECS=()
for p in "${PLAYERS[@]}"; do SPECS+=("${p#*=}"); done
CANDIDATES=$(printf '%s\n' "${PLAYERS[@]}" | paste -sd, -)
sed -n '41,48p' search/data/openings.epd > $R/openings.epd  # not committed: results/*.epd are label files

n=${#PLAYERS[@]}
if ! [ -s $R/games.pgn ] || [ "$(grep -c '^\[Event ' $R/games.pgn)" -ne $((n * (n - 1) / 2 * 4)) ]; then
  resume=; [ -s $R/games.pgn ] && resume=--resume
  $M games "${SPECS[@]}" --names "$NAMES" --out $R/games.pgn --openings $R/openings.epd --games 4 --jobs 2 \
     --movetime 0.1 --max-plies 300 --seed 1 $resume > $R/games.pgn.log 2>&1
fi
for ranking in normalised raw; do
  start=$(date +%s.%N)
  $M recognize classify results/recognition-engines $R/games.pgn --method replay --k 1 --jobs 2 --no-progress \
     --candidates "$CANDIDATES" --ranking $ranking --csv $R/replay-$ranking.csv > $R/replay-$ranking.log 2>&1
  echo "seconds: $(echo "$(date +%s.%N) - $start" | bc)" >> $R/replay-$ranking.log
done
.venv/bin/python tools/replay_summary.py $R > $R/summary.md

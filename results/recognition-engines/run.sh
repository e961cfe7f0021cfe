#!/usr/bin/env bash
# The reference engine set of issue 12 (item 3) and its recognition experiment (item 4).
# From the repository root:
#   bash results/recognition-engines/run.sh
# Needs .venv from `make test`, `make sunfish` (sunfish from PyPI, in .venv-sunfish), and Debian's engines:
#   apt-get install stockfish toga2 glaurung ethereal-chess phalanx
# Each step writes as it goes and resumes when re-run (`mimic games --resume`; a finished step is skipped).
#
# Eight players: Stockfish at two strengths (fixed nodes, one thread), Toga II, Glaurung, Ethereal, Phalanx over
# XBoard, sunfish (Python, UCI) and our evolved organism. Every pairing plays every opening of its set twice,
# colours swapped: 28 pairings x 8 openings x 2 = 448 games a set, 112 game sides a player. (Sized for the
# 2-core machine: both sets take about an hour with --jobs 2.)
#
# Split by opening. Engines at fixed nodes replay the same game from the same opening, so a test game from a
# training opening would be recognised by memory, not by style. So games.pgn (shipped openings 1-8) trains: its games
# are split into training (80 %) and validation (20 %) only, and the test games are test.pgn's (openings 26-33, which
# no clone or classifier saw): `recognize experiment --test-games` (issue 25).
#
# Replay (issue 25, item 3): every engine is replayed with its spec below (at `--movetime 0.1`, its own @nodes on
# top, as in the games) on each player's first 32 test game sides (file order), on each side's first 10 positions
# (--replay-sides 32 --replay-positions 10: replaying is the slow part, about 0.6 s a position for the eight engines),
# the UCI engines also with 4 MultiPV lines (--multipv 4: the played move's likelihood breaks ties of matching
# shares). summary.md reports it twice: ranked by matching share, and normalised (each candidate's share minus its
# share over all replayed positions). The other methods use 64 test sides a player (--max-held 64, a seeded
# choice; 22 validation sides a player).
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/recognition-engines
OPENINGS=search/data/openings.epd

find_engine() {  # the first executable among the candidates, or a one-line error naming them
  local c
  for c in "$@"; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return; fi
  done
  echo "run.sh: none of $* is installed (see the header of this script)" >&2
  return 1
}
STOCKFISH=$(find_engine /usr/games/stockfish stockfish)
TOGA=$(find_engine /usr/games/toga2 toga2)
GLAURUNG=$(find_engine /usr/games/glaurung glaurung)
ETHEREAL=$(find_engine /usr/games/ethereal-chess ethereal-chess /usr/games/Ethereal Ethereal)
PHALANX=$(find_engine /usr/games/phalanx phalanx)
SUNFISH=$(find_engine .venv-sunfish/bin/sunfish-uci)

# name=spec, one player a line (names: no commas; they are the PGN headers the recognizer matches).
# These games were made before issue 41, when mimic sent an external engine its @nodes beside the match's 0.1 s: Toga II
# (which ignores `go nodes`) and Ethereal (which ignores nodes beside movetime) searched 0.1 s a move, the others stopped
# at their nodes. Today an engine is sent its own limit alone (Toga would search until told to stop, Ethereal 12 stops
# `go nodes` after depth 1); to play these games as they were played, give Toga and Ethereal no limit of their own.
PLAYERS=(
  "SF-full=uci:$STOCKFISH?Threads=1&Hash=16@nodes=2000"
  "SF-skill3=uci:$STOCKFISH?Threads=1&Hash=16&Skill%20Level=3@nodes=20000"
  "Toga=uci:$TOGA@nodes=5000"
  "Glaurung=uci:$GLAURUNG@nodes=5000"
  "Ethereal=uci:$ETHEREAL@nodes=5000"
  "Phalanx=xboard:$PHALANX"
  "Sunfish=uci:$SUNFISH"
  "Evolved=organism:results/paper-stockfish/organism.json@depth=3"
)
NAMES=$(printf '%s\n' "${PLAYERS[@]}" | cut -d= -f1 | paste -sd, -)
SPECS=()
for p in "${PLAYERS[@]}"; do SPECS+=("${p#*=}"); done

# Two disjoint sets of the shipped openings (EPD: one opening a line), written here by this script and not
# committed (results/*.epd are label files, each with its provenance sidecar; these are the shipped file's lines).
sed -n '1,8p' $OPENINGS > $R/openings-train.epd
sed -n '26,33p' $OPENINGS > $R/openings-test.epd

play() {  # PGN, openings file: 16 games a pairing (8 openings x 2 colours), 2 at once, 0.1 s a move at most
  local pgn=$1 openings=$2 resume= n=${#PLAYERS[@]}
  if [ -s "$pgn" ] && [ "$(grep -c '^\[Event ' "$pgn")" -eq $((n * (n - 1) / 2 * 16)) ]; then
    return  # every game played: nothing to resume (and its log is kept)
  fi
  [ -s "$pgn" ] && resume=--resume
  # shellcheck disable=SC2086
  $M games "${SPECS[@]}" --names "$NAMES" --out "$pgn" --openings "$openings" --games 16 --jobs 2 \
     --movetime 0.1 --max-plies 300 $resume > "$pgn.log" 2>&1
  tail -n 15 "$pgn.log"
}
play $R/games.pgn $R/openings-train.epd
play $R/test.pgn $R/openings-test.epd

# The games start at the opening position: every move is the engine's own, so no ply is skipped.
CANDIDATES=$(printf '%s\n' "${PLAYERS[@]}" | paste -sd, -)
if [ ! -s $R/summary.md ] || ! grep -q "replay, normalised" $R/summary.md; then
  $M recognize experiment $R/games.pgn --test-games $R/test.pgn --players "$NAMES" --out $R --skip-plies 0 \
     --jobs 2 --seed 1 --validation 0.2 --max-held 64 --candidates "$CANDIDATES" --multipv 4 --replay-sides 32 \
     --replay-positions 10 --no-progress > $R/experiment.log 2>&1 || { tail -n 20 $R/experiment.log; exit 1; }
fi
tail -n 6 $R/experiment.log

# The two openings files are remade at the top of this script; they are not kept (see there).
rm -f $R/openings-train.epd $R/openings-test.epd

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
# training opening would be recognised by memory, not by style. `mimic recognize experiment` splits by game
# (evolve/recognition/training.py: split_games), not by opening, so the split by opening is made here instead: games.pgn
# (shipped openings 1-8) trains the clones (experiment's own held-out figures, in summary.md, are by game within
# those openings: 75 % train, 15 % validation, 10 % test), and test.pgn (openings 26-33, which no clone saw) is
# classified at k = 1, 4, 16 and all into heldout-openings-kK.csv, which the figures by opening are recounted from
# (heldout-openings.md).
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
  local pgn=$1 openings=$2 resume=
  [ -s "$pgn" ] && resume=--resume
  # shellcheck disable=SC2086
  $M games "${SPECS[@]}" --names "$NAMES" --out "$pgn" --openings "$openings" --games 16 --jobs 2 \
     --movetime 0.1 --max-plies 300 $resume > "$pgn.log" 2>&1
  tail -n 15 "$pgn.log"
}
play $R/games.pgn $R/openings-train.epd
play $R/test.pgn $R/openings-test.epd

# The games start at the opening position: every move is the engine's own, so no ply is skipped.
if [ ! -s $R/summary.md ]; then
  $M recognize experiment $R/games.pgn --players "$NAMES" --out $R --skip-plies 0 --jobs 2 --seed 1 \
     --validation 0.15 --test 0.1 \
     > $R/experiment.log 2>&1
fi
[ -e $R/experiment.log ] && tail -n 8 $R/experiment.log
# Each clone's score against its average on the training players' validation sides (the default), and against
# its average on test.pgn's own players (--norm query): the openings differ, so the validation averages may not
# carry over.
for k in 1 4 16 all; do
  $M recognize classify $R $R/test.pgn --k $k --csv $R/heldout-openings-k$k.csv --jobs 2 > $R/heldout-openings-k$k.log 2>&1
  tail -n 1 $R/heldout-openings-k$k.log
  $M recognize classify $R $R/test.pgn --k $k --norm query --csv $R/heldout-openings-query-k$k.csv --jobs 2 \
     > $R/heldout-openings-query-k$k.log 2>&1
  tail -n 1 $R/heldout-openings-query-k$k.log
done

# The figures by opening, recounted from the CSVs.
.venv/bin/python tools/recognition_table.py \
  --title "Recognition of the engine set on openings no clone saw (test.pgn, openings 26-33)" \
  --command "mimic recognize classify $R $R/test.pgn --k K --csv $R/heldout-openings-kK.csv --jobs 2" \
  1=$R/heldout-openings-k1.csv 4=$R/heldout-openings-k4.csv 16=$R/heldout-openings-k16.csv \
  all=$R/heldout-openings-kall.csv > $R/heldout-openings.md
.venv/bin/python tools/recognition_table.py \
  --title "The same, each clone measured against its average on test.pgn's players (--norm query)" \
  --command "mimic recognize classify $R $R/test.pgn --k K --norm query --csv $R/heldout-openings-query-kK.csv --jobs 2" \
  1=$R/heldout-openings-query-k1.csv 4=$R/heldout-openings-query-k4.csv 16=$R/heldout-openings-query-k16.csv \
  all=$R/heldout-openings-query-kall.csv >> $R/heldout-openings.md
cat $R/heldout-openings.md

# A variant: the clones evolved by the smooth loss (--moves-loss likelihood: the mean log-likelihood of the played
# moves) instead of the agreement count, everything else equal; into likelihood/ (the resolved children and
# features are cached from the run above).
L=$R/likelihood
if [ ! -s $L/summary.md ]; then
  $M recognize experiment $R/games.pgn --players "$NAMES" --out $L --skip-plies 0 --jobs 2 --seed 1 \
     --validation 0.15 --test 0.1 --moves-loss likelihood > $L.log 2>&1 || { cat $L.log; exit 1; }
fi
for k in 1 4 16 all; do
  $M recognize classify $L $R/test.pgn --k $k --csv $L/heldout-openings-k$k.csv --jobs 2 > $L/heldout-openings-k$k.log 2>&1
  $M recognize classify $L $R/test.pgn --k $k --norm query --csv $L/heldout-openings-query-k$k.csv --jobs 2 \
     > $L/heldout-openings-query-k$k.log 2>&1
done
.venv/bin/python tools/recognition_table.py \
  --title "Likelihood-trained clones on openings no clone saw (test.pgn, openings 26-33)" \
  --command "mimic recognize classify $L $R/test.pgn --k K --csv $L/heldout-openings-kK.csv --jobs 2" \
  1=$L/heldout-openings-k1.csv 4=$L/heldout-openings-k4.csv 16=$L/heldout-openings-k16.csv \
  all=$L/heldout-openings-kall.csv > $L/heldout-openings.md
.venv/bin/python tools/recognition_table.py \
  --title "The same, each clone measured against its average on test.pgn's players (--norm query)" \
  --command "mimic recognize classify $L $R/test.pgn --k K --norm query --csv $L/heldout-openings-query-kK.csv --jobs 2" \
  1=$L/heldout-openings-query-k1.csv 4=$L/heldout-openings-query-k4.csv 16=$L/heldout-openings-query-k16.csv \
  all=$L/heldout-openings-query-kall.csv >> $L/heldout-openings.md
cat $L/heldout-openings.md

# The two openings files are remade at the top of this script; they are not kept (see there).
rm -f $R/openings-train.epd $R/openings-test.epd

#!/usr/bin/env bash
# The validation experiments (issue 6), exactly as run. From the repository root:
#   bash results/validation/run.sh            (needs .venv from `make test`, `make sunfish`, Debian's stockfish)
# Each step writes its PGN or CSV (as it goes) and a log here, and resumes from them when re-run.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
V=results/validation
EVOLVED=organism:results/paper-stockfish/organism.json
RND=random:1
SUNFISH=uci:.venv-sunfish/bin/sunfish-uci
SFWEAK='uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1350'
MT=0.2   # seconds a move, for both players: equal time

. results/steps.sh
run() { step $V "$@"; }

run evolved-vs-random  $M match "$EVOLVED" "$RND"  --games 100 --jobs 2 --movetime $MT --pgn $V/evolved-vs-random.pgn --resume
run evolved-vs-expert  $M match "$EVOLVED" expert     --games 200 --jobs 2 --movetime $MT --pgn $V/evolved-vs-expert.pgn --resume
for who in evolved expert random; do
  case $who in evolved) P=$EVOLVED;; expert) P=expert;; random) P=$RND;; esac
  run $who-vs-sunfish   $M match "$P" "$SUNFISH" --games 60 --jobs 2 --movetime $MT --pgn $V/$who-vs-sunfish.pgn --resume
  run $who-vs-stockfish1350 $M match "$P" "$SFWEAK" --games 60 --jobs 2 --movetime $MT --pgn $V/$who-vs-stockfish1350.pgn --resume
done
for who in evolved expert random; do
  case $who in evolved) P=$EVOLVED;; expert) P=expert;; random) P=$RND;; esac
  run ecm-$who $M suite benchmarks/data/ecm.epd --engine "$P" --movetime 1 --jobs 2 --csv $V/ecm-$who.csv --resume
  run wac-$who $M suite benchmarks/data/wac.epd --engine "$P" --movetime 1 --jobs 2 --csv $V/wac-$who.csv --resume
done
run sts-evolved $M suite benchmarks/data/sts-v3.epd --engine "$EVOLVED" --movetime 1 --jobs 2 --csv $V/sts-evolved.csv --resume
.venv/bin/python tools/validation_summary.py

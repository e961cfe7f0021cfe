#!/usr/bin/env bash
# Issue 14's tournament of every evaluator, exactly as run. From the repository root:
#   bash results/tournament/run.sh      (needs .venv from `make test`, `make sunfish`, Debian's stockfish, and the
#                                        nets of results/giraffe/ and results/deepchess/)
# A round robin at equal time, 0.1 s a move, 20 games a pair (10 of the shipped openings, each with both colours),
# 2 games at a time; ratings fitted jointly from all games, anchored on Stockfish 15.1 at UCI_Elo 1350 (the lowest
# it offers), with Stockfish at UCI_Elo 1800 as the second anchor, whose fitted rating is checked against its
# nominal 1800 (--nominal: summary.md says whether its interval, the interval of the difference to the anchor, holds
# it). Resumable: --resume plays only the games the PGN lacks; with none left it re-rates the PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=/usr/games/stockfish
.venv/bin/mimic tournament \
  random:1 \
  organism:results/paper-stockfish/organism.json \
  organism:results/rich-stockfish/organism.json \
  expert \
  net:results/giraffe/net.npz \
  cmp:results/deepchess/cmp.npz \
  uci:.venv-sunfish/bin/sunfish-uci \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1350" \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1800" \
  --names random,paper-organism,rich-organism,expert,giraffe-net,deepchess-cmp,sunfish,SF-Elo1350,SF-Elo1800 \
  --anchor SF-Elo1350=1350 --nominal SF-Elo1800=1800 --games 20 --movetime 0.1 --jobs 2 --out results/tournament/games.pgn --resume \
  2>&1 | tee -a results/tournament/tournament.log

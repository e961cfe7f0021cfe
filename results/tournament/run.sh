#!/usr/bin/env bash
# Issue 26's tournament (item 4; it replaces issue 14's, which is in git history): every evaluator as it stands at the
# end of issue 26, with sunfish and two strength-limited Stockfish 15.1 players as anchors. From the repository root:
#   bash results/tournament/run.sh      (needs .venv from `make test`, `make sunfish`, Debian's stockfish, and the
#                                        files of results/rich-builtin, sf-wdl, pnet, giraffe and deepchess/widths)
# Players: the best organisms (the rich genome taught by the built-in expert, results/rich-builtin, and by Stockfish
# with the win-probability loss, results/sf-wdl), the expert, the perspective net (results/pnet), the Giraffe-style
# net (results/giraffe), the 10-epoch DeepChess comparator (results/deepchess/widths/default: the 40-epoch one
# overfits), sunfish, Stockfish at UCI_Elo 1350 (the anchor) and 1800 (the check: --nominal).
# A round robin at equal time, 0.1 s a move, 20 games a pair (10 of the shipped openings, each with both colours),
# 2 games at a time: 36 pairs, 720 games, about 40 minutes on 2 idle cores. Run it on an idle machine: at 0.1 s a
# move an overloaded one loses games to the hang watchdog. Ratings fitted jointly from all games, anchored on
# UCI_Elo 1350; summary.md says whether the second anchor's interval holds its nominal 1800.
# Resumable: --resume plays only the games the PGN lacks; with none left it re-rates the PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=/usr/games/stockfish
.venv/bin/mimic tournament \
  organism:results/rich-builtin/organism.json \
  organism:results/sf-wdl/organism.json \
  expert \
  pnet:results/pnet/pnet.npz \
  net:results/giraffe/net.npz \
  cmp:results/deepchess/widths/default/cmp.npz \
  uci:.venv-sunfish/bin/sunfish-uci \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1350" \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1800" \
  --names rich-organism,sf-wdl-organism,expert,pnet,giraffe-net,deepchess-cmp-10ep,sunfish,SF-Elo1350,SF-Elo1800 \
  --anchor SF-Elo1350=1350 --nominal SF-Elo1800=1800 --games 20 --movetime 0.1 --jobs 2 \
  --out results/tournament/games.pgn --resume 2>&1 | tee -a results/tournament/tournament.log

#!/usr/bin/env bash
# Issue 42's round robin for the self-play Giraffe net, which tournament-2 was played without (its series was still
# training): the final net of results/giraffe-selfplay (final.txt names it) against the players the issue names, the
# expert, the best organism (results/rich-builtin's: 1620 in tournament-2, above sf-wdl's and sf-pupil's), the
# perspective net (results/sf-pnet, tournament-2's best) and the two Stockfish anchors, with results/giraffe's net (the
# one trained on 158,674 game positions) beside them. From the repository root:
#   bash results/tournament-giraffe/run.sh   (needs .venv from `make test`, Debian's stockfish, and the final net:
#                                             bash results/giraffe-selfplay/run.sh writes final.txt once it is chosen)
# As tournament-2's: 0.1 s a move, 20 games a pair (10 of the shipped openings, each with both colours), 2 games at a
# time: 7 players, 21 pairs, 420 games, about 25 minutes on 2 idle cores. Run it on an idle machine: at 0.1 s a move
# an overloaded one loses games to the hang watchdog. Ratings fitted jointly from all games, anchored on UCI_Elo 1350;
# summary.md says whether the second anchor's interval holds its nominal 1800. Resumable: --resume plays only the games
# the PGN lacks; with none left it re-rates the PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=/usr/games/stockfish
R=results/tournament-giraffe
F=results/giraffe-selfplay/final.txt
[ -s $F ] || { echo "$F is missing: the Giraffe series has not chosen its final net" \
  "(bash results/giraffe-selfplay/run.sh)" >&2; exit 1; }
net=$(sed -n 's/^final net: //p' $F)
[ -s "$net" ] || { echo "$F names $net, which is missing" >&2; exit 1; }
mkdir -p $R
.venv/bin/mimic tournament \
  "net:$net" \
  net:results/giraffe/net.npz \
  expert \
  organism:results/rich-builtin/organism.json \
  pnet:results/sf-pnet/pnet.npz \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1350" \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1800" \
  --names giraffe-selfplay,giraffe-net,expert,rich-organism,sf-pnet,SF-Elo1350,SF-Elo1800 \
  --anchor SF-Elo1350=1350 --nominal SF-Elo1800=1800 --games 20 --movetime 0.1 --jobs 2 \
  --out $R/games.pgn --resume 2>&1 | tee -a $R/tournament.log

#!/usr/bin/env bash
# Issues 39 and 42's tournament: issue 26's round robin (results/tournament, which stays as it was) again, with the
# evaluators those issues made beside every player of it. From the repository root:
#   bash results/tournament-2/run.sh    (needs .venv from `make test`, `make sunfish`, Debian's stockfish, the files
#                                        of issue 26's players and of results/sf-pupil, sf-pnet and
#                                        deepchess-selfplay: each folder's run.sh makes them)
# Players: issue 26's nine (the organisms of results/rich-builtin and results/sf-wdl, the expert, results/pnet's net,
# results/giraffe's net, results/deepchess's 10-epoch comparator, sunfish, Stockfish at UCI_Elo 1350 and 1800) and
# three new ones: the GA organism taught by Stockfish (results/sf-pupil), the perspective net on 2,000,000 self-play
# labels (results/sf-pnet) and the self-play DeepChess comparator at the paper's widths
# (results/deepchess-selfplay/cmp.npz: at 2,000 nodes it scored 18.8 % against the expert where the distilled one
# scored 8.7 %). The self-play Giraffe net is not here: its series (results/giraffe-selfplay) is still training, and
# issue 42 lets it play a round robin of its own against the expert, the best organism, the perspective net and the
# two Stockfish anchors once it is final.
# As issue 26's: 0.1 s a move, 20 games a pair (10 of the shipped openings, each with both colours), 2 games at a
# time: 12 players, 66 pairs, 1,320 games, about 80 minutes on 2 idle cores. Run it on an idle machine: at 0.1 s a
# move an overloaded one loses games to the hang watchdog. Ratings fitted jointly from all games, anchored on
# UCI_Elo 1350; summary.md says whether the second anchor's interval holds its nominal 1800. A new folder, not more
# games in results/tournament's PGN: a round robin's rounds are numbered by pairing, and new players renumber them.
# Resumable: --resume plays only the games the PGN lacks; with none left it re-rates the PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=/usr/games/stockfish
R=results/tournament-2
for f in results/sf-pupil/organism.json results/sf-pnet/pnet.npz results/deepchess-selfplay/cmp.npz; do
  [ -s $f ] || { echo "$f is missing: run its folder's run.sh first" >&2; exit 1; }
done
mkdir -p $R
.venv/bin/mimic tournament \
  organism:results/rich-builtin/organism.json \
  organism:results/sf-wdl/organism.json \
  organism:results/sf-pupil/organism.json \
  expert \
  pnet:results/pnet/pnet.npz \
  pnet:results/sf-pnet/pnet.npz \
  net:results/giraffe/net.npz \
  cmp:results/deepchess/widths/default/cmp.npz \
  cmp:results/deepchess-selfplay/cmp.npz \
  uci:.venv-sunfish/bin/sunfish-uci \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1350" \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1800" \
  --names rich-organism,sf-wdl-organism,sf-pupil-organism,expert,pnet,sf-pnet,giraffe-net,\
deepchess-cmp-10ep,deepchess-selfplay,sunfish,SF-Elo1350,SF-Elo1800 \
  --anchor SF-Elo1350=1350 --nominal SF-Elo1800=1800 --games 20 --movetime 0.1 --jobs 2 \
  --out $R/games.pgn --resume 2>&1 | tee -a $R/tournament.log

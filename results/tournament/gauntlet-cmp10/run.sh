#!/usr/bin/env bash
# The 10-epoch DeepChess comparator (results/deepchess/widths/default/cmp.npz: it overfits less than the 40-epoch
# reference net the round robin in results/tournament/ played) in a gauntlet against the same nine players, at the
# same time control (0.1 s a move, 20 games a pair, 2 at a time, the shipped openings), anchored on Stockfish 15.1
# at UCI_Elo 1350. In a gauntlet the others meet only the first player, so only its rating is well determined; the
# crosstable row is to be read beside the round robin's deepchess-cmp row. From the repository root:
#   bash results/tournament/gauntlet-cmp10/run.sh   (needs what results/tournament/run.sh needs, and the net of
#                                                   results/deepchess/widths/run.sh)
# Resumable: --resume plays only the games the PGN lacks.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SF=/usr/games/stockfish
.venv/bin/mimic tournament --gauntlet \
  cmp:results/deepchess/widths/default/cmp.npz \
  random:1 \
  organism:results/paper-stockfish/organism.json \
  organism:results/rich-stockfish/organism.json \
  expert \
  net:results/giraffe/net.npz \
  cmp:results/deepchess/cmp.npz \
  uci:.venv-sunfish/bin/sunfish-uci \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1350" \
  "uci:$SF?UCI_LimitStrength=true&UCI_Elo=1800" \
  --names deepchess-cmp-10ep,random,paper-organism,rich-organism,expert,giraffe-net,deepchess-cmp,sunfish,SF-Elo1350,SF-Elo1800 \
  --anchor SF-Elo1350=1350 --games 20 --movetime 0.1 --jobs 2 --out results/tournament/gauntlet-cmp10/games.pgn --resume \
  2>&1 | tee -a results/tournament/gauntlet-cmp10/tournament.log

#!/usr/bin/env bash
# Player recognition among the ten world champions of data/player-games (issue 12, item 4; issue 25, item 4).
# From the repository root (needs .venv from `make test`, and Stockfish for the mentor profile):
#   bash results/recognition-champions/run.sh
# Writes summary.md (a row per method: chance, the centipawn-loss profile, the clones, the shared organism, the
# classifier on each feature family alone and on all four; top-1 / top-3 at k = 1, 4, 16, all with exact binomial
# 95 % intervals), confusion.png (the best method), accuracy.png (a line per method), queries-kK.csv (the clones),
# features-kK.csv (the classifier), classifier.npz, the clones and split.json here. The resolved children, the
# style features and the evolved clones are cached ($MIMIC_CACHE), so a second run reads them back.
#
# Names (data/player-games/SOURCE.md): every player by surname, which takes every spelling of a file
# ("Karpov, Anatoly", "Karpov,Ana", "Karpov,An"), never a substring ("Tal" is not in "Vitaly"); consultation
# games ("Alekhine/Reilly", "Anand,Viswanathan:Borgialli,...") name nobody; the namesakes Anand,Vignesh,
# Kasparov,Georgy and Carlsen,H are excluded. A game in two champions' files counts once.
#
# Equal data per player, sized for a first run of about 20 minutes on 2 idle cores (issue 25's goal): 80 training
# game sides a player (--max-games), at most 32 validation and 32 test sides each (--max-held; a seeded choice).
# Resolving every legal move's capture sequence (the clones' positions) and the mentor profile (Stockfish, MultiPV 3
# at depths 1 and 6) cost some 15 to 25 and 7 to 10 ms of CPU a position, some 35 positions a game side: about
# 1.5 s of CPU a side. (Issue 12's run kept 344 training and 128 held-out sides a player: 65 minutes of resolving
# alone.) Split by game, seed 1: 60 % train, 20 % validation, 20 % test.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/recognition-champions
D=data/player-games
if [ ! -s $R/summary.md ] || ! grep -q -- "--max-games 80 --max-held 32" $R/summary.md; then
  .venv/bin/mimic recognize experiment $D/Alekhine.pgn $D/Anand.pgn $D/Botvinnik.pgn $D/Capablanca.pgn \
  $D/Carlsen.pgn $D/Fischer.pgn $D/Karpov.pgn $D/Kasparov.pgn $D/Petrosian.pgn $D/Tal.pgn \
  --players Alekhine,Anand,Botvinnik,Capablanca,Carlsen,Fischer,Karpov,Kasparov,Petrosian,Tal \
  --exclude "Anand,Vignesh" --exclude "Kasparov,Georgy" --exclude "Carlsen,H" \
  --max-games 80 --max-held 32 --seed 1 --jobs 2 --no-progress --out $R > $R/experiment.log 2>&1 \
  || { tail -n 20 $R/experiment.log; exit 1; }
fi
tail -n 6 $R/experiment.log

# A variant of issue 12 (its files as that run made them, before the style features): the clones evolved by the
# smooth loss (--moves-loss likelihood) instead of the agreement count, 344 training and 128 held-out sides a player.
if [ ! -s $R/likelihood/summary.md ]; then
  .venv/bin/mimic recognize experiment $D/Alekhine.pgn $D/Anand.pgn $D/Botvinnik.pgn $D/Capablanca.pgn \
    $D/Carlsen.pgn $D/Fischer.pgn $D/Karpov.pgn $D/Kasparov.pgn $D/Petrosian.pgn $D/Tal.pgn \
    --players Alekhine,Anand,Botvinnik,Capablanca,Carlsen,Fischer,Karpov,Kasparov,Petrosian,Tal \
    --exclude "Anand,Vignesh" --exclude "Kasparov,Georgy" --exclude "Carlsen,H" \
    --max-held 128 --seed 1 --jobs 2 --moves-loss likelihood --out $R/likelihood 2>&1 | tee $R/likelihood.log
fi

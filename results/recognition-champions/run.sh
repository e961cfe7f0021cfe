#!/usr/bin/env bash
# Player recognition among the ten world champions of data/player-games (issue 12, item 4).
# From the repository root (needs .venv from `make test`):
#   bash results/recognition-champions/run.sh
# Writes summary.md, confusion.png, accuracy.png, queries-kK.csv, the clones and split.json here. The resolved
# children and features are cached ($MIMIC_CACHE), so a second run only re-evolves and re-classifies.
#
# Names (data/player-games/SOURCE.md): every player by surname, which takes every spelling of a file
# ("Karpov, Anatoly", "Karpov,Ana", "Karpov,An"), never a substring ("Tal" is not in "Vitaly"); consultation
# games ("Alekhine/Reilly", "Anand,Viswanathan:Borgialli,...") name nobody; the namesakes Anand,Vignesh,
# Kasparov,Georgy and Carlsen,H are excluded. A game in two champions' files counts once.
#
# Equal data per player: the training game sides of every player are capped at the count of the player with
# the fewest (Capablanca, 597 games in all), and at most 128 validation and 128 test sides each (--max-held),
# which bounds the work of resolving every legal move's capture sequence (about 0.3 ms a child) to some 6,000
# game sides. Split by game, seed 1: 60 % train, 20 % validation, 20 % test.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/recognition-champions
D=data/player-games
if [ ! -s $R/summary.md ]; then
  .venv/bin/mimic recognize experiment $D/Alekhine.pgn $D/Anand.pgn $D/Botvinnik.pgn $D/Capablanca.pgn \
  $D/Carlsen.pgn $D/Fischer.pgn $D/Karpov.pgn $D/Kasparov.pgn $D/Petrosian.pgn $D/Tal.pgn \
  --players Alekhine,Anand,Botvinnik,Capablanca,Carlsen,Fischer,Karpov,Kasparov,Petrosian,Tal \
  --exclude "Anand,Vignesh" --exclude "Kasparov,Georgy" --exclude "Carlsen,H" \
  --max-held 128 --seed 1 --jobs 2 --out $R 2>&1 | tee $R/experiment.log
fi

# A variant: the clones evolved by the smooth loss (--moves-loss likelihood) instead of the agreement count,
# everything else equal, into likelihood/ (the resolved children and features are cached from the run above).
if [ ! -s $R/likelihood/summary.md ]; then
  .venv/bin/mimic recognize experiment $D/Alekhine.pgn $D/Anand.pgn $D/Botvinnik.pgn $D/Capablanca.pgn \
    $D/Carlsen.pgn $D/Fischer.pgn $D/Karpov.pgn $D/Kasparov.pgn $D/Petrosian.pgn $D/Tal.pgn \
    --players Alekhine,Anand,Botvinnik,Capablanca,Carlsen,Fischer,Karpov,Kasparov,Petrosian,Tal \
    --exclude "Anand,Vignesh" --exclude "Kasparov,Georgy" --exclude "Carlsen,H" \
    --max-held 128 --seed 1 --jobs 2 --moves-loss likelihood --out $R/likelihood 2>&1 | tee $R/likelihood.log
fi

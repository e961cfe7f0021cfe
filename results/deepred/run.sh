#!/usr/bin/env bash
# Issue 15's experiments with DeepRed's experience tree, exactly as run. From the repository root:
#   bash results/deepred/run.sh              (needs .venv from `make test`)
# Resumable: each match resumes from its PGN (and offers its games to the book once: a game is never counted
# twice), the import skips the games already in the book. The books (*.sqlite) are not committed: the import
# remakes champions.sqlite in about a minute, and the learning books are remade by replaying the blocks.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/deepred
mkdir -p $R/learning
start=$(mktemp --suffix=.epd)
trap 'rm -f "$start"' EXIT
printf 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "start";\n' > "$start"

# 1. Learning by playing. The pure DeepRed player plays blocks of 30 games (15 with each colour) from the start
# position against a fixed opponent, the random organism random:1 searching 1 ply (deterministic: the same
# position gets the same reply), and adds every game to its book as it finishes (--learn). One game at a time, so
# the book a game starts from, and so the run, is reproducible. min=1: a move seen once is known. Two curves:
# explore=1 (where every known move has only lost, it moves at random again, so it learns from losses) and
# explore=0 (the plain rule: the known move with the best lower bound, whatever its record), the control.
for curve in explore plain; do
  x=$([ $curve = explore ] && echo 1 || echo 0)
  for k in $(seq -w 1 10); do
    pgn=$R/learning/$curve-block-$k.pgn
    [ -s $pgn ] && [ "$(grep -c '^\[Result ' $pgn)" -ge 30 ] && continue
    $M match "deepred:$R/learning/$curve.sqlite?seed=1&min=1&explore=$x" random:1 --depth 1 --games 30 --jobs 1 \
      --openings "$start" --learn $R/learning/$curve.sqlite --pgn $pgn --resume > $R/learning/$curve-block-$k.log 2>&1
    grep '^Score of' $R/learning/$curve-block-$k.log
  done
done

# 2. The book from the ten champions' games (data/player-games: about 19,500 games; 701 duplicates count once).
# (Skipped when the book and its log are there: importing again adds nothing, and the log would say so.)
if ! { [ -s $R/champions.sqlite ] && grep -q 'edges/s' $R/import.log 2>/dev/null; }; then
  $M book import data/player-games/*.pgn --out $R/champions.sqlite --jobs 2 --no-progress 2>&1 | tee $R/import.log
fi

# 3. The best evolved organism (rich-stockfish, STS 7,923) with that book against itself without it: 200 games,
# 0.1 s a move each, the shipped openings (8 plies in), 2 at a time. The book plays a move seen in at least 3 of
# the champions' games, the one with the best Wilson lower bound of its score.
ORG=organism:results/rich-stockfish/organism.json
if ! grep -q 'games/hour' $R/book-vs-nobook.log 2>/dev/null; then
  $M match "$ORG+book:$R/champions.sqlite" "$ORG" --games 200 --jobs 2 --movetime 0.1 --pgn $R/book-vs-nobook.pgn \
    --resume > $R/book-vs-nobook.log 2>&1
fi
tail -n 8 $R/book-vs-nobook.log

.venv/bin/python tools/deepred_summary.py $R > $R/summary.md

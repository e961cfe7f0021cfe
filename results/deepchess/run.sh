#!/usr/bin/env bash
# Issue 14's reference run (DeepChess), exactly as run. From the repository root:
#   bash results/deepchess/run.sh            (needs .venv from `make test`, Debian's stockfish)
# Resumable: the self-play resumes from its PGN, train-cmp from its checkpoint (--resume), matches from their PGN.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=.venv/bin/mimic
R=results/deepchess
SF=/usr/games/stockfish
mkdir -p $R
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Self-play games for the training data. Openings: 4,000 distinct positions after 12 plies of the champions'
# games (the most frequent first; within 100 cp at Stockfish depth 8, so neither side starts lost), each played
# twice with colours swapped between Stockfish at 1,000 nodes a move and Stockfish at 250: the stronger side has
# White in half the games, so the decisive results split evenly between White and Black wins (Stockfish against
# itself at equal nodes wins mostly with White). Fixed nodes make each game deterministic: distinct openings,
# distinct games.
if ! grep -q 'games/hour' $R/selfplay.log 2>/dev/null; then
  .venv/bin/python tools/make_openings.py --plies 12 --min-games 1 --count 4000 --depth 8 --max-cp 100 \
    --out "$tmp/openings.epd"
  $M games "uci:$SF@nodes=1000" "uci:$SF@nodes=250" --names SF1000,SF250 --games 8000 --openings "$tmp/openings.epd" \
    --movetime 1 --jobs 2 --out $R/selfplay.pgn --resume > $R/selfplay.log 2>&1
fi
tail -n 4 $R/selfplay.log

# 2. The training positions: 10 a decisive game (not from the first 5 moves, not before a capture), from the
# champions' games, the TCEC superfinals and the self-play games; split by game 80/10/10; each part balanced
# between White and Black wins. data/positions.npz is not committed (remade in about a minute); its JSON is.
[ -s $R/data/positions.npz ] || $M deepchess-data data/player-games/*.pgn data/engine-games/tcec-superfinals-s11-s13.pgn \
  $R/selfplay.pgn --out $R/data --seed 0 --jobs 2 2>&1 | tee $R/data.log

# 3. Pos2Vec pretrained layer-wise, the siamese comparator, the distilled one (widths: train-cmp's defaults,
# 773-100-100-100 and 200-100-50-2, then 773-64-32 and 64-32-2; the summary says why), resumable per epoch.
[ -s $R/cmp-small.npz ] || $M train-cmp $R/data --out $R --ae-epochs 5 --epochs 40 --distill-epochs 15 --seed 0 \
  $([ -e $R/checkpoint.npz ] && echo --resume) 2>&1 | tee -a $R/train.log

# 4. The comparator in play: the comparison alpha-beta (cmp:), 200 games each, 2 at a time, the shipped openings.
# Equal nodes: 2,000 a move for both; equal time: 0.1 s a move. The best evolved organism is rich-stockfish's.
CMP=cmp:$R/cmp.npz
ORG=organism:results/rich-stockfish/organism.json
. results/steps.sh
run() { step $R "$@"; }
run cmp-vs-material-nodes $M match "$CMP" material --games 200 --jobs 2 --nodes 2000 --pgn $R/cmp-vs-material-nodes.pgn --resume
run cmp-vs-organism-nodes $M match "$CMP" "$ORG" --games 200 --jobs 2 --nodes 2000 --pgn $R/cmp-vs-organism-nodes.pgn --resume
run cmp-vs-organism-time  $M match "$CMP" "$ORG" --games 200 --jobs 2 --movetime 0.1 --pgn $R/cmp-vs-organism-time.pgn --resume
run sts $M suite benchmarks/data/sts-v3.epd --engine "$CMP" --movetime 1 --jobs 2 --csv $R/sts.csv --resume

.venv/bin/python tools/match_table.py --title "The DeepChess comparator in play (issue 14)" \
  $R/cmp-vs-material-nodes.log $R/cmp-vs-organism-nodes.log $R/cmp-vs-organism-time.log $R/sts.log > $R/matches.md

# 5. A diagnostic of the comparison search itself: the same search with the same knowledge as its opponent. The
# shipped test comparator tests/data/material_cmp.npz orders positions by material balance exactly (pawn 1, knight
# and bishop 3, rook 5, queen 9: tools/make_test_cmp.py), against the material-only engine (Michniewski's 100, 320,
# 330, 500, 900 cp) at equal nodes, as in cmp-vs-material-nodes. Near 50%: the comparison alpha-beta searches as
# well as ours at equal nodes, and the net's knowledge is what loses; far below: the search costs too.
run materialcmp-vs-material-nodes $M match cmp:tests/data/material_cmp.npz material --games 200 --jobs 2 --nodes 2000 \
  --pgn $R/materialcmp-vs-material-nodes.pgn --resume
.venv/bin/python tools/match_table.py --title "The DeepChess comparator in play (issue 14)" \
  $R/cmp-vs-material-nodes.log $R/cmp-vs-organism-nodes.log $R/cmp-vs-organism-time.log $R/sts.log \
  $R/materialcmp-vs-material-nodes.log > $R/matches.md

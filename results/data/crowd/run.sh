#!/usr/bin/env bash
# Issue 38's crowd data set: 200,000 positions (random playouts, the ten champions' games and the TCEC superfinals, a
# twelfth each, 10 positions a game; --fill: a source that runs out, as the smaller champions' files do, leaves the rest
# of its share to the others)
# labelled by a crowd of four engines, each at its own depth: Debian's Stockfish 15.1 and Ethereal at depth 8, Toga II and
# Glaurung at depth 6 (`mimic label` with four --mentor). At depth 8 Toga II labels 33 positions/s on 2 cores and Glaurung
# 55 (Stockfish 274, Ethereal 424): the crowd would take 3 hours of 2 cores, 3/4 of it theirs; at depth 6 they label 109
# and 154/s and the whole set takes about 75 minutes. ce is the crowd's median score, c3 each mentor's (the sidecar lists them in that order), acd and pv
# Stockfish's. Then how much they disagree (tools/crowd_disagreement.py: the mean absolute difference between each
# pair, in cp and in expected score) in disagreement.md. The file (gzip) is not committed: the repository keeps its
# sidecar, SHA-256, line count and a sample. From the repository root: bash results/data/crowd/run.sh (as root it
# installs the Debian engines when missing; rerun it to resume).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=results/data/crowd
F=labels.epd.gz
for pkg in toga2 ethereal-chess glaurung; do
  if ! command -v "/usr/games/$pkg" >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
  fi
done
resume=
[ -s "$D/$F" ] && resume=--resume
.venv/bin/mimic label --positions 200000 --seed 1 --jobs "${JOBS:-2}" \
    --mentor stockfish@depth=8 --mentor /usr/games/toga2@depth=6 --mentor /usr/games/ethereal-chess@depth=8 \
    --mentor /usr/games/glaurung@depth=6 \
    --source random --source data/player-games/Alekhine.pgn --source data/player-games/Anand.pgn \
    --source data/player-games/Botvinnik.pgn --source data/player-games/Capablanca.pgn \
    --source data/player-games/Carlsen.pgn --source data/player-games/Fischer.pgn \
    --source data/player-games/Karpov.pgn --source data/player-games/Kasparov.pgn \
    --source data/player-games/Petrosian.pgn --source data/player-games/Tal.pgn \
    --source data/engine-games/tcec-superfinals-s11-s13.pgn --per-game 10 --fill --no-progress \
    --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"
.venv/bin/python tools/crowd_disagreement.py "$D/$F" --out "$D/disagreement.md"

#!/usr/bin/env bash
# Issue 38's crowd data set: 200,000 positions (random playouts and the ten champions' games, an eleventh each)
# labelled by a crowd of four engines at depth 8, Debian's Stockfish 15.1, Toga II, Ethereal and Glaurung (`mimic label` with four
# --mentor): ce is the crowd's median score, c3 each mentor's (the sidecar lists them in that order), acd and pv
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
    --mentor stockfish@depth=8 --mentor /usr/games/toga2@depth=8 --mentor /usr/games/ethereal-chess@depth=8 \
    --mentor /usr/games/glaurung@depth=8 \
    --source random --source data/player-games/Alekhine.pgn --source data/player-games/Anand.pgn \
    --source data/player-games/Botvinnik.pgn --source data/player-games/Capablanca.pgn \
    --source data/player-games/Carlsen.pgn --source data/player-games/Fischer.pgn \
    --source data/player-games/Karpov.pgn --source data/player-games/Kasparov.pgn \
    --source data/player-games/Petrosian.pgn --source data/player-games/Tal.pgn \
    --out "$D/$F" $resume
bash results/data/summarize.sh "$D" "$F"
.venv/bin/python tools/crowd_disagreement.py "$D/$F" --out "$D/disagreement.md"

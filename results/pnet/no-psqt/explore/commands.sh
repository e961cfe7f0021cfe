#!/usr/bin/env bash
# Exploration before results/pnet's reference run, exactly as it was run (one core, from the repository root, the nets
# in /tmp/pnx, not kept: training is deterministic, so these commands make the same weights again). Each variant of the
# reference's settings (--units 64 --epochs 30 --seed 1, whose own first 18 games against the expert scored 3-14-1)
# was trained, then played 20 games against the expert at 2,000 nodes, one worker: a wider net (N = 256), a
# narrower one (N = 32; stopped after 7 games to start the reference run), quiet labels only (N = 64). The logs here
# are the commands' own output (train.log: mimic train-pnet's; vs-expert-2000n.log and .pgn: mimic match's).
# The wider net's first export had the unit K_net gives; it was re-exported with --unit material (--resume, nothing
# trained again) before its match.
set -euo pipefail
cd "$(dirname "$0")/../../.."
M=.venv/bin/mimic
L=results/rich-stockfish/labels.epd
$M train-pnet $L --out /tmp/pnx/u256 --units 256 --epochs 30 --seed 1 --jobs 1
$M train-pnet $L --out /tmp/pnx/u256 --units 256 --epochs 30 --seed 1 --resume
$M match pnet:/tmp/pnx/u256/pnet.npz expert --games 20 --jobs 1 --nodes 2000 --pgn /tmp/pnx/u256-quick.pgn --resume
$M train-pnet $L --out /tmp/pnx/u64q --units 64 --quiet-labels --epochs 30 --seed 1
$M match pnet:/tmp/pnx/u64q/pnet.npz expert --games 20 --jobs 1 --nodes 2000 --pgn /tmp/pnx/u64q-quick.pgn --resume
$M train-pnet $L --out /tmp/pnx/u32 --units 32 --epochs 30 --seed 1
$M match pnet:/tmp/pnx/u32/pnet.npz expert --games 20 --jobs 1 --nodes 2000 --pgn /tmp/pnx/u32-quick.pgn --resume

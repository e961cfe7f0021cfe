"""UCI control is never lost (issue 27): seeded bursts of commands against every player kind behind ``mimic uci``.

    python benchmarks/uci_bursts.py [--bursts 1000] [--seed 27] [--in-process]

One ``mimic uci`` process per player kind (depth, prob, prob-net, cmp, net, the book layer, DeepRed; with tiny nets
and a hand-made book, written to a temporary folder), or with ``--in-process`` the front end on real pipes in this
process. The bursts go round the kinds; each is a seeded random run of ``position``/``go`` (infinite, depth, nodes,
movetime, ponder, clock)/``stop``/``ponderhit``/``isready``/``ucinewgame``/``setoption`` lines written at once or
with random small delays, then ``stop`` and ``isready`` (tests/uci_bursts.py). A burst hangs when an ``isready`` or a
``go`` is not answered (one ``readyok``, exactly one ``bestmove``) within 3 s; its session is then started again.
Each session ends with a burst cut short by ``quit``, which must end it within a second.

Prints, per kind and in all: bursts, hung bursts, the slowest ``readyok`` (ms after its ``isready`` was written),
the slowest last ``bestmove`` after a burst's final ``stop`` (ms) and the slowest ``quit``; then the median and 99th
percentile of the ``readyok`` latencies. The latencies are measured by this process's reader thread: on a loaded
machine they include the time either process waited for a core.
Goals: 0 hung in 1,000 bursts; ``isready`` answered within 100 ms. Prints figures; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.uci_bursts import Session, Tally, player_specs


def command(spec: str) -> list[str]:
    """``mimic uci --eval SPEC`` with this interpreter."""
    return [sys.executable, "-m", "evolve.cli", "uci", "--eval", spec]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bursts", type=int, default=1000, help="bursts in all, shared round the player kinds")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--in-process", action="store_true", help="the front end in this process, on real pipes")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        specs = player_specs(Path(tmp))
        kinds = list(specs)
        tallies = {kind: Tally() for kind in kinds}
        quits = {kind: 0.0 for kind in kinds}
        rngs = {kind: random.Random(f"{args.seed} {kind}") for kind in kinds}

        def start(kind: str) -> Session:
            return Session(specs[kind], None if args.in_process else command(specs[kind]))

        sessions = {kind: start(kind) for kind in kinds}
        try:
            for i in range(args.bursts):
                kind = kinds[i % len(kinds)]
                hung = len(tallies[kind].hung)
                sessions[kind].run_burst(rngs[kind], tallies[kind])
                if len(tallies[kind].hung) > hung:
                    print(f"hung: {tallies[kind].hung[-1]}", flush=True)
                    sessions[kind].close()
                    sessions[kind] = start(kind)
            for kind in kinds:
                quits[kind] = sessions[kind].quit(rngs[kind])
        finally:
            for session in sessions.values():
                session.close()
    print(f"{'kind':10s} {'bursts':>6s} {'hung':>5s} {'isready ms':>10s} {'bestmove after stop ms':>22s} "
          f"{'quit ms':>8s}")
    for kind in kinds:
        t = tallies[kind]
        print(f"{kind:10s} {t.bursts:6d} {len(t.hung):5d} {t.slowest_ready * 1000:10.1f} {t.slowest_stop * 1000:22.1f} "
              f"{quits[kind] * 1000:8.1f}")
    total = sum(t.bursts for t in tallies.values())
    hung = sum(len(t.hung) for t in tallies.values())
    ready = sorted(x for t in tallies.values() for x in t.ready)
    print(f"isready answers: {len(ready)}, median {ready[len(ready) // 2] * 1000:.1f} ms, 99th percentile "
          f"{ready[int(len(ready) * 0.99)] * 1000:.1f} ms, over 100 ms: {sum(x > 0.1 for x in ready)}")
    print(f"hung sessions: {hung} of {total} bursts ({'in process' if args.in_process else 'mimic uci processes'}); "
          f"slowest isready answer: {ready[-1] * 1000:.1f} ms; "
          f"slowest bestmove after stop: {max(t.slowest_stop for t in tallies.values()) * 1000:.1f} ms; "
          f"slowest quit: {max(quits.values()) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

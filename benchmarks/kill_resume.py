"""Kill ``mimic evolve`` just after its checkpoints, resume it, and compare with an uninterrupted run.

    python benchmarks/kill_resume.py [--kills 20] [--labels FILE.epd] [--positions 1000] [--generations 60]

The run checkpoints every generation. Each round starts ``mimic evolve --resume`` (the first round
without ``--resume``), watches the checkpoint files and sends SIGKILL the moment one of them changes,
i.e. just after a checkpoint is (partly) written. After ``--kills`` kills the run is let finish. The
winner's chromosome and the logbook (every column except wall seconds) must equal those of an
uninterrupted run with the same arguments. Prints one line per kill and the figure
``identical: K/K`` (goal of issue 10: 20/20).
"""

from __future__ import annotations

import argparse
import csv
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def _outcome(out: Path) -> tuple[list[str], list[list[str]]]:
    """The winner's chromosome (per gene) and the logbook rows without the seconds column."""
    genes = [g["chromosome"] for g in json.loads((out / "organism.json").read_text())["genes"]]
    with open(out / "logbook.csv", newline="") as fh:
        rows = [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(fh)]
    return genes, [list(r.values()) for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--labels", default=str(ROOT / "results" / "paper-builtin" / "labels.epd"))
    ap.add_argument("--positions", type=int, default=1000, help="first N labels of --labels (default 1000)")
    ap.add_argument("--generations", type=int, default=60)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="kill-resume-") as tmp_name:
        tmp = Path(tmp_name)
        labels = tmp / "labels.epd"
        with open(args.labels, encoding="utf-8") as src, open(labels, "w", encoding="utf-8") as dst:
            kept = 0
            for line in src:
                if line.startswith("#") or not line.strip():
                    continue
                dst.write(line)
                kept += 1
                if kept == args.positions:
                    break
        base = [sys.executable, "-m", "evolve.cli", "evolve", str(labels), "--generations", str(args.generations),
                "--checkpoint-every", "1", "--no-progress"]
        env_dir = {"cwd": ROOT}
        t0 = time.perf_counter()
        subprocess.run([*base, "--out", str(tmp / "full")], check=True, capture_output=True, **env_dir)
        print(f"uninterrupted run: {time.perf_counter() - t0:.1f} s")

        out = tmp / "killed"
        watched = [out / "checkpoint.npz", out / "checkpoint.json"]
        landed = 0
        for i in range(args.kills):
            before = [_stamp(p) for p in watched]
            cmd = [*base, "--out", str(out)] + (["--resume"] if i else [])
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            while proc.poll() is None and [_stamp(p) for p in watched] == before:
                time.sleep(0.0005)
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                print(f"kill {i + 1}: the run ended first (exit {proc.returncode}) {err.strip()[-200:]}")
                break
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            landed += 1
            print(f"kill {i + 1}: SIGKILL just after a checkpoint changed", flush=True)
        done = subprocess.run([*base, "--out", str(out), "--resume"], capture_output=True, text=True, **env_dir)
        if done.returncode != 0:
            print(f"the resumed run failed: {done.stderr.strip()}")
            return 1
        same = _outcome(out) == _outcome(tmp / "full")
        print(f"kills landed: {landed}; final organism and logbook identical to the uninterrupted run: "
              f"{'yes' if same else 'NO'}")
        print(f"identical: {landed if same else 0}/{landed}")
        return 0 if same and landed == args.kills else 1


if __name__ == "__main__":
    sys.exit(main())

"""Hostile files read back, fuzzed: every file mimic writes and later reads, mutated and fed back, in real processes.

    python benchmarks/hostile_inputs.py --runs 20 --jobs 2 [--work DIR] [--seed 0]

Issue 23's table, tried again beyond the tests' crafted cases (tests/test_hostile_files.py, test_readback.py,
test_games_sidecar.py, test_flags.py, test_cache_keys.py assert each crafted case's one line). Each kind of file is
first made by mimic itself (a book, the three net kinds, an organism, a GA checkpoint, the Giraffe trainer's and the
comparator trainer's checkpoints, a game set's sidecar, a label file's sidecar, a recognition clone folder), then
mutated ``--runs`` times (seeded): truncated, bytes overwritten, or — for JSON and ``.npz`` — one key or array
deleted, retyped (null, a string, a list, NaN, 10^12, a nested list) or reshaped; the command that reads it is run
as a process (timeout 120 s; the unmutated files are read back once first, which must succeed and warms the caches).
A run is counted as

* ``traceback``: a Python traceback on stderr (a defect);
* ``hung``: no exit within the timeout (a defect);
* ``refused``: exit 2 with one ``mimic CMD: ...`` line naming the file;
* ``refused (more lines)``: exit 2 with more stderr than one line (worth a look);
* ``accepted``: exit 0 — right when the mutation left a valid file (a changed weight is still a net), so it is
  reported, not judged; the crafted cases that must be refused are the tests' job.

Prints one Markdown row per kind; passes or fails nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from search.runtime.provenance import describe

ROOT = Path(__file__).resolve().parents[1]
MIMIC = [sys.executable, "-m", "evolve.cli"]
TIMEOUT = 120.0


def mimic(*args: object, cwd: Path, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    """``mimic ARGS`` in a process of its own (this checkout's code, one BLAS thread), its output captured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*MIMIC, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env)


# ---------------------------------------------------------------------- mutations
def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Truncated at a random offset, or a random stretch overwritten with random bytes or zeros."""
    if not data:
        return b"\0"
    how = rng.choice(["truncate", "overwrite", "zeros"])
    at = rng.randrange(len(data))
    if how == "truncate":
        return data[:at]
    n = rng.randint(1, min(64, len(data) - at))
    fill = bytes(rng.randrange(256) for _ in range(n)) if how == "overwrite" else b"\0" * n
    return data[:at] + fill + data[at + n:]


ODD_VALUES: list[object] = [None, "x", [], {}, [[[]]], float("nan"), float("inf"), -1, 10**12, 2.5, True, "∞\u2028"]


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every key path inside a JSON value (dict keys and list indexes), the root included."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:8]):
            out += _paths(v, (*prefix, i))
    return out


def mutate_json(text: str, rng: random.Random) -> str:
    """One key deleted or one value (or the whole document) replaced by an odd value."""
    data = json.loads(text)
    path = rng.choice(_paths(data))
    if not path:
        return json.dumps(rng.choice([[data], None, "x", 1]))
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[path[-1]]
    else:
        parent[path[-1]] = rng.choice(ODD_VALUES)
    return json.dumps(data)


def mutate_npz(data: bytes, rng: random.Random) -> bytes:
    """One member deleted, replaced by an array of another dtype or shape, or by a string; or a member's bytes
    mutated; the others kept as they were."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {info.filename: zf.read(info) for info in zf.infolist()}
    name = rng.choice(sorted(members))
    how = rng.choice(["delete", "dtype", "shape", "string", "bytes", "nan"])
    if how == "delete":
        del members[name]
    elif how == "bytes":
        members[name] = mutate_bytes(members[name], rng)
    else:
        with zipfile.ZipFile(io.BytesIO(data)) as zf, zf.open(name) as fh:
            array = np.lib.format.read_array(fh, allow_pickle=False)
        if how == "dtype":
            array = array.astype(rng.choice([np.int8, np.float16, np.complex64, np.bool_])) if array.dtype.kind != "U" \
                else np.zeros(3, np.float32)
        elif how == "shape":
            array = np.resize(array, (rng.randint(0, 3), rng.randint(1, 5))) if array.size else np.zeros((2, 2))
        elif how == "string":
            array = np.array(rng.choice(["", "x", "{}", "[1, 2]", '{"a": null}']))
        elif array.dtype.kind == "f" and array.size:
            array = array.copy()
            array.flat[rng.randrange(array.size)] = rng.choice([np.nan, np.inf, -np.inf])
        else:
            array = np.array([np.nan])
        out = io.BytesIO()
        np.save(out, array, allow_pickle=False)
        members[name] = out.getvalue()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return buf.getvalue()


def mutate_file(path: Path, rng: random.Random) -> None:
    data = path.read_bytes()
    if rng.random() < 0.25:
        path.write_bytes(mutate_bytes(data, rng))
    elif path.suffix == ".json":
        path.write_text(mutate_json(data.decode(), rng))
    elif path.suffix == ".npz":
        path.write_bytes(mutate_npz(data, rng))
    else:
        path.write_bytes(mutate_bytes(data, rng))


# ---------------------------------------------------------------------- kinds
@dataclass
class Kind:
    """A kind of file: ``make(work)`` writes the good files under ``work/NAME`` (once); ``files`` are the ones to
    mutate (paths relative to it); ``command(folder)`` is the argv that reads them back."""

    name: str
    make: Callable[[Path], None]
    files: list[str]
    command: Callable[[Path], list[object]]


def _copy_pgn(dst: Path, games: int) -> Path:
    """The first ``games`` games of Tal's shipped file."""
    text = (ROOT / "data" / "player-games" / "Tal.pgn").read_text(encoding="utf-8", errors="replace")
    parts = text.split("\n[Event ")
    dst.write_text(parts[0] + "".join("\n[Event " + p for p in parts[1:games]))
    return dst


def _make_book(d: Path) -> None:
    _copy_pgn(d / "g.pgn", 6)
    mimic("book", "import", d / "g.pgn", "--out", d / "book.sqlite", "--no-progress", cwd=d).check_returncode()


def _make_nets(d: Path) -> None:
    for name in ("material_net.npz", "material_cmp.npz"):
        shutil.copy(ROOT / "tests" / "data" / name, d / name)


def _make_organism(d: Path) -> None:
    _labels(d)
    mimic("evolve", d / "labels.epd", "--out", d / "run", "--generations", "4", "--population", "8",
          "--checkpoint-every", "2", "--no-progress", cwd=d).check_returncode()


def _labels(d: Path) -> None:
    _copy_pgn(d / "g.pgn", 12)
    mimic("label", "--mentor", "builtin", "--positions", "40", "--source", d / "g.pgn", "--per-game", "4",
          "--out", d / "labels.epd", "--no-progress", cwd=d).check_returncode()


def _make_giraffe(d: Path) -> None:
    _labels(d)
    mimic("train-net", d / "labels.epd", "--out", d / "net", "--units", "2", "2", "2", "--hidden", "4", "--epochs",
          "2", "--td-iterations", "1", "--td-games", "1", "--td-plies", "4", "--td-nodes", "30", "--no-progress",
          cwd=d).check_returncode()


def _make_cmp(d: Path) -> None:
    _copy_pgn(d / "g.pgn", 20)
    mimic("deepchess-data", d / "g.pgn", "--out", d / "data", "--validation", "0.25", "--test", "0.25",
          cwd=d).check_returncode()
    mimic("train-cmp", d / "data", "--out", d / "cmp", "--pos2vec", "8", "--top", "4", "--small-pos2vec", "4",
          "--small-top", "2", "--ae-epochs", "1", "--epochs", "1", "--distill-epochs", "1", "--no-speed",
          cwd=d).check_returncode()


def _make_games(d: Path) -> None:
    mimic("games", "material@depth=1", "expert@depth=1", "--depth", "1", "--games", "1", "--max-plies", "16",
          "--out", d / "g.pgn", cwd=d).check_returncode()


def _make_recognition(d: Path) -> None:
    text = ""
    for player in ("Tal", "Fischer"):
        src = (ROOT / "data" / "player-games" / f"{player}.pgn").read_text(encoding="utf-8", errors="replace")
        text += "\n[Event ".join(src.split("\n[Event ")[:30]) + "\n\n"
    (d / "two.pgn").write_text(text)
    mimic("recognize", "train", d / "two.pgn", "--players", "Tal,Fischer", "--out", d / "clones", "--max-games", "8",
          "--max-held", "4", "--generations", "2", "--population", "6", "--features", "clones,habits,repertoire",
          "--no-progress", cwd=d).check_returncode()


def kinds(work: Path) -> list[Kind]:
    match = ["match", "--games", "2", "--depth", "1", "--max-plies", "12"]
    return [
        Kind("experience book (`+book:`, `deepred:`)", _make_book, ["book.sqlite"],
             lambda d: [*match[:1], "material@depth=1", f"deepred:{d / 'book.sqlite'}", *match[1:]]),
        Kind("experience book as `book import --out`", _make_book, ["book.sqlite"],
             lambda d: ["book", "import", d / "g.pgn", "--out", d / "book.sqlite", "--no-progress"]),
        Kind("net file (`net:`)", _make_nets, ["material_net.npz"],
             lambda d: [*match[:1], f"net:{d / 'material_net.npz'}", "material", *match[1:]]),
        Kind("comparator file (`cmp:`)", _make_nets, ["material_cmp.npz"],
             lambda d: [*match[:1], f"cmp:{d / 'material_cmp.npz'}", "material", *match[1:]]),
        Kind("organism file (`organism:`)", _make_organism, ["run/organism.json"],
             lambda d: [*match[:1], f"organism:{d / 'run' / 'organism.json'}", "material", *match[1:]]),
        Kind("GA checkpoint (`evolve --resume`)", _make_organism, ["run/checkpoint.npz", "run/settings.json"],
             lambda d: ["evolve", d / "labels.epd", "--out", d / "run", "--generations", "6", "--population", "8",
                        "--checkpoint-every", "2", "--no-progress", "--resume"]),
        Kind("Giraffe trainer's checkpoints (`train-net --resume`)", _make_giraffe,
             ["net/bootstrap.npz", "net/td-checkpoint.npz"],
             lambda d: ["train-net", d / "labels.epd", "--out", d / "net", "--units", "2", "2", "2", "--hidden", "4",
                        "--epochs", "2", "--td-iterations", "2", "--td-games", "1", "--td-plies", "4", "--td-nodes",
                        "30", "--no-progress", "--resume"]),
        Kind("comparator trainer's checkpoints (`train-cmp --resume`)", _make_cmp, ["cmp/*.npz", "cmp/*.json"],
             lambda d: ["train-cmp", d / "data", "--out", d / "cmp", "--pos2vec", "8", "--top", "4",
                        "--small-pos2vec", "4", "--small-top", "2", "--ae-epochs", "1", "--epochs", "2",
                        "--distill-epochs", "1", "--no-speed", "--resume"]),
        Kind("game set sidecar (`games --resume`)", _make_games, ["g.pgn.json"],
             lambda d: ["games", "material@depth=1", "expert@depth=1", "--depth", "1", "--games", "2",
                        "--max-plies", "16", "--out", d / "g.pgn", "--resume"]),
        Kind("label sidecar (`label --resume`)", _labels, ["labels.epd.json"],
             lambda d: ["label", "--mentor", "builtin", "--positions", "44", "--source", d / "g.pgn", "--per-game",
                        "4", "--out", d / "labels.epd", "--no-progress", "--resume"]),
        Kind("clone folder (`recognize classify`)", _make_recognition, ["clones/*.json", "clones/classifier.npz"],
             lambda d: ["recognize", "classify", d / "clones", d / "two.pgn", "--no-progress"]),
    ]


def classify(run: subprocess.CompletedProcess[str] | None) -> str:
    if run is None:
        return "hung"
    if "Traceback" in run.stderr:
        return "traceback"
    if run.returncode == 0:
        return "accepted"
    lines = run.stderr.strip().splitlines()
    if run.returncode == 2 and len(lines) == 1 and lines[0].startswith("mimic "):
        return "refused"
    return f"exit {run.returncode}" if run.returncode != 2 else "refused (more lines)"


def trial(kind: Kind, good: Path, work: Path, i: int, seed: int) -> tuple[str, str, str]:
    rng = random.Random(f"{seed}:{kind.name}:{i}")
    folder = work / f"t{i}"
    shutil.copytree(good, folder, symlinks=True)
    files = sorted(p for pattern in kind.files for p in folder.glob(pattern))
    target = rng.choice(files)
    mutate_file(target, rng)
    try:
        run: subprocess.CompletedProcess[str] | None = mimic(*kind.command(folder), cwd=folder, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        run = None
    verdict = classify(run)
    detail = "" if run is None else (run.stderr.strip().splitlines() or [""])[-1][:300]
    shutil.rmtree(folder, ignore_errors=True)
    return verdict, str(target.relative_to(folder)), detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="mutations per kind")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--only", default=None, help="only kinds whose name contains this")
    parser.add_argument("--show", action="store_true", help="print every traceback's and odd exit's last line")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="hostile-"))
    print(f"hostile read-back fuzzing: {args.runs} mutations per kind, seed {args.seed}, work {work}; {describe()}\n")
    print("| file (command reading it) | runs | tracebacks | hung | refused in one line | other refusals "
          "| accepted |")
    print("|---|---|---|---|---|---|---|")
    made: dict[Callable[[Path], None], Path] = {}
    for kind in kinds(work):
        if args.only and args.only not in kind.name:
            continue
        if kind.make not in made:
            good = work / kind.make.__name__.strip("_")
            good.mkdir(parents=True, exist_ok=True)
            kind.make(good)
            made[kind.make] = good
        good = made[kind.make]
        scratch = work / "trials" / kind.make.__name__.strip("_")
        scratch.mkdir(parents=True, exist_ok=True)
        warm = scratch / "warm"  # the unmutated files, read back once: they must pass, and caches are then warm
        shutil.copytree(good, warm, symlinks=True, dirs_exist_ok=True)
        check = mimic(*kind.command(warm), cwd=warm)
        if check.returncode != 0:
            print(f"| {kind.name} | the unmutated files fail: {check.stderr.strip()[-300:]} |", flush=True)
            continue
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda i, k=kind, g=good, s=scratch: trial(k, g, s, i, args.seed),
                                    range(args.runs)))
        tally = Counter(v for v, _, _ in results)
        other = sum(n for v, n in tally.items() if v.startswith("exit") or v == "refused (more lines)")
        print(f"| {kind.name} | {len(results)} | {tally['traceback']} | {tally['hung']} | {tally['refused']} | "
              f"{other} | {tally['accepted']} |", flush=True)
        if args.show:
            for verdict, target, detail in results:
                if verdict not in ("refused", "accepted"):
                    print(f"    {verdict}: {target}: {detail}", flush=True)


if __name__ == "__main__":
    main()

"""Hardening of runs: checkpoints that change as one unit, PGN games written whole, validated files,
verified caches, and one-line errors instead of tracebacks."""

from __future__ import annotations

import copy
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess
import numpy as np
import pytest

from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.objectives import MentorLoss
from mentor.samplers import random_playouts
from organisms.feature_cache import save_npz_atomic
from organisms.genome import default_genome, rich_genome
from organisms.net import read_net_file, write_net_file
from organisms.organism import Organism

from .conftest import CliRunner, mimic_command

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "data"

# A GA run on synthetic data (seeded random features and targets): starts in about a second, so a
# test can kill and resume it several times. argv: checkpoint path, generations, output .npy.
GA_DRIVER = """
import sys
from pathlib import Path
import numpy as np
from evolve.ga.evolution import Evolution, GASettings, checkpoint_exists
from evolve.ga.objectives import MentorLoss
from organisms.genome import default_genome

checkpoint, generations, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
rng = np.random.default_rng(7)
genome = default_genome()
features = rng.normal(size=(400, len(genome)))
y = features @ genome.decode(genome.random_bits(rng))[0]
settings = GASettings(population=40, generations=generations, sample=100, seed=3)
ev = Evolution(genome, MentorLoss(features, y), np.arange(300), np.arange(300, 400), settings)
if checkpoint_exists(checkpoint):
    ev.load(checkpoint)
ev.run(checkpoint=checkpoint, every=1)
np.save(out, np.concatenate([ev.population.reshape(-1), ev.winner()[0]]))
"""


def _run_driver(checkpoint: Path, generations: int, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", GA_DRIVER, str(checkpoint), str(generations), str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def kill_after_checkpoints(checkpoint: Path, generations: int, out: Path, kills: int) -> int:
    """Run the driver, SIGKILL it as soon as a checkpoint file changes, resume; ``kills`` times, then
    let it finish. Returns the number of kills that landed (a run may finish first)."""
    landed = 0
    watched = [checkpoint.with_suffix(".npz"), checkpoint.with_suffix(".json")]
    for _ in range(kills):
        before = [_stamp(p) for p in watched]
        proc = _run_driver(checkpoint, generations, out)
        while proc.poll() is None and [_stamp(p) for p in watched] == before:
            time.sleep(0.0005)
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        landed += 1
    proc = _run_driver(checkpoint, generations, out)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    return landed


def test_killed_just_after_checkpoints_resumes_bit_identical(tmp_path: Path) -> None:
    # 3 kills, each the moment a checkpoint file changes; the finished run equals an uninterrupted one.
    generations = 60
    full = _run_driver(tmp_path / "full" , generations, tmp_path / "full.npy")
    assert full.wait(timeout=120) == 0
    landed = kill_after_checkpoints(tmp_path / "ck", generations, tmp_path / "killed.npy", kills=3)
    assert landed == 3
    assert np.array_equal(np.load(tmp_path / "killed.npy"), np.load(tmp_path / "full.npy"))


# ---------------------------------------------------------------------- crafted checkpoints
def _small_evolution(generations: int = 6) -> Evolution:
    rng = np.random.default_rng(7)
    genome = default_genome()
    features = rng.normal(size=(120, len(genome)))
    y = features @ genome.decode(genome.random_bits(rng))[0]
    settings = GASettings(population=10, generations=generations, sample=50, seed=3, hall_of_fame=4)
    return Evolution(genome, MentorLoss(features, y), np.arange(100), np.arange(100, 120), settings)


def _saved_checkpoint(tmp_path: Path) -> tuple[dict[str, np.ndarray], dict]:
    ev = _small_evolution()
    ev.run(until=4)
    ev.save(tmp_path / "good")
    with np.load(tmp_path / "good.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return arrays, json.loads(str(arrays.pop("meta")))


def _write(path: Path, arrays: dict[str, np.ndarray], meta: object | None) -> None:
    extra = {} if meta is None else {"meta": np.array(json.dumps(meta))}
    np.savez(path.with_suffix(".npz"), **arrays, **extra)


def _crafted(arrays: dict[str, np.ndarray], meta: dict) -> dict[str, tuple[dict[str, np.ndarray], object]]:
    """Name -> (arrays, meta) of a checkpoint broken in one way."""
    cases: dict[str, tuple[dict[str, np.ndarray], object]] = {}

    def with_meta(name: str, **changes: object) -> None:
        m = copy.deepcopy(meta)
        for k, v in changes.items():
            if v is _DROP:
                m.pop(k)
            else:
                m[k] = v
        cases[name] = (arrays, m)

    def with_array(name: str, key: str, value: np.ndarray | None) -> None:
        a = dict(arrays)
        if value is None:
            a.pop(key)
        else:
            a[key] = value
        cases[name] = (a, meta)

    for key in meta:
        with_meta(f"missing {key}", **{key: _DROP})
    with_meta("generation negative", generation=-3)
    with_meta("generation huge", generation=10**12)
    with_meta("generation a string", generation="4")
    with_meta("generation a float", generation=4.0)
    with_meta("elapsed NaN-like", elapsed="nan")
    with_meta("elapsed negative", elapsed=-1.0)
    with_meta("format other", format=99)
    with_meta("settings a list", settings=[1, 2])
    with_meta("settings population a string", settings={**meta["settings"], "population": "10"})
    with_meta("settings population 1", settings={**meta["settings"], "population": 1})
    with_meta("settings missing key", settings={k: v for k, v in meta["settings"].items() if k != "seed"})
    with_meta("genome a string", genome="abc")
    with_meta("genome genes as ints", genome=[1, 2, 3])
    with_meta("genome bits a string", genome=[{**meta["genome"][0], "bits": "10"}, *meta["genome"][1:]])
    with_meta("encoding unknown", encoding="octal")
    with_meta("rng a list", rng_ops=[1, 2])
    with_meta("rng of another generator", rng_ops={**meta["rng_ops"], "bit_generator": "MT19937"})
    with_meta("rng state a string", rng_sample={**meta["rng_sample"], "state": "x"})
    with_meta("logbook short", logbook=meta["logbook"][:-1])
    with_meta("logbook a dict", logbook={"gen": 0})
    with_meta("logbook record wrong", logbook=[*meta["logbook"][:-1], {"gen": "x"}])
    # Issue 36: a NaN in the curve was accepted; so is held_out_cp allowed only in every record or none.
    with_meta("logbook mean NaN", logbook=[{**meta["logbook"][0], "mean": float("nan")}, *meta["logbook"][1:]])
    with_meta("logbook held_out_cp in one record", logbook=[*meta["logbook"][:-1],
                                                            {**meta["logbook"][-1], "held_out_cp": 3.0}])
    cases["meta a list"] = (arrays, [1, 2])
    cases["meta deep nesting"] = (arrays, None)  # replaced below by raw text
    n, bits = arrays["population"].shape
    with_array("population missing", "population", None)
    with_array("population short", "population", arrays["population"][:-1])
    with_array("population values 2", "population", arrays["population"] * 2)
    with_array("population NaN", "population", np.full((n, bits), np.nan))
    with_array("population strings", "population", np.full((n, bits), "1"))
    with_array("losses short", "losses", arrays["losses"][:3])
    with_array("losses NaN", "losses", np.full(n, np.nan))
    with_array("losses missing", "losses", None)
    with_array("hof bits wrong width", "hof_bits", arrays["hof_bits"][:, :-1])
    with_array("hof losses short", "hof_losses", arrays["hof_losses"][:-1])
    with_array("hof losses 2-d", "hof_losses", arrays["hof_losses"][:, None])
    with_array("hof missing", "hof_bits", None)
    return cases


_DROP = object()


def test_crafted_checkpoints_are_refused_with_one_clear_line(tmp_path: Path) -> None:
    arrays, meta = _saved_checkpoint(tmp_path)
    cases = _crafted(arrays, meta)
    for i, (name, (a, m)) in enumerate(cases.items()):
        path = tmp_path / f"case{i}"
        if name == "meta deep nesting":
            np.savez(path.with_suffix(".npz"), **a, meta=np.array("[" * 100_000 + "]" * 100_000))
        else:
            _write(path, a, m)
        ev = _small_evolution()
        with pytest.raises(ValueError) as info:
            ev.load(path)
        message = str(info.value)
        assert message.startswith(str(path)), (name, message)
        assert "\n" not in message, (name, message)
        assert ev.generation == -1, name  # nothing restored
    # Not a zip, an empty file, a truncated file, an empty npz, a directory.
    good = (tmp_path / "good.npz").read_bytes()
    for name, content in (("text", b"hello"), ("empty", b""), ("truncated", good[: len(good) // 2])):
        (tmp_path / f"{name}.npz").write_bytes(content)
    np.savez(tmp_path / "emptyz.npz")
    (tmp_path / "adir.npz").mkdir()
    for name in ("text", "empty", "truncated", "emptyz", "adir", "nothing"):
        with pytest.raises(ValueError, match=f"^{tmp_path / name}"):
            _small_evolution().load(tmp_path / name)
    # The good one loads. Cases: one per metadata key dropped (9), 23 bad metadata values, 2 bad
    # metadata texts, 12 bad arrays; plus the 6 broken files above: 52 in all.
    _small_evolution().load(tmp_path / "good")
    assert len(cases) == len(meta) + 37 == 46


def test_checkpoint_of_the_first_format_still_loads(tmp_path: Path) -> None:
    # Format 1 was checkpoint.npz (arrays) + checkpoint.json (the rest); a run saved so resumes as before.
    arrays, meta = _saved_checkpoint(tmp_path)
    np.savez(tmp_path / "old.npz", **arrays)
    (tmp_path / "old.json").write_text(json.dumps({**meta, "format": 1}))
    ev = _small_evolution()
    ev.load(tmp_path / "old")
    assert ev.generation == 4
    ev.run(checkpoint=tmp_path / "old", every=1)
    assert not (tmp_path / "old.json").exists()  # the stale half is removed once format 2 is written
    fresh = _small_evolution()
    fresh.run()
    assert np.array_equal(ev.population, fresh.population)


# ---------------------------------------------------------------------- one-line errors from the CLI
def _labels(path: Path, n: int = 60) -> Path:
    """``n`` labels of random-playout positions scored by material (centipawns, side to move)."""
    values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}
    lines = []
    for sample in random_playouts(n, 5, min_plies=4, max_plies=60):
        b = sample.board
        score = sum(v * (len(b.pieces(p, b.turn)) - len(b.pieces(p, not b.turn))) for p, v in values.items())
        lines.append(f'{b.epd()} ce {score}; acd 1; id "p{len(lines)}";\n')
    path.write_text("".join(lines))
    return path


def _file_limit(max_bytes: int) -> Callable[[], None]:
    """A preexec_fn making every file of the child at most ``max_bytes`` long, as a full disk would."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, resource.RLIM_INFINITY))

    return limit


def _one_line_error(run: subprocess.CompletedProcess[str], names: str | Path) -> str:
    """The run failed with exactly one error line (warnings aside) naming ``names``, no traceback."""
    assert run.returncode != 0, run.stdout
    assert "Traceback" not in run.stderr, run.stderr
    lines = [ln for ln in run.stderr.splitlines()
             if not ln.startswith(("warning", "usage:", " ")) and ln.strip()]
    assert len(lines) == 1, run.stderr
    assert str(names) in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def mimic(cli: CliRunner) -> CliRunner:
    """``mimic(*args, limit=None, cwd=ROOT, env=None)``: the command run in-process, or, with a file size
    ``limit`` (a resource limit, which would also stop pytest's own writes), in a real process."""

    def run(*args: str | Path, limit: int | None = None, cwd: Path = ROOT, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
        if limit is None:
            return cli(*args, cwd=cwd, env=env)
        return subprocess.run(mimic_command(*map(str, args)), capture_output=True, text=True, cwd=cwd, timeout=120,
                              preexec_fn=_file_limit(limit), env={**os.environ, **(env or {})})

    return run


def test_unreadable_inputs_give_one_line(mimic: CliRunner, tmp_path: Path) -> None:
    missing, folder, loop = tmp_path / "missing.epd", tmp_path / "folder.epd", tmp_path / "loop.epd"
    folder.mkdir()
    loop.symlink_to(tmp_path / "loop2.epd")
    (tmp_path / "loop2.epd").symlink_to(loop)
    for bad in (missing, folder, loop):
        _one_line_error(mimic("match", "material", "random:1", "--depth", "1", "--games", "2", "--openings", bad),
                        bad)
        _one_line_error(mimic("suite", bad, "--engine", "material", "--movetime", "0.05"), bad)
    _one_line_error(mimic("suite", BENCH / "wac.epd", "--engine", "uci:./no-such-engine", "--limit", "1"),
                    "./no-such-engine")


def test_bad_counts_are_refused_by_the_parser(mimic: CliRunner, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "l.epd", 20)
    for args in (("match", "material", "random:1", "--jobs", "0"),
                 ("suite", BENCH / "wac.epd", "--engine", "material", "--jobs", "0"),
                 ("fit", labels, "--jobs", "0"),
                 ("evolve", labels, "--out", tmp_path / "e", "--jobs", "0"),
                 ("evolve", labels, "--out", tmp_path / "e", "--checkpoint-every", "0"),
                 ("match", "material", "random:1", "--games", "0"),
                 ("label", "--mentor", "builtin", "--out", tmp_path / "x.epd", "--jobs", "0"),
                 ("demo", "--out", tmp_path / "d", "--jobs", "0")):
        assert "must be at least 1" in _one_line_error(mimic(*args), "argument")
    for args in (("--population", "1"), ("--elite", "100"), ("--sample", "0"), ("--seed", "-1"),
                 ("--tournament", "0")):
        line = _one_line_error(mimic("evolve", labels, "--out", tmp_path / "e", *args), "mimic evolve")
        assert "need" in line or "seed" in line
    assert not (tmp_path / "e" / "checkpoint.npz").exists()


def test_unwritable_outputs_give_one_line(mimic: CliRunner, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "l.epd")
    cache = {"MIMIC_CACHE": str(tmp_path / "cache")}
    folder = tmp_path / "folder"
    folder.mkdir()
    match = ("match", "material@depth=1", "random:1@depth=1", "--depth", "1", "--games", "2")
    suite = ("suite", BENCH / "wac.epd", "--engine", "material", "--movetime", "0.02", "--limit", "8",
             "--no-progress")
    # Output is a directory.
    _one_line_error(mimic(*match, "--pgn", folder), folder)
    _one_line_error(mimic(*suite, "--csv", folder), folder)
    _one_line_error(mimic("fit", labels, "--target", "root", "--out", folder, env=cache), folder)
    # A full disk: every file stops at 300 bytes (a PGN game, 8 CSV rows and an organism are longer).
    _one_line_error(mimic(*match, "--pgn", tmp_path / "full.pgn", limit=300), tmp_path / "full.pgn")
    assert (tmp_path / "full.pgn").read_bytes() == b""  # no torn game
    _one_line_error(mimic(*suite, "--csv", tmp_path / "full.csv", limit=300), tmp_path / "full.csv")
    _one_line_error(mimic("fit", labels, "--target", "root", "--out", tmp_path / "full.json", limit=300,
                           env=cache), tmp_path / "full.json")
    assert not (tmp_path / "full.json").exists()  # no torn organism file


def _read_only_folder(ro: Path) -> bool:
    """Make ``ro`` a folder this process cannot write into: chmod as a user; as root, whom chmod does not
    stop, a read-only tmpfs mount (False where mounting is not permitted)."""
    ro.mkdir()
    if os.geteuid() != 0:
        ro.chmod(0o555)
        return True
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)],
                          capture_output=True).returncode == 0


def test_read_only_directory_gives_one_line(mimic: CliRunner, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "l.epd")
    # Where no file can be made: a folder "under" a regular file (NotADirectoryError, for root too, so this
    # runs everywhere), and a read-only folder where one can be made (not as root without mount rights).
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    targets = [blocker / "sub"]
    ro = tmp_path / "ro"
    if _read_only_folder(ro):
        targets.append(ro)
    try:
        for where in targets:
            _one_line_error(mimic("match", "material@depth=1", "random:1@depth=1", "--depth", "1", "--games", "2",
                                  "--pgn", where / "m.pgn"), where / "m.pgn")
            _one_line_error(mimic("suite", BENCH / "wac.epd", "--engine", "material", "--movetime", "0.02",
                                  "--limit", "2", "--csv", where / "s.csv"), where / "s.csv")
            _one_line_error(mimic("fit", labels, "--target", "root", "--out", where / "o.json",
                                  env={"MIMIC_CACHE": str(tmp_path / "cache")}), where / "o.json")
        assert blocker.read_text() == "a file, not a folder"
    finally:
        if len(targets) == 2 and os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=True)
        elif len(targets) == 2:
            ro.chmod(0o755)


# ---------------------------------------------------------------------- workers leave with their parent
def _children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except FileNotFoundError:
        return set()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to list child processes")
@pytest.mark.parametrize("command", [
    ("match", "material", "random:1", "--games", "20", "--jobs", "2", "--movetime", "0.2", "--pgn", "{tmp}/m.pgn"),
    ("label", "--mentor", "builtin", "--depth", "3", "--positions", "400", "--jobs", "2", "--out", "{tmp}/l.epd"),
], ids=["match", "label"])
def test_workers_of_a_killed_parallel_run_exit_promptly(tmp_path: Path, command: tuple[str, ...]) -> None:
    # Before: the two loky workers of a SIGKILLed `match --jobs 2` (or `label --mentor builtin --jobs 2`)
    # lived on for minutes (joblib's 300 s idle timeout, then 30 s waiting for the dead parent). Now they
    # leave within a few seconds.
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    # A real process: the test SIGKILLs it and watches its workers in /proc.
    proc = subprocess.Popen(mimic_command(*args), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while len(_children(proc.pid)) < 3 and time.monotonic() - t0 < 60:  # two workers and joblib's tracker
        time.sleep(0.05)
    time.sleep(1.0)  # both workers at work
    workers = _children(proc.pid)
    assert len(workers) >= 2
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    t_kill = time.monotonic()
    while any(_alive(w) for w in workers) and time.monotonic() - t_kill < 10:
        time.sleep(0.05)
    lingering = [w for w in workers if _alive(w)]
    for w in lingering:
        os.kill(w, signal.SIGKILL)
    assert not lingering, f"{len(lingering)} of {len(workers)} children still alive 10 s after the parent died"


def test_crafted_checkpoint_and_organism_files_give_one_line_from_the_cli(mimic: CliRunner, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "l.epd", 40)
    out = tmp_path / "run"
    args = ("evolve", labels, "--out", out, "--generations", "3", "--population", "10", "--sample", "20",
            "--target", "root", "--no-progress")
    cache = {"MIMIC_CACHE": str(tmp_path / "cache")}
    assert mimic(*args, env=cache).returncode == 0
    with np.load(out / "checkpoint.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    _write(out / "checkpoint", arrays, {**meta, "generation": -1})
    line = _one_line_error(mimic(*args, "--generations", "5", "--resume", env=cache), out / "checkpoint.npz")
    assert "generation" in line
    organism = tmp_path / "o.json"
    organism.write_text(json.dumps({"format": "mimic-organism", "feature_version": 1, "genes": [1, 2]}))
    _one_line_error(mimic("match", f"organism:{organism}", "material", "--depth", "1", "--games", "2"), organism)


def test_a_first_format_checkpoint_torn_between_its_files_is_refused(tmp_path: Path) -> None:
    # What a kill between the two replaces of the first format left: generation 5's arrays beside
    # generation 4's JSON. The logbook's last best loss (generation 4) is not the least of the losses.
    ev = _small_evolution()
    ev.run(until=4)
    ev.save(tmp_path / "four")
    ev.run(until=5)
    ev.save(tmp_path / "five")
    with np.load(tmp_path / "four.npz", allow_pickle=False) as data:
        meta4 = json.loads(str(data["meta"]))
    with np.load(tmp_path / "five.npz", allow_pickle=False) as data:
        arrays5 = {k: data[k] for k in data.files if k != "meta"}
    assert float(arrays5["losses"].min()) != meta4["logbook"][-1]["best"]
    np.savez(tmp_path / "torn.npz", **arrays5)
    (tmp_path / "torn.json").write_text(json.dumps({**meta4, "format": 1}))
    with pytest.raises(ValueError, match="mixed from two generations"):
        _small_evolution().load(tmp_path / "torn")


def test_a_full_disk_during_an_atomic_write_names_the_file(tmp_path: Path) -> None:
    # A write to a full disk raises EFBIG / ENOSPC with no file name (as `mimic label` met writing its sidecar):
    # the one atomic writer gives the exception its target, so the command's one line names the file, and the
    # target is left as it was (here: absent) with no temporary file beside it.
    import errno

    from evolve.cli.common import os_error
    from search.runtime.atomic import atomic_path

    target = tmp_path / "labels.epd.json"
    with pytest.raises(OSError) as caught, atomic_path(target) as tmp:
        tmp.write_text("{")
        raise OSError(errno.EFBIG, "File too large")
    assert caught.value.filename == str(target)
    assert os_error(caught.value) == f"{target}: File too large"
    assert list(tmp_path.iterdir()) == []
    # An error that names its own file keeps it (a folder that cannot be made, a missing input).
    with pytest.raises(OSError) as named, atomic_path(tmp_path / "x.txt"):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/elsewhere/input.pgn")
    assert named.value.filename == "/elsewhere/input.pgn"


# Files written whole or not at all (issue 22's one atomic writer): an organism, a net file, a cache entry.
def _limited(limit: int, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python process whose files may not grow past ``limit`` bytes: a write past it fails
    with EFBIG ("File too large") midway, as on a full disk."""
    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          preexec_fn=limit_files)


def test_a_failing_organism_save_leaves_the_old_file_and_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "o.json"
    old = Organism.random(1)
    old.save(path)
    before = path.read_bytes()
    # The same bytes as before the one writer: the JSON text and one newline, UTF-8.
    assert before == (old.to_json() + "\n").encode("utf-8")
    rich = Organism.random(2, rich_genome())
    assert len(rich.to_json()) > 2 * len(before)  # so a limit of 1.5 x the old file fails the new one midway
    run = _limited(len(before) * 3 // 2, "from organisms.organism import Organism\n"
                   "from organisms.genome import rich_genome\n"
                   f"Organism.random(2, rich_genome()).save({str(path)!r})\n")
    assert run.returncode != 0 and "File too large" in run.stderr and str(path) in run.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]
    assert Organism.load(path).values() == old.values()


class _Unreadable:
    """An object numpy cannot turn into an array: ``np.savez`` fails when it reaches it."""

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        raise ValueError("this array cannot be serialised")


def test_a_failing_net_write_leaves_the_old_file_and_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "net.npz"
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, dtype=np.float32)}
    write_net_file(path, arrays, {"format": "test", "z": 1, "a": [1, 2]})
    before = path.read_bytes()
    read, header = read_net_file(path)
    assert header == {"format": "test", "z": 1, "a": [1, 2]}
    assert read.keys() == arrays.keys() and all(np.array_equal(read[k], arrays[k]) for k in arrays)
    with np.load(path, allow_pickle=False) as data:  # the header is stored as JSON with sorted keys, as before
        assert str(data["header"]) == json.dumps({"format": "test", "z": 1, "a": [1, 2]}, sort_keys=True)
    # "a" is written into the archive, then "b" fails: the half-written file is removed, the old one kept.
    with pytest.raises(ValueError, match="cannot be serialised"):
        write_net_file(path, {"a": np.zeros((300, 300), dtype=np.float32), "b": _Unreadable()}, {"format": "x"})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]


def test_a_cache_file_that_cannot_be_written_is_skipped_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "k.npz"
    assert save_npz_atomic(path, {"features": np.zeros((2, 3), dtype=np.float32)})
    before = path.read_bytes()
    # Its folder replaced by a file: nothing can be written there, and nothing is left half-written.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    assert not save_npz_atomic(blocked / "k.npz", {"features": np.ones(3)})
    # A write that fails midway (the file may not grow past 4 KB; 40 KB of zeros do not compress below it
    # in an uncompressed .npz): False, the old file unchanged, no temporary file.
    run = _limited(4096, "import numpy as np\nfrom pathlib import Path\n"
                   "from organisms.feature_cache import save_npz_atomic\n"
                   f"print(save_npz_atomic(Path({str(path)!r}), {{'features': np.zeros(10000, dtype=np.float32)}}))\n")
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["k.npz"]


def test_td_checkpoint_is_written_whole(tmp_path: Path) -> None:
    from evolve.nets.tdleaf import save_checkpoint
    from organisms.net import read_net_file

    path = tmp_path / "td-checkpoint.npz"
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3)}
    save_checkpoint(path, arrays, {"td_iteration": 3, "td_curve": []})
    save_checkpoint(path, {"w": arrays["w"] + 1}, {"td_iteration": 4, "td_curve": []})  # replaces the first
    got, header = read_net_file(path)
    np.testing.assert_array_equal(got["w"], arrays["w"] + 1)
    assert header["td_iteration"] == 4
    assert [p.name for p in tmp_path.iterdir()] == ["td-checkpoint.npz"]

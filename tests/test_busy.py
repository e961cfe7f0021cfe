"""One run at a time on one output (search/runtime/busy.py): a second ``mimic label``, ``mimic datagen`` or any other
command with ``--resume`` on a file or folder another process is writing is refused before it reads, repairs or
appends anything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from search.runtime.busy import OutputBusy, exclusive, lock_path

from .conftest import run_mimic

# A real second process holds the lock (flock locks belong to an open file of a process) until its stdin closes.
HOLDER = ("import sys; from search.runtime.busy import exclusive\n"
          "with exclusive(sys.argv[1]):\n    print('held', flush=True); sys.stdin.read()\n")


def _hold(out: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0


def test_a_held_output_is_refused_and_free_again_when_its_run_ends(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "labels.epd"  # the folder is made with the lock, as the label writer would
    holder = _hold(out)
    try:
        said = f"{out}: another mimic run (process {holder.pid}) is writing it"
        with pytest.raises(OutputBusy, match=re.escape(said)), exclusive(out):
            pass
    finally:
        _release(holder)
    assert not lock_path(out).exists()  # the run that held it removed its lock file
    with exclusive(out):  # free again, and taken by this process now
        assert lock_path(out).read_text() == f"{os.getpid()}\n"
    assert not lock_path(out).exists()


def test_a_killed_holder_leaves_a_stale_lock_file_that_the_next_run_takes(tmp_path: Path) -> None:
    out = tmp_path / "labels.epd.gz"
    holder = _hold(out)
    holder.kill()
    holder.wait(timeout=30)
    assert lock_path(out).exists()  # SIGKILL: no clean-up, but the kernel dropped the lock with the process
    with exclusive(out):
        pass
    assert not lock_path(out).exists()


@pytest.mark.parametrize("command", [
    ["label", "--mentor", "builtin", "--depth", "1", "--positions", "4", "--seed", "1", "--no-progress"],
    ["datagen", "--mentor", "builtin", "--depth", "1", "--positions", "4", "--seed", "1", "--no-progress"],
])
def test_label_and_datagen_refuse_a_file_another_run_is_writing(tmp_path: Path, command: list[str]) -> None:
    out = tmp_path / "labels.epd"
    first = run_mimic(*command, "--out", out)
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    more = str(before.count(b"\n") + 1)  # one label more than the file holds (datagen writes whole games)
    holder = _hold(out)  # as if a first run were still writing it
    try:
        again = run_mimic(*command, "--positions", more, "--out", out, "--resume")
    finally:
        _release(holder)
    assert again.returncode == 2 and f"{out}: another mimic run (process {holder.pid}) is writing it" in again.stderr
    assert out.read_bytes() == before  # nothing read-repaired, nothing appended
    done = run_mimic(*command, "--positions", more, "--out", out, "--resume")  # the holder gone: it resumes
    assert done.returncode == 0, done.stderr
    assert out.read_bytes().startswith(before) and len(out.read_bytes()) > len(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.epd", "labels.epd.json"]  # no lock file left


# Every other resumable command holds what it writes as it goes (evolve.cli.OUTPUTS) from before it starts: a second
# run is refused at once, and the output another run is writing is left byte for byte as it was. The file or folder
# stands in for a first run's; what it holds does not matter, as the refusal comes before it is read.
@pytest.mark.parametrize(("command", "flag", "name"), [
    (["match", "expert", "material", "--games", "2", "--nodes", "50"], "--pgn", "games.pgn"),
    (["suite", "benchmarks/data/sts-v3.epd", "--engine", "expert@nodes=50"], "--csv", "sts.csv"),
    (["games", "expert", "material", "--games", "2", "--nodes", "50"], "--out", "games.pgn"),
    (["evolve", "labels.epd", "--generations", "2"], "--out", "run"),
    (["train-pnet", "labels.epd", "--epochs", "1"], "--out", "net"),
])
def test_a_resumable_command_refuses_an_output_another_run_is_writing(tmp_path: Path, command: list[str], flag: str,
                                                                      name: str) -> None:
    out = tmp_path / name
    if name.endswith((".pgn", ".csv")):
        out.write_text("written by the first run\n")
    else:
        out.mkdir()
        (out / "checkpoint.npz").write_bytes(b"written by the first run")
    before = sorted((p.name, p.read_bytes()) for p in ([out] if out.is_file() else out.iterdir()))
    holder = _hold(out)
    try:
        again = run_mimic(*command, flag, out, "--resume", cwd=Path(__file__).parents[1])
    finally:
        _release(holder)
    assert again.returncode == 2 and f"{out}: another mimic run (process {holder.pid}) is writing it" in again.stderr
    assert again.stdout == ""  # refused before it printed (or began) anything
    assert sorted((p.name, p.read_bytes()) for p in ([out] if out.is_file() else out.iterdir())) == before

"""Shared fixtures: how to run ``mimic`` (in-process or as a process), where Stockfish is, and a private
feature/label cache (``$MIMIC_CACHE``) for the whole session, so no test reads or writes ``~/.cache/mimic``."""

from __future__ import annotations

import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path

import chess
import pytest

DATA = Path(__file__).parent / "data"
_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Point ``$MIMIC_CACHE`` at a fresh folder for the session (inherited by the processes tests start)."""
    _CACHE.append(os.environ.get("MIMIC_CACHE", ""))
    # The compiled core's numba cache stays where `make` warmed it (search/core/jit.py puts it under the cache root
    # unless NUMBA_CACHE_DIR is set): a fresh cache root per session must not recompile the core in every session.
    from search.runtime.cachekey import cache_root

    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_root() / "numba"))
    os.environ["MIMIC_CACHE"] = tempfile.mkdtemp(prefix="mimic-test-cache-")
    # Processes the tests start (some under a file-size limit, to fill the disk) read this session's compiled
    # files but write none, and take no optional git lock (provenance runs `git status`): a child stopped by
    # the limit must not leave a truncated .pyc or index.lock in the checkout.
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["GIT_OPTIONAL_LOCKS"] = "0"
    # One BLAS thread in this process and every process it starts (xdist's workers too): the tests' products
    # are small, and two BLAS threads per worker on two busy cores wait on each other (evolve/ga/blas.py). The
    # IRLS fit of tests/test_scale.py took 12 s of CPU with two threads under load, 0.3 s with one; the same bits.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    if "numpy" in sys.modules:  # already loaded: the variable is read at load time
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")


HEAVY_FIRST = ("test_recognition_replay", "test_deepchess", "test_search_correctness", "test_recognize", "test_match",
               "test_evolve", "test_mentor", "test_mentor_failures", "test_match_resume", "test_runs", "test_moves",
               "test_prob", "test_resume_integrity", "test_term_hostile", "test_init_import", "test_core_giraffe",
               "test_pnet_train", "test_games", "test_user_terms", "test_labels", "test_core_eval", "test_core_board",
               "test_readback", "test_cluster", "test_core_pnet", "test_tournament", "test_export", "test_book",
               "test_engine", "test_net")
"""Test files by CPU time, the heaviest first (``--durations=0`` summed per file, November 2026; the files of issues
61-63 placed by their own durations). ``make test`` runs pytest-xdist with whole files per worker in collection order
(``--dist loadfile --no-loadscope-reorder``; xdist's own reordering puts files with many tests first, which left the
heaviest few-test files to the end, one worker finishing them alone). Taking the longest jobs first balances the two
workers. A stale list only costs balance."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the collected tests by :data:`HEAVY_FIRST` (the files listed first, in its order, then the others in
    collection order); the tests of a file keep their order."""
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: the rest keep their order


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _CACHE:
        return
    shutil.rmtree(os.environ["MIMIC_CACHE"], ignore_errors=True)
    before = _CACHE.pop()
    if before:
        os.environ["MIMIC_CACHE"] = before
    else:
        os.environ.pop("MIMIC_CACHE", None)


def _python_default_warning_filters() -> None:
    """The filters a fresh ``python -m evolve.cli`` starts with (no -W, no PYTHONWARNINGS)."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (ImportWarning, ResourceWarning, PendingDeprecationWarning, DeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")


def _print_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                   file: object = None, line: str | None = None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _torch_threads() -> int | None:
    """torch's intra-op thread count, if torch is imported."""
    torch = sys.modules.get("torch")
    return None if torch is None else int(torch.get_num_threads())


CliRunner = Callable[..., "subprocess.CompletedProcess[str]"]


def run_mimic(*args: object, cwd: str | Path | None = None, env: Mapping[str, str] | None = None,
              check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``mimic ARGS`` in this process; return a ``CompletedProcess`` with the exit code and what the
    command printed, as ``subprocess.run(mimic_command(*args), capture_output=True, text=True)`` would.

    Saves the 0.5 s of imports a new process costs. What a process would start afresh is restored around
    the run: ``sys.argv`` (provenance quotes it), the working folder, environment variables (``env`` is
    added to this process's), the warning filters and printer (warnings go to stderr, as in a process, not
    to pytest's record), ``warnings.formatwarning`` (``main`` sets its own) and torch's thread count. An argparse error
    (``SystemExit``) becomes the exit code; any other exception propagates (a process would print a
    traceback, which every test here refuses anyway). Use a real process (:func:`mimic_command`) only where
    the test needs one: a signal or kill, stdin, a resource limit, or ``python -m`` itself."""
    from evolve.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        patch.setattr(sys, "argv", ["mimic", *argv])
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        patch.setattr(warnings, "formatwarning", warnings.formatwarning)
        patch.setattr(warnings, "showwarning", _print_warning)
        _python_default_warning_filters()
        if cwd is not None:
            patch.chdir(cwd)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        threads = _torch_threads()
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors, and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
        finally:
            if threads is not None:  # the nets' commands set torch's thread count for their process
                sys.modules["torch"].set_num_threads(threads)
    done = subprocess.CompletedProcess(["mimic", *argv], code, out.getvalue(), err.getvalue())
    if check:
        done.check_returncode()
    return done


@pytest.fixture
def cli() -> CliRunner:
    """:func:`run_mimic`: ``cli(*args, cwd=None, env=None, check=False)``."""
    return run_mimic


def mimic_uci_command(*args: str) -> list[str]:
    """The command that starts ``mimic uci`` with this interpreter (no reliance on PATH)."""
    return mimic_command("uci", *args)


def mimic_command(*args: str) -> list[str]:
    """The command that runs ``mimic ARGS`` with this interpreter."""
    return [sys.executable, "-m", "evolve.cli", *args]


def limited_disk(max_bytes: int | None) -> Callable[[], None] | None:
    """A preexec_fn making every file of the child at most ``max_bytes`` long, as a full disk would
    (writes past it fail with EFBIG; SIGXFSZ, which would kill the child, is ignored); ``None`` for no limit."""
    if max_bytes is None:
        return None

    def limit() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, resource.RLIM_INFINITY))

    return limit


def whole_games(path: Path) -> dict[str, tuple[object, ...]]:
    """Round -> (players, result, termination, moves) of every game of a PGN, asserting that each
    parses without error and that no round comes twice. Comments (which hold times) and the date are left out."""
    from search.games.pgnlog import read_pgn_text

    games: dict[str, tuple[object, ...]] = {}
    for game in read_pgn_text(path.read_text()):
        h = game.headers
        assert not game.errors and h["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert h["Round"] not in games, "a round twice"
        games[h["Round"]] = (h["White"], h["Black"], h["Result"], h["Termination"],
                             [m.uci() for m in game.mainline_moves()])
    return games


def sigkill_at_line(proc: subprocess.Popen[bytes], path: Path, lines: int, timeout: float = 120) -> None:
    """SIGKILL ``proc`` as soon as the file it writes holds ``lines`` complete lines."""
    t0 = time.monotonic()
    while not path.exists() or path.read_bytes().count(b"\n") < lines:
        assert time.monotonic() - t0 < timeout and proc.poll() is None
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def write_expert_labels(path: Path, n: int, seed: int = 7, min_plies: int = 4, max_plies: int = 80) -> None:
    """``n`` random-playout positions labelled by the built-in expert's static evaluation (cp, side to move)."""
    from mentor.labels import Label, LabelWriter
    from mentor.samplers import random_playouts
    from organisms.expert import Expert

    expert = Expert()
    with LabelWriter(path) as w:
        for s in random_playouts(n, seed, min_plies=min_plies, max_plies=max_plies):
            w.write(Label(s.board, int(expert.evaluate(s.board)), 1, [], None, None, "test", None))


def stockfish_path() -> str | None:
    for candidate in ("/usr/games/stockfish", shutil.which("stockfish")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def stockfish() -> str:
    path = stockfish_path()
    if path is None:
        pytest.skip("Stockfish is not installed (make test installs Debian's stockfish when run as root)")
    return path


@pytest.fixture(scope="session")
def phalanx() -> str:
    path = "/usr/games/phalanx" if Path("/usr/games/phalanx").exists() else shutil.which("phalanx")
    if path is None:
        pytest.skip("phalanx (an XBoard engine) is not installed (make test installs Debian's phalanx as root)")
    return path


def debian_engine(name: str) -> str:
    """The path of a Debian engine package's executable (``/usr/games/NAME``, else on PATH); skips the test when
    it is missing (``make test`` installs Debian's engines when run as root)."""
    path = f"/usr/games/{name}" if Path(f"/usr/games/{name}").exists() else shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (make test installs Debian's engines when run as root)")
    return path


class TickingClock:
    """A stand-in for ``time.perf_counter`` that advances ``step`` seconds each time it is read, so a time
    budget is spent after a fixed number of reads whatever the machine's load."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def ticking_clock(monkeypatch: pytest.MonkeyPatch) -> TickingClock:
    """``time.perf_counter`` (what the engine's time budgets read) advancing 15 ms per read, for this test."""
    clock = TickingClock(0.015)
    monkeypatch.setattr(time, "perf_counter", clock)
    return clock


def npz_of(path: Path, members: dict[str, bytes]) -> None:
    """Write an ``.npz`` of these ``.npy`` members (name: bytes) as given, for crafting files that np.savez refuses."""
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(f"{name}.npy", data)


def npy_bytes(array: object) -> bytes:
    """The ``.npy`` bytes of ``array`` (a member for :func:`npz_of`)."""
    import numpy as np

    out = io.BytesIO()
    np.save(out, np.asarray(array), allow_pickle=False)
    return out.getvalue()


def random_positions(seed: int, n: int) -> list[chess.Board]:
    """``n`` positions from random playouts (varied phases), none of them game over."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randrange(0, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            out.append(board.copy(stack=False))
    return out

"""Shared fixtures: how to start our engine over UCI, where Stockfish is."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def mimic_uci_command(*args: str) -> list[str]:
    """The command that starts ``mimic uci`` with this interpreter (no reliance on PATH)."""
    return mimic_command("uci", *args)


def mimic_command(*args: str) -> list[str]:
    """The command that runs ``mimic ARGS`` with this interpreter."""
    return [sys.executable, "-m", "evolve.cli", *args]


def sigkill_at_line(proc: subprocess.Popen[bytes], path: Path, lines: int, timeout: float = 120) -> None:
    """SIGKILL ``proc`` as soon as the file it writes holds ``lines`` complete lines."""
    t0 = time.monotonic()
    while not path.exists() or path.read_bytes().count(b"\n") < lines:
        assert time.monotonic() - t0 < timeout and proc.poll() is None
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


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

"""Shared fixtures: how to start our engine over UCI, where Stockfish is."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def mimic_uci_command(*args: str) -> list[str]:
    """The command that starts ``mimic uci`` with this interpreter (no reliance on PATH)."""
    return [sys.executable, "-m", "evolve.cli", "uci", *args]


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

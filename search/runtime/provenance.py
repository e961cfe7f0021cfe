"""Where a result came from: mimic's version, the git commit of the checkout, UTC timestamps.

Imports nothing of ours (it sits at the bottom of the dependency graph): every package may record
provenance. The version comes from the installed distribution's metadata (``importlib.metadata``), or
from ``pyproject.toml`` beside the sources when mimic runs uninstalled. The commit is that of the git
checkout the code runs from, when it runs from one: ``git`` is run with a list argv (no shell) and
any failure (no git, no repository, a timeout) gives ``None`` quietly.
"""

from __future__ import annotations

import functools
import subprocess
import tomllib
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the packages (a git checkout when mimic runs from one)."""


DISTRIBUTION = "mimic-chess"
"""The distribution's name on the package index (the packages and the command are ``mimic``)."""


@functools.cache
def mimic_version() -> str:
    """mimic's version: the installed distribution's, else ``pyproject.toml``'s, else ``"unknown"``."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(ROOT / "pyproject.toml", "rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@functools.cache
def git_state() -> tuple[str, bool] | None:
    """``(commit, dirty)`` of the checkout the code runs from, or ``None`` when it is not one.

    ``dirty`` is true when tracked files differ from the commit (untracked files do not count).
    """
    top = _git("rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != ROOT:
        return None  # git found a repository above an installed copy, not ours
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return commit.strip(), bool(status and status.strip())


def utc_now() -> str:
    """The current time in UTC, ISO 8601 to the second, e.g. ``2026-11-22T15:30:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def provenance() -> dict[str, Any]:
    """``mimic_version``, ``git_commit`` (``None`` outside a checkout), ``git_dirty`` and ``time_utc``."""
    state = git_state()
    return {"mimic_version": mimic_version(), "git_commit": state[0] if state else None,
            "git_dirty": state[1] if state else None, "time_utc": utc_now()}


def describe() -> str:
    """One line for logs and summaries, e.g. ``mimic 0.1.0, commit 0123abcd4567 (with local changes)``."""
    state = git_state()
    if state is None:
        return f"mimic {mimic_version()} (not run from a git checkout)"
    commit, dirty = state
    return f"mimic {mimic_version()}, commit {commit[:12]}" + (" (with local changes)" if dirty else "")

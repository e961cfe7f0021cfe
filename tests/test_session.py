"""The test session's own setup: a private feature/label cache, and doctests collected from the packages."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from organisms.features import default_cache_dir


def test_the_cache_is_a_private_temporary_folder() -> None:
    # tests/conftest.py's pytest_configure: no test reads or writes the user's ~/.cache/mimic.
    cache = Path(os.environ["MIMIC_CACHE"])
    assert cache.is_dir() and cache.parent == Path(tempfile.gettempdir()) and cache.name.startswith("mimic-test")
    assert default_cache_dir().parent == cache
    assert Path.home() / ".cache" / "mimic" not in default_cache_dir().parents

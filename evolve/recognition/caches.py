"""Recognition's cache folders: one name each, all in the cache root (:func:`search.runtime.cachekey.cache_root`).

``cache_dir`` has one meaning in recognition (``train``, ``classify``, ``experiment``, ``extract_positions``): the
position features' folder, as :mod:`organisms.feature_cache` takes it (default ``$MIMIC_CACHE/features``).
Recognition's own caches are its siblings, each named in :data:`FOLDERS` and found by :func:`cache_folder`; a
function that reads and writes one of them takes that folder itself, as ``cache``.

May import :mod:`search.runtime`.
"""

from __future__ import annotations

from pathlib import Path

from search.runtime.cachekey import cache_root

FEATURES = "features"
"""The position features' folder (:mod:`organisms.feature_cache`): what ``cache_dir`` names."""

FOLDERS = {
    "games": "each PGN file's games, parsed once (evolve.recognition.gameset)",
    "moves": "the sides' resolved children (evolve.recognition.positions)",
    "clones": "the evolved clones (evolve.recognition.training)",
    "style": "the sides' features of each family computed from the moves (evolve.recognition.vectors)",
    "replay": "each candidate's replayed moves (evolve.recognition.replay)",
}
"""Recognition's cache folders beside the features' folder, and what each holds."""


def features_dir(cache_dir: str | Path | None = None) -> Path:
    """The position features' folder: ``cache_dir``, else ``$MIMIC_CACHE/features``."""
    return Path(cache_dir) if cache_dir is not None else cache_root() / FEATURES


def cache_folder(name: str, cache_dir: str | Path | None = None) -> Path:
    """The cache folder ``name`` (one of :data:`FOLDERS`) beside the features' folder ``cache_dir`` (default:
    in ``$MIMIC_CACHE``).

    >>> cache_folder("style", "/tmp/cache/features").as_posix()
    '/tmp/cache/style'
    """
    if name not in FOLDERS:
        raise KeyError(f"no recognition cache folder {name!r} (one of {', '.join(FOLDERS)})")
    return features_dir(cache_dir).parent / name

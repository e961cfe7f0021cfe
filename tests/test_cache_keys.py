"""Caches that cannot be forged from outside their owner (issue 23, item 2): every cache file carries a digest keyed
with the secret in ``$MIMIC_CACHE/cache.key`` (``search.runtime.cachekey``), so a file rewritten by hand with its
checksum recomputed (the issue's forger, who cannot read the key) is recomputed, never trusted; the key file is
made owner-only, shared by racing processes, and not trusted when it is open to others or of the wrong size."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
import stat
import warnings
from collections.abc import Callable
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.data.dataset import load_dataset
from evolve.data.moves import extract_moves
from evolve.ga.fit import exact_fit, mean_abs_error
from evolve.ga.fit_cache import cached_exact_fit
from evolve.recognition.positions import resolve_sides
from mentor.labels import Label, LabelWriter
from mentor.samplers import random_playouts
from organisms.expert import Expert
from organisms.feature_cache import arrays_digest, load_keyed_npz, save_keyed_npz
from organisms.features import feature_matrix
from organisms.genome import default_genome
from search.runtime.cachekey import KEY_BYTES, cache_secret, key_path

from .conftest import run_mimic

GAME = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6", "b1d2", "a7a6"]
"""One short game (an Italian opening) for the move and side caches."""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh ``$MIMIC_CACHE`` that does not exist yet (mimic makes it)."""
    monkeypatch.setenv("MIMIC_CACHE", str(tmp_path / "home" / "cache"))
    return tmp_path / "home" / "cache"


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """120 random positions labelled by the built-in expert's static evaluation (cp, side to move)."""
    path = tmp_path_factory.mktemp("labels") / "labels.epd"
    expert = Expert()
    with LabelWriter(path) as w:
        for s in random_playouts(120, 3, min_plies=4, max_plies=60):
            w.write(Label(s.board, int(expert.evaluate(s.board)), 1, [], None, None, "test", None))
    return path


def unkeyed_checksum(arrays: dict[str, np.ndarray], names: list[str]) -> str:
    """The checksum caches stored before the keyed digest (BLAKE2 of each array's name, dtype, shape, bytes): what
    the issue's forger recomputed."""
    digest = hashlib.blake2b(digest_size=20)
    for name in names:
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def unkeyed_digest(arrays: dict[str, np.ndarray], names: list[str], key: str) -> str:
    """The new format's digest recomputed by someone without the secret: the same algorithm with an empty key
    (BLAKE2b keyed with no bytes is plain BLAKE2b)."""
    return arrays_digest(arrays, names, key, b"")


def forge(path: Path, change: Callable[[dict[str, np.ndarray]], None], old_format: bool = False) -> None:
    """Rewrite the cache file ``path`` by hand: its arrays changed by ``change``, its key kept, and a checksum
    recomputed without the secret key (the old format's ``checksum``, or the new format's ``digest``)."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    key = str(arrays.pop("key"))
    arrays.pop("digest")
    names = list(arrays)
    before = {k: a.copy() for k, a in arrays.items()}
    change(arrays)
    assert any(not np.array_equal(arrays[k], before[k], equal_nan=arrays[k].dtype.kind == "f") for k in names)
    seal = ({"checksum": np.array(unkeyed_checksum(arrays, names))} if old_format
            else {"digest": np.array(unkeyed_digest(arrays, names, key))})
    np.savez(path, **arrays, key=np.array(key), **seal)


def errors(stdout: str) -> list[str]:
    """The mean absolute errors ``mimic fit`` prints (training, held out, nearest organism's two)."""
    line = next(x for x in stdout.splitlines() if x.startswith("L1 fit"))
    return re.findall(r"\d+\.\d\d(?= cp| /|$)", line.split("):", 1)[1])


def test_a_forged_label_cache_does_not_change_fits_answer(labels: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The expected answer: `mimic fit` with an empty cache of its own (nothing can be read back).
    fresh = run_mimic("fit", labels, env={"MIMIC_CACHE": str(tmp_path / "fresh")}, check=True)
    truth = errors(fresh.stdout)
    assert len(truth) == 4
    monkeypatch.setenv("MIMIC_CACHE", str(tmp_path / "cache"))
    env = {"MIMIC_CACHE": str(tmp_path / "cache")}
    assert errors(run_mimic("fit", labels, env=env, check=True).stdout) == truth
    (entry,) = (tmp_path / "cache" / "labels").glob("*.npz")
    with np.load(entry) as data:
        y = data["y"].copy()

    def shift(arrays: dict[str, np.ndarray]) -> None:
        arrays["y"] = arrays["y"] + 300.0  # every mentor score 300 cp higher

    for old_format in (True, False):
        forge(entry, shift, old_format)
        assert errors(run_mimic("fit", labels, env=env, check=True).stdout) == truth
        # ...and the entry was rewritten with the true scores.
        with np.load(entry) as data:
            assert np.array_equal(data["y"], y) and "digest" in data.files
    # The control: the same change sealed with the real key (what only the key's owner can do) is read back and
    # changes the answer, so the forgeries above would have mattered had they been trusted.
    with np.load(entry) as data:
        arrays = {k: data[k] for k in data.files if k not in ("key", "digest")}
    shift(arrays)
    assert save_keyed_npz(entry, arrays, list(arrays), entry.stem)
    assert errors(run_mimic("fit", labels, env=env, check=True).stdout) != truth


def test_forged_feature_fit_move_and_side_caches_are_recomputed(labels: Path, cache: Path) -> None:
    def plus_one(name: str) -> Callable[[dict[str, np.ndarray]], None]:
        def change(arrays: dict[str, np.ndarray]) -> None:
            arrays[name] = (arrays[name] + 1).astype(arrays[name].dtype)
        return change

    # Features: the truth is an extraction with the cache off.
    boards = [s.board for s in random_playouts(20, 5, min_plies=4, max_plies=40)]
    truth = feature_matrix(boards, use_cache=False)
    feature_matrix(boards)
    (entry,) = (cache / "features").glob("*.npz")
    forge(entry, plus_one("features"))
    assert np.array_equal(feature_matrix(boards), truth)
    assert np.array_equal(load_keyed_npz(entry, ["features"], entry.stem)["features"], truth)  # rewritten

    # Exact fits: other weights within the bounds and the errors recomputed for them, so every check of the fit
    # cache's own passes but the digest; the truth is a solve with no cache.
    ds = load_dataset(labels, target="root")
    genome = default_genome()
    solved = exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2")
    cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2")
    (entry,) = (cache / "fits").glob("*.npz")

    def other_weights(arrays: dict[str, np.ndarray]) -> None:
        w = np.clip(arrays["weights"] + 1.0, genome.low, genome.high)
        arrays["weights"] = w
        arrays["maes"] = np.array([mean_abs_error(ds.features[ds.train], ds.y[ds.train], w),
                                   mean_abs_error(ds.features[ds.held], ds.y[ds.held], w)])

    forge(entry, other_weights)
    again = cached_exact_fit(ds.features, ds.y, ds.train, ds.held, genome, "l2")
    assert not again.cached and np.array_equal(again.weights, solved.weights)

    # A player's moves, and the resolved children of game sides: the truth is an extraction with no cache.
    board = chess.Board()
    for uci in GAME:
        board.push_uci(uci)
    pgn = cache.parent / "game.pgn"
    game = chess.pgn.Game.from_board(board)
    game.headers["White"], game.headers["Black"] = "A", "B"
    pgn.write_text(f"{game}\n\n")
    want = extract_moves(pgn, "A", skip_plies=0, use_cache=False)
    extract_moves(pgn, "A", skip_plies=0)
    (entry,) = (cache / "moves").glob("*.npz")
    forge(entry, plus_one("sign"))
    got = extract_moves(pgn, "A", skip_plies=0)
    assert not got.cached and np.array_equal(got.sign, want.sign) and np.array_equal(got.rows, want.rows)
    np.testing.assert_array_equal(got.fixed, want.fixed)  # NaN (a move with no fixed score) equals NaN here

    entries = [(0, chess.STARTING_FEN, GAME, [True])]
    sides = cache.parent / "sides"
    want_sides = resolve_sides(entries, 0)
    resolve_sides(entries, 0, cache=sides)
    (entry,) = sides.glob("sides-*.npz")
    forge(entry, plus_one("sign"))
    got_sides = resolve_sides(entries, 0, cache=sides)
    assert set(got_sides) == set(want_sides)
    for k in want_sides:  # NaN (a move with no fixed score) equals NaN here
        np.testing.assert_array_equal(got_sides[k], want_sides[k])
    with np.load(entry) as data:  # rewritten with the true values
        np.testing.assert_array_equal(data["sign"], want_sides["sign"])


def test_the_key_is_made_owner_only(cache: Path) -> None:
    assert not cache.exists()
    secret = cache_secret()
    assert secret is not None and len(secret) == KEY_BYTES
    path = key_path()
    assert path == cache / "cache.key" and path.read_bytes() == secret
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert [p.name for p in cache.iterdir()] == ["cache.key"]  # no temporary file left beside it
    assert cache_secret() == secret  # read back, not made again


def test_a_key_made_where_there_are_no_hard_links(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A file system that refuses hard links (os.link fails as on FAT): the key file is created in place, with
    # O_EXCL and mode 0600, and read back.
    def no_links(src: object, dst: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    secret = cache_secret()
    assert secret is not None and key_path().read_bytes() == secret
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600


def _untrusted(cache: Path, boards: list[chess.Board], truth: np.ndarray, reason: str) -> None:
    """With the key file in ``cache`` untrusted for ``reason``: one warning naming the file and the reason, no
    cache read (the forged-by-owner entry is ignored) nor written, the right features."""
    with pytest.warns(RuntimeWarning) as record:
        assert cache_secret() is None
        assert np.array_equal(feature_matrix(boards), truth)
    assert len(record) == 1  # once, though the key was asked for again by the feature cache
    message = str(record[0].message)
    assert message.startswith(f"{key_path()}: the cache key is ") and reason in message and "\n" not in message
    assert len(list((cache / "features").glob("*.npz"))) == 1  # the poisoned entry only: nothing written


def test_a_key_open_to_others_or_of_the_wrong_size_is_not_trusted(cache: Path) -> None:
    boards = [s.board for s in random_playouts(6, 9, min_plies=4, max_plies=30)]
    truth = feature_matrix(boards, use_cache=False)
    feature_matrix(boards)
    (entry,) = (cache / "features").glob("*.npz")
    # Poison the entry through the cache's own writer (valid under the present key): trusted while the key is.
    poison = {"features": truth + 1000.0}
    assert save_keyed_npz(entry, poison, ["features"], entry.stem)
    assert feature_matrix(boards)[0, 0] == truth[0, 0] + 1000.0
    path = key_path()
    secret = path.read_bytes()
    os.chmod(path, 0o640)
    _untrusted(cache, boards, truth, "open to group or others (mode 0640, 0600 expected)")
    os.chmod(path, 0o604)
    _untrusted(cache, boards, truth, "open to group or others (mode 0604, 0600 expected)")
    os.chmod(path, 0o600)
    path.write_bytes(secret[:16])
    _untrusted(cache, boards, truth, "16 bytes, not 32")
    path.unlink()
    real = cache / "elsewhere.key"
    real.write_bytes(secret)
    os.chmod(real, 0o600)
    path.symlink_to(real)
    _untrusted(cache, boards, truth, "a symbolic link")
    if os.geteuid() == 0:  # only root can give a file away: a key of another user's
        path.unlink()
        path.write_bytes(secret)
        os.chmod(path, 0o600)
        os.chown(path, 4242, -1)
        _untrusted(cache, boards, truth, "owned by user id 4242")
    # Removing the bad key file makes a new key: the old entry (sealed under the old key) is recomputed.
    path.unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(feature_matrix(boards), truth)
    assert key_path().read_bytes() != secret and load_keyed_npz(entry, ["features"], entry.stem) is not None


def test_an_untrusted_key_is_one_warning_line_from_the_command(labels: Path, tmp_path: Path) -> None:
    env = {"MIMIC_CACHE": str(tmp_path / "cache")}
    first = run_mimic("fit", labels, env=env, check=True)
    path = tmp_path / "cache" / "cache.key"
    os.chmod(path, 0o644)
    second = run_mimic("fit", labels, env=env, check=True)
    assert errors(second.stdout) == errors(first.stdout) and "from the cache" not in second.stdout
    assert second.stderr.splitlines() == [
        f"warning: {path}: the cache key is open to group or others (mode 0644, 0600 expected); no cache is used "
        "until it is removed (a new key is then made)"]


def _make_key_and_seal(root: str, barrier: Barrier, out: str, keys: Queue) -> None:
    """In a child process: wait for the others, ask for the key (all make it at once), seal one entry with it."""
    os.environ["MIMIC_CACHE"] = root
    barrier.wait()
    secret = cache_secret()
    assert secret is not None
    assert save_keyed_npz(Path(out), {"a": np.arange(3)}, ["a"], Path(out).stem)
    keys.put(secret.hex())


def test_processes_making_the_key_at_once_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = multiprocessing.get_context("fork")
    for attempt in range(8):  # eight fresh roots: each time three processes find no key and race to make it
        root = tmp_path / f"root{attempt}"
        barrier, keys = ctx.Barrier(3), ctx.Queue()
        outs = [str(tmp_path / f"entry{attempt}-{i}.npz") for i in range(3)]
        children = [ctx.Process(target=_make_key_and_seal, args=(str(root), barrier, out, keys)) for out in outs]
        for child in children:
            child.start()
        for child in children:
            child.join(30)
        assert [child.exitcode for child in children] == [0, 0, 0]
        made = {keys.get(timeout=5) for _ in children}
        assert made == {key_path(root).read_bytes().hex()}
        monkeypatch.setenv("MIMIC_CACHE", str(root))  # both entries verify under the one key, here
        assert all(load_keyed_npz(Path(out), ["a"], Path(out).stem) is not None for out in outs)
        assert sorted(p.name for p in root.iterdir()) == ["cache.key"]

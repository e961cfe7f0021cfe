"""The cache's root folder, its secret key, and the keyed digest that seals every cache file.

Every cache of mimic's (parsed labels, features, exact fits, moves, recognised sides) lives under
:func:`cache_root` (``$MIMIC_CACHE``, default ``~/.cache/mimic``) and stores beside its arrays a keyed BLAKE2
digest (:func:`keyed_hasher`, BLAKE2b's own MAC mode) of its cache key and of what it holds, made with the
secret key in ``ROOT/cache.key`` (:data:`KEY_BYTES` random bytes from :func:`secrets.token_bytes`). A file
whose digest does not verify is ignored and recomputed (ARCHITECTURE.md, Contracts: checkpoints and caches).

The key is made on first use: the root is created ``0700`` when missing, the key written to a temporary file
made with ``O_EXCL`` and mode ``0600`` (``tempfile.mkstemp``), then published with ``os.link`` onto
``cache.key``, which fails when the name exists: the key appears whole or not at all, and two processes
racing both end up reading the one key that won (where a file system has no hard links, the key file itself
is created with ``O_EXCL``, and a reader that finds it still empty waits for its bytes).

A key file that cannot be trusted — a symbolic link or not a regular file, unreadable, not owned by this
user, readable or writable by group or others, not :data:`KEY_BYTES` bytes — is never used nor replaced
(replacing it silently would hide tampering, and two processes replacing it at once would disagree): no cache
is read or written by this process (everything is recomputed: right answers, slower), and one warning line
says which file and why, once per process; removing the file lets the next run make a new key (every old
entry is then recomputed once). A root that cannot be written (no key can be made) turns the caches off
silently, as a cache that cannot be written always has. Where there are no POSIX owners and modes (Windows),
the key is made and read the same way but its owner and mode are not checked: it is as private as the
folder's access lists make it.

Threat model: the digest stops another user or process that cannot read the key from forging a cache entry
(a file rewritten with its old unkeyed checksum recomputed is refused), and catches truncation and
corruption. It does not stop anyone who can read the key (the cache's owner, root), and it does not vouch
for the inputs themselves (label files, PGNs, organisms are what the user gives). Caches are per user: an
entry made under another user's key is recomputed, never shared.

Imports nothing of mimic's but the atomic writer's folder sync (it sits at the bottom of the dependency graph).
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
import tempfile
import time
import warnings
from pathlib import Path

from search.runtime.atomic import fsync_dir

CACHE_ENV = "MIMIC_CACHE"
"""Environment variable naming the cache's root folder (default ``~/.cache/mimic``)."""

KEY_NAME = "cache.key"
"""The key file's name in the cache root."""

KEY_BYTES = 32
"""The secret key's length (bytes): BLAKE2b's longest key."""

DIGEST_BYTES = 32
"""The keyed digest's length (bytes): 64 hex digits."""

_PERSON = b"mimic-cache"
"""BLAKE2b's personalisation: a digest of this key means nothing to anything else keyed the same."""

_POSIX = hasattr(os, "geteuid")
_warned: set[str] = set()


class UntrustedKey(Exception):
    """The key file exists but cannot be trusted (the message says why); never raised to callers."""


def cache_root() -> Path:
    """``$MIMIC_CACHE``, else ``~/.cache/mimic``: the folder every cache and the key live in."""
    return Path(os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "mimic"))


def key_path(root: Path | None = None) -> Path:
    """The key file of ``root`` (default :func:`cache_root`)."""
    return (cache_root() if root is None else Path(root)) / KEY_NAME


def _read_key(path: Path) -> bytes:
    """The key in ``path``; ``FileNotFoundError`` when there is none, :class:`UntrustedKey` when it is not right.
    Opened without following a symbolic link and without blocking on a FIFO; checked on the open file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise UntrustedKey("a symbolic link" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UntrustedKey("not a regular file")
        if _POSIX and st.st_uid != os.geteuid():
            raise UntrustedKey(f"owned by user id {st.st_uid}, not by this user ({os.geteuid()})")
        if _POSIX and st.st_mode & 0o077:
            raise UntrustedKey(f"open to group or others (mode {st.st_mode & 0o777:04o}, 0600 expected)")
        data = os.read(fd, KEY_BYTES + 1)
        for _ in range(20):  # only a key being written in place (no hard links here) is empty for a moment
            if data:
                break
            time.sleep(0.01)
            data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        raise UntrustedKey(f"{len(data)} bytes, not {KEY_BYTES}")
    return data


def _make_root(root: Path) -> None:
    """Create ``root`` with mode 0700 when it is missing (an existing folder is left as it is)."""
    try:
        root.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        return
    os.chmod(root, 0o700)  # mkdir's mode is masked by the umask


def _create_key(path: Path) -> None:
    """Make a key at ``path`` unless one appears there first (see the module docstring)."""
    _make_root(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{KEY_NAME}.", dir=path.parent)  # O_EXCL, mode 0600
    try:
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made the key first: it is the one
        except OSError:  # no hard links on this file system
            _create_in_place(path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    fsync_dir(path.parent)


def _create_in_place(path: Path) -> None:
    """Create the key file itself with ``O_EXCL`` (mode 0600) and write the key in one write."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except FileExistsError:
        return
    try:
        os.write(fd, secrets.token_bytes(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def cache_secret(root: Path | None = None) -> bytes | None:
    """The secret key of the cache under ``root`` (default :func:`cache_root`), made on first use; ``None`` when
    no key can be trusted or made: then no cache is read or written (see the module docstring)."""
    path = key_path(root)
    try:
        try:
            return _read_key(path)
        except FileNotFoundError:
            _create_key(path)
            return _read_key(path)
    except UntrustedKey as bad:
        _warn_once(f"{path}: the cache key is {bad}; no cache is used until it is removed (a new key is then made)")
    except OSError:
        pass  # a root that cannot be written: no key, no cache
    return None


def keyed_hasher(secret: bytes) -> hashlib.blake2b:
    """A BLAKE2b hasher keyed with ``secret`` (:func:`cache_secret`), :data:`DIGEST_BYTES` long: the MAC that
    seals a cache file. Callers feed it the cache key and everything the file holds, each part delimited."""
    return hashlib.blake2b(key=secret, digest_size=DIGEST_BYTES, person=_PERSON)

"""The one atomic writer: every file mimic writes whole goes through :func:`atomic_path`.

A file is written beside its target under a temporary name, flushed and fsynced, moved into place with
``os.replace`` and then the folder is fsynced, so a kill or a full disk at any moment leaves either the
previous file or the new one, never a mix; the temporary file is removed when anything fails. The target's
folder is created when missing. Imports nothing of mimic's (it sits at the bottom of the dependency graph).

Files that grow by appending (a match's PGN, a label file) are not written here: they are appended to and
repaired on ``--resume``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def _umask() -> int:
    """This process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_dir(folder: str | Path) -> None:
    """Make a rename or a new file in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_WRITER = f"{socket.gethostname().replace('.', '_')}-{os.getpid()}"
"""This process's mark in its temporary names (host and process id), so that a later writer can tell an orphan."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's, or not ours to probe: leave its files alone
    return True


def remove_orphans(path: str | Path, end: str | None = None) -> list[Path]:
    """Remove the temporary files that writers of ``path`` on this host left beside it when they were killed
    between making and moving them (their process is gone); return them. A temporary file of a writer still
    running (another process writing the same file now), of another host, or not named by this module is left
    alone. :func:`atomic_path` calls it before every write, so a resumed run leaves no orphan of its last kill."""
    target = Path(path)
    end = ".tmp" + target.suffix if end is None else end
    host = _WRITER.rsplit("-", 1)[0]
    prefix = f".{target.name}.{host}-"
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(end)):
            continue
        pid = entry.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


@contextlib.contextmanager
def atomic_path(path: str | Path, *, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without an exception, the file written
    there (which the block must have closed) is fsynced and moved onto ``path``, and the folder fsynced.
    On an exception the temporary file is removed and the target is left as it was; an ``OSError`` that names
    no file (a write to a full disk: ``EFBIG``, ``ENOSPC``) is given ``path`` as its ``filename``, so its message
    can name the file.

    The temporary name ends with ``suffix`` (by default ``path``'s own suffix), for writers that add one
    when it is missing, such as ``numpy.savez`` and ``.npz``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "sub" / "a.txt") as tmp:
    ...     _ = tmp.write_text("whole")
    >>> (folder / "sub" / "a.txt").read_text(), sorted(p.name for p in (folder / "sub").iterdir())
    ('whole', ['a.txt'])
    >>> (folder / "sub" / "a.txt").stat().st_mode & 0o777 == 0o666 & ~_umask()
    True
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    end = ".tmp" + (target.suffix if suffix is None else suffix)
    remove_orphans(target, end)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.{_WRITER}.", suffix=end, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a file mimic writes gets open()'s usual mode
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(target)  # a failed write (a full disk) names no file: the one being written
        raise
    fsync_dir(target.parent)


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", *, encoding: str | None = None,
                newline: str | None = None) -> Iterator[IO[Any]]:
    """``open(path, mode)`` for writing (``"w"`` or ``"wb"``) through :func:`atomic_path`: the file appears
    whole when the block ends, or not at all. Text is UTF-8 unless ``encoding`` says otherwise."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a whole file: mode 'w' or 'wb', not {mode!r}")
    if "b" not in mode and encoding is None:
        encoding = "utf-8"
    with atomic_path(path) as tmp, open(tmp, mode, encoding=encoding, newline=newline) as fh:
        yield fh


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` whole or not at all."""
    with atomic_open(path, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


def write_json_atomic(path: str | Path, data: Any, *, indent: int | None = 1, sort_keys: bool = False) -> None:
    """Write ``data`` as JSON (one trailing newline) to ``path`` whole or not at all."""
    write_atomic(path, json.dumps(data, indent=indent, sort_keys=sort_keys) + "\n")

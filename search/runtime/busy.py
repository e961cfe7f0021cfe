"""One run at a time on one output: a second ``mimic label``, ``mimic datagen`` or any other command with
``--resume`` on a file or folder that another run is writing is refused, before it reads or repairs anything
(``evolve.cli.main`` holds every such output of the command for its whole run).

Two runs appending to one file interleave their records: a resumed self-play run reads the games written so far,
plays from the next one, and appends games the first run also appends (seen: two ``datagen --resume`` on one file
wrote game 1726 twice). :func:`exclusive` takes an advisory ``flock`` on ``OUT.lock`` beside the output for the
whole run and removes it at the end; the kernel drops the lock when its process dies, so a killed run leaves at most
a stale ``.lock`` file, which the next run reuses. The lock file holds the process id, which the refusal names.

Imports the standard library and ``search.runtime.errors`` only.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from search.runtime.errors import MimicError

try:
    import fcntl
except ImportError:  # Windows: no flock; runs there are not guarded
    fcntl = None  # type: ignore[assignment]


class OutputBusy(MimicError):
    """Another run is writing the output: ``OUT: another mimic run (process PID) is writing it; wait for it to end,
    or stop it, then --resume``. Exit 2."""


def lock_path(out: str | Path) -> Path:
    """The lock file of output ``out``: ``OUT.lock`` beside it."""
    out = Path(out)
    return out.with_name(out.name + ".lock")


@contextlib.contextmanager
def exclusive(out: str | Path) -> Iterator[None]:
    """Hold the lock of output ``out`` for the ``with`` block; :class:`OutputBusy` when another process holds it.

    The lock is taken on ``OUT.lock`` (created when missing, with ``out``'s folder), not on ``out``
    itself, so a run that is refused for another reason (``--resume`` missing, a bad sidecar) leaves ``out`` as it
    was. After locking, the path is checked to still be the file locked (a run ending in between unlinks it), else
    the lock is taken again on the new one."""
    path = lock_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise OutputBusy(f"{out}: another mimic run{_holder(path)} is writing it; wait for it to end, or stop "
                             "it, then --resume") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed it between our open and our lock: lock the file now at the path
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)


def _holder(path: Path) -> str:
    """`` (process PID)`` from the lock file, or nothing when it cannot be read."""
    try:
        pid = path.read_text().strip()
    except OSError:
        return ""
    return f" (process {pid})" if pid.isdigit() else ""

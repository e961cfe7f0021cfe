"""The root of mimic's exceptions: every error a user can cause (a bad file, flag, spec or engine) is a
:class:`MimicError`, and the command line catches it once, prints ``mimic CMD: message`` and exits with the
error's :attr:`~MimicError.exit_code`: 2 for what the user gave (fix it and run again), 1 for a run that started
and could not go on (:class:`RunError`: its output so far is kept, ``--resume`` continues).

Imports nothing of mimic's (it sits at the bottom of the dependency graph), so every package may derive
from it.
"""

from __future__ import annotations


class MimicError(Exception):
    """An error a user can act on; its message names the file, line, flag or spec that is wrong.

    >>> issubclass(MimicError, Exception), str(MimicError("labels.epd:3: bad FEN")), MimicError.exit_code
    (True, 'labels.epd:3: bad FEN', 2)
    """

    exit_code = 2
    """The command line's exit code for it: 2, what the user gave cannot be used."""


class SettingsError(MimicError, ValueError):
    """Settings that cannot work (a flag's value, or a combination of flags), found before any work starts: its
    message names the flag (``--units``) and says what would be accepted.

    >>> str(SettingsError("--units must be at most 16384, got 16385"))
    '--units must be at most 16384, got 16385'
    """


class InputError(MimicError):
    """A file the run needs cannot be used (missing, unreadable, empty of anything usable): its message names
    it. Exit 2."""


class RunExists(MimicError, FileExistsError):
    """The output already holds a run (a checkpoint, games, labels) and ``--resume`` was not given: its message
    names it and says to pass ``--resume`` or choose another output. Exit 2."""


class RunError(MimicError):
    """A run that started and could not go on (a full disk, an engine that died mid-run): its output so far is
    kept and ``--resume`` continues. Exit 1."""

    exit_code = 1

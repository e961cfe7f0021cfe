"""The root of mimic's exceptions: every error a user can cause (a bad file, flag, spec or engine) is a
:class:`MimicError`, and the command line catches it once and prints ``mimic CMD: message`` (exit 2).

Imports nothing of mimic's (it sits at the bottom of the dependency graph), so every package may derive
from it.
"""

from __future__ import annotations


class MimicError(Exception):
    """An error a user can act on; its message names the file, line, flag or spec that is wrong.

    >>> issubclass(MimicError, Exception), str(MimicError("labels.epd:3: bad FEN"))
    (True, 'labels.epd:3: bad FEN')
    """


class SettingsError(MimicError, ValueError):
    """Settings that cannot work (a flag's value, or a combination of flags), found before any work starts: its
    message names the flag (``--units``) and says what would be accepted.

    >>> str(SettingsError("--units must be at most 16384, got 16385"))
    '--units must be at most 16384, got 16385'
    """

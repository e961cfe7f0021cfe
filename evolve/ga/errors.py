"""The GA's errors a user can act on (ARCHITECTURE.md, Contracts: Errors): each a :class:`MimicError` that is also
the standard exception it replaced, so callers catching that still work. Flags that cannot work are
:class:`~search.runtime.errors.SettingsError`; a results folder that holds a run without ``--resume`` is
:class:`~search.runtime.errors.RunExists`.

May import: ``search.runtime.errors``.
"""

from __future__ import annotations

from search.runtime.errors import InputError


class ObjectiveError(InputError, ValueError):
    """The data cannot serve the objective (labels without a game result for the result objective, games without
    the player for the moves objective, no training rows): the message says which. Exit 2."""


class FitError(InputError, RuntimeError):
    """The exact fit's solver failed on these labels (the message is the solver's). Exit 2."""

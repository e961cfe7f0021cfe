"""What every ``mimic`` command shares: its one-line messages, argument types, the help formatter and the
defaults read from the settings dataclasses that own them.

May import the standard library and :mod:`search.runtime`; nothing here imports a command's library, so the
command table stays cheap to load.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, Self


def fail(prog: str, message: str) -> None:
    """One error line on stderr: ``PROG: message`` (``PROG`` is e.g. ``mimic match``)."""
    print(f"{prog}: {message}", file=sys.stderr)


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors (a bad value, a missing argument, an unknown option) are one line
    ``PROG: message`` and exit code 2, as every other error of the user's (:func:`fail`); ``--help`` still shows the
    usage. The subcommands' parsers are of this class too (argparse makes them of their parent's). ``command``, on
    the top parser: the chosen command's ``prog``, which names the errors the top parser finds after it (options no
    parser took)."""

    command: str | None = None

    def error(self, message: str) -> NoReturn:
        fail(self.command or self.prog, message)
        self.exit(2)


def warn(message: str) -> None:
    """One warning line on stderr: ``warning: message``."""
    print(f"warning: {message}", file=sys.stderr)


def os_error(exc: OSError, path: object = None) -> str:
    """One line for a failed file operation: the file, then the reason (``strerror``); when what failed is a
    folder on the way to ``path`` (making an output's folder), both."""
    name = exc.filename if exc.filename is not None else path
    reason = exc.strerror or str(exc)
    if path is not None and exc.filename is not None and str(path).startswith(os.path.join(str(exc.filename), "")):
        return f"{path}: cannot make its folder {exc.filename}: {reason}"
    return f"{name}: {reason}" if name is not None and str(name) not in reason else reason


SettingOption = tuple[str, str, Callable[[str], Any], str]
"""An option whose default is a settings field: (flag, field of the settings dataclass, argparse type, help)."""


def add_setting_options(p: argparse.ArgumentParser | argparse._ArgumentGroup, settings: type,
                        options: Sequence[SettingOption]) -> None:
    """Add each of ``options`` to ``p`` (a parser or an argument group), in order, its default read from the field of
    ``settings`` that owns it (:func:`default`): a default is never retyped."""
    for flag, name, kind, help_text in options:
        p.add_argument(flag, type=kind, default=default(settings, name), help=help_text)


def command_line() -> str:
    """The command as typed (``mimic`` and its quoted arguments), for provenance."""
    import shlex

    return "mimic " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def default(cls: type, name: str) -> Any:
    """The default of field ``name`` of the dataclass ``cls`` (its factory's value for a factory field), so a
    command-line default is read from the object that owns it, never retyped."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
            break
    raise KeyError(f"{cls.__name__}.{name} has no default")


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Every option's default appended to its help as ``(default: VALUE)``; not for an option whose default is
    ``None`` or an empty list (its help says what happens) nor for a flag (an option taking no value is off
    unless given). A description or epilog of several lines (the player specs' table) is kept as written; one
    paragraph is wrapped to the terminal."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default == [] or action.nargs == 0:
            return action.help
        return super()._get_help_string(action)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def make_folder_for(path: str | os.PathLike[str]) -> None:
    """Create the folder an output file goes in, when missing: every command that writes a file does (files
    written whole get it from the atomic writer; this is for the files a command appends to)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from exc


def _int_at_least(low: int, name: str) -> Callable[[str], int]:
    """An argparse type: a whole number at least ``low`` (argparse's usage error otherwise)."""
    def check(text: str) -> int:
        value = _integer(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    check.__name__ = name
    return check


positive_int = _int_at_least(1, "positive_int")
non_negative_int = _int_at_least(0, "non_negative_int")

SEED_MAX = 2**63 - 1
"""The largest seed (a signed 64-bit integer): what numpy, torch (a seed and a member's seed above it) and the files
that record a run's seed all take."""


def seed_value(text: str) -> int:
    """An argparse type, every command's ``--seed`` (and ``--bootstrap-seed``): a whole number from 0 to
    :data:`SEED_MAX`."""
    value = _integer(text)
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be at least 0 and at most 2^63 - 1 = {SEED_MAX}, got {value}")
    return value


def non_negative_float(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number at least 0, got {text}")
    return value


def jobs(text: str) -> int:
    """Worker processes: a positive count, or -1 for every core."""
    value = _integer(text)
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (or -1 for every core), got {value}")
    return value


def _number(text: str) -> float:
    """``text`` as a finite float (argparse's usage error for nan, inf or not a number)."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from exc
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def finite_float(text: str) -> float:
    """Any finite number."""
    return _number(text)


def positive_float(text: str) -> float:
    """A finite number above 0 (seconds, a learning rate, ...)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
    return value


def probability(text: str) -> float:
    """A probability or a share, from 0 to 1."""
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a probability from 0 to 1, got {text}")
    return value


def memory_mib() -> int:
    """This machine's physical memory, MiB (0 when the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20)
    except (ValueError, OSError, AttributeError):
        return 0


def hash_mib(text: str) -> int:
    """A hash table's size, MiB: at least 1 and at most half this machine's physical memory."""
    value = positive_int(text)
    bound = memory_mib() // 2
    if bound and value > bound:
        raise argparse.ArgumentTypeError(f"must be at most half this machine's memory, {bound} MiB, got {value}")
    return value


def sprt(text: str) -> tuple[float, float, float, float]:
    """``ELO0,ELO1,ALPHA,BETA``: two finite Elo bounds with ``ELO0 < ELO1`` and two error probabilities within
    (0, 1)."""
    parts = text.split(",")
    if len(parts) != 4:
        raise argparse.ArgumentTypeError(f"takes elo0,elo1,alpha,beta, got {text!r}")
    elo0, elo1, alpha, beta = (_number(x) for x in parts)
    if not elo0 < elo1:
        raise argparse.ArgumentTypeError(f"elo0 must be below elo1, got {text}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise argparse.ArgumentTypeError(f"alpha and beta are probabilities strictly between 0 and 1, got {text}")
    return elo0, elo1, alpha, beta


def scheduler(text: str) -> str:
    """A Dask scheduler's address, ``[PROTOCOL://]HOST:PORT`` (see :func:`search.runtime.workers.check_address`)."""
    from search.runtime.workers import BackendError, check_address

    try:
        return check_address(text)
    except BackendError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


class ProgressBar:
    """A tqdm bar on stderr driven by a library's progress callback ``(done, total)`` (the library never opens a
    bar itself): made at the first call (``done`` already there, e.g. what a resumed run had), moved to ``done``
    at every later one. Use it as a context manager, so the bar is closed however the run ends."""

    def __init__(self, desc: str, unit: str = "") -> None:
        self.desc, self.unit = desc, unit
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit=self.unit, desc=self.desc, file=sys.stderr,
                            dynamic_ncols=True)
        else:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GenerationBar(ProgressBar):
    """The GA's bar: generations done, with the generation's best and held-out losses beside
    (``on_generation(record, done, total)`` of :func:`evolve.ga.run.evolve`)."""

    def __init__(self) -> None:
        super().__init__("evolving", "gen")

    def __call__(self, record: Any, done: int, total: int) -> None:  # type: ignore[override]
        super().__call__(done, total)
        self.bar.set_postfix(best=f"{record.best:.4g}", held=f"{record.held_out:.4g}", refresh=False)

"""The ``mimic`` command line: the one place that wires every package together.

:func:`main` parses the command line, imports only the chosen command's module (see :mod:`evolve.cli.table`),
enters the parallel backend, holds the outputs of a resumable command (:func:`_hold_outputs`), runs the command and
turns a :class:`~search.runtime.errors.MimicError` into one
line ``mimic CMD: message`` and its ``exit_code`` (2 for what the user gave, 1 for a run that could not go on): the
one place exceptions become exit codes. An ``OSError`` no command foresaw is one line and exit 1; standard output
closed by its reader (``mimic genes | head``) ends the command in silence with exit 141 (:data:`STDOUT_GONE`), as
SIGPIPE ends Unix tools; anything else is a traceback (a bug). May import everything (see ARCHITECTURE.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import select
import sys
from collections.abc import Collection, Sequence
from types import ModuleType

from evolve.cli.common import Parser, fail, os_error
from evolve.cli.options import Parents
from evolve.cli.table import COMMANDS


def _module(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name].module)


def build_parser(only: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``mimic`` parser: every command fully built, or, with ``only``, those commands built and the others
    listed by their one-line help alone (so their modules are not imported). Its usage errors are one line
    (:class:`~evolve.cli.common.Parser`), those after a single chosen command named by it."""
    parser = Parser(
        prog="mimic",
        description="Evolve chess evaluation functions by imitating a mentor engine.",
    )
    if only is not None and len(only) == 1:
        parser.command = f"mimic {next(iter(only))}"
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        if only is None or name in only:
            _module(name).add_parser(sub, Parents())
        else:
            sub.add_parser(name, help=command.help)
    return parser


def _chosen(argv: Sequence[str]) -> list[str]:
    """The command named on the command line (the first argument that is not an option), if it is one."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return [first] if first in COMMANDS else []


def _format_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    """Library warnings on the console as one line: ``warning: FILE:LINE: reason``."""
    return f"warning: {message}\n"


def _enter_backend(args: argparse.Namespace, stack: contextlib.ExitStack) -> bool:
    """Enter the backend that ``--backend``/``--scheduler`` (or the environment) choose for the command;
    on a Dask cluster, ``args.jobs`` becomes the cluster's thread count. False (after a one-line
    message) when the backend cannot run."""
    from search.runtime.workers import BackendError, cluster_threads, resolve_backend, use_backend

    prog = f"mimic {args.command}"
    try:
        backend, scheduler = resolve_backend(args.backend, args.scheduler)
        stack.enter_context(use_backend(backend, scheduler))
    except BackendError as exc:
        fail(prog, str(exc))
        return False
    if backend == "dask":
        threads = cluster_threads()
        fail(prog, f"parallel work on the Dask cluster at {scheduler} ({threads} worker threads)")
        args.jobs = max(threads, 1)
    return True


OUTPUTS = ("out", "pgn", "csv")
"""The arguments naming what a resumable command (one with ``--resume``) writes as it goes: a label file, a match's
PGN, a suite's CSV, a game set, a training or evolution folder."""


def _hold_outputs(args: argparse.Namespace, stack: contextlib.ExitStack) -> None:
    """One run at a time on each output of a resumable command (:data:`OUTPUTS`), held until the command ends and
    taken before it reads, repairs or appends anything: a second run is refused with
    :class:`~search.runtime.busy.OutputBusy` (exit 2), as is an output whose folder or lock file cannot be made.
    Two runs appending to one file interleave their records."""
    if not hasattr(args, "resume"):
        return
    from search.runtime.busy import exclusive
    from search.runtime.errors import InputError

    for name in OUTPUTS:
        value = getattr(args, name, None)
        if value and value != "-":
            try:  # the lock file beside the output, and its folder, made now
                stack.enter_context(exclusive(value))
            except OSError as exc:
                raise InputError(f"cannot write {os_error(exc, value)}") from exc


STDOUT_GONE = 128 + 13
"""The exit code when standard output's reader has gone (``mimic genes | head``): that of a process SIGPIPE ended,
as ``cat`` and ``yes`` end, in silence."""


def _stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it (``poll`` reports an error on its writing end)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), or no real stdout (a test's capture)
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mimic`` on ``argv`` (default: ``sys.argv[1:]``); the exit code (0 done, 1 failed, 2 usage or input
    error); never exits (argparse's ``--help`` and usage errors become their exit codes, 0 and 2)."""
    import warnings

    warnings.formatwarning = _format_warning
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(_chosen(argv)).parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, its one line already on stderr)
        return exc.code if isinstance(exc.code, int) else 2
    from search.runtime.errors import MimicError  # after parsing: `search` loads chess, needless for --help

    module = _module(args.command)
    prog = " ".join(["mimic", args.command, *([args.action] if getattr(args, "action", None) else [])])
    try:
        with contextlib.ExitStack() as stack:
            _hold_outputs(args, stack)
            if hasattr(args, "backend") and not _enter_backend(args, stack):
                return 2
            code = int(module.run(args))
        sys.stdout.flush()  # here, not at exit: a reader gone is caught below
        return code
    except BrokenPipeError as exc:
        if not _stdout_gone():
            fail(prog, os_error(exc))  # another pipe (an engine's): a failure like any other
            return 1
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more for the gone reader
        return STDOUT_GONE
    except MimicError as exc:
        fail(prog, os_error(exc) if isinstance(exc, OSError) else str(exc))
        return exc.exit_code
    except OSError as exc:  # a file no command foresaw (the commands' own errors name the file's role)
        fail(prog, os_error(exc))
        return 1


if __name__ == "__main__":
    sys.exit(main())

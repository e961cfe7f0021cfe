"""What the net-training commands share (``train-net``, ``train-pnet``, ``train-cmp``, ``train-moves``,
``deepchess-data``): their parser's head (the description with torch's install line, the input and ``--out``),
``--limit`` and ``--resume``, the closing line naming the results, and the TD-Leaf games' progress bar, which the
library feeds through its callbacks (it never prints).

May import the standard library, :mod:`evolve.cli.common`, :mod:`evolve.cli.table` and :mod:`evolve.nets.common` (no
torch); tqdm when a bar is shown.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from evolve.cli.common import ProgressBar, positive_int
from evolve.cli.table import command_parser
from evolve.nets.common import INSTALL_HINT

NEEDS_TORCH = f"Needs torch: {INSTALL_HINT}."
"""The last sentence of a training command's description."""
LABELS_HELP = "EPD label file (from mimic label)"
OUT_HELP = "results folder, e.g. results/NAME"


def training_parser(subparsers: argparse._SubParsersAction, name: str, parents: list[argparse.ArgumentParser],
                    description: str, *, needs_torch: bool = True, inputs: tuple[str, str] = ("labels", LABELS_HELP),
                    nargs: str | None = None, out_help: str | None = OUT_HELP) -> argparse.ArgumentParser:
    """The sub-parser of a training command: ``description`` (followed by :data:`NEEDS_TORCH`), the positional
    input ``inputs`` (name, help; ``nargs`` as argparse's) and ``--out`` (:func:`add_out`; ``out_help`` ``None``:
    the command adds it itself, later)."""
    p = command_parser(subparsers, name, parents,
                       description=f"{description} {NEEDS_TORCH}" if needs_torch else description)
    input_name, input_help = inputs
    if nargs is None:
        p.add_argument(input_name, help=input_help)
    else:
        p.add_argument(input_name, nargs=nargs, help=input_help)
    if out_help is not None:
        add_out(p, out_help)
    return p


def add_out(p: argparse.ArgumentParser, help: str = OUT_HELP) -> None:
    """``--out`` (required): where the command writes."""
    p.add_argument("--out", required=True, help=help)


def add_limit(p: argparse.ArgumentParser) -> None:
    """``--limit N``: only the first N label lines."""
    p.add_argument("--limit", type=positive_int, default=None, help="only the first N label lines")


def add_resume(p: argparse.ArgumentParser, checkpoints: str = "its checkpoint") -> None:
    """``--resume``: continue the run in ``--out`` from ``checkpoints``."""
    p.add_argument("--resume", action="store_true", help=f"continue the run in --out from {checkpoints}")


def results_line(out: str, files: Sequence[str], how: str) -> str:
    """The closing line: ``results in OUT/ (files); how`` (how to play or search with what was written)."""
    return f"results in {out}/ ({', '.join(files)}); {how}"


class GameBar:
    """The TD-Leaf games' bar (:class:`evolve.cli.common.ProgressBar`, stderr), fed by the library's
    ``on_game(done, total)``; :meth:`say` prints a report line above it. Without ``enabled`` (``--no-progress``) no
    bar: lines are printed as they come. A context manager: the bar is closed however the run ends."""

    def __init__(self, enabled: bool) -> None:
        self.bar = ProgressBar("TD-Leaf", "game") if enabled else None
        self.on_game = self.bar

    def say(self, line: str) -> None:
        shown = self.bar.bar if self.bar is not None else None
        if shown is not None:
            shown.clear()  # the line goes above the bar, not into it
        print(line)
        if shown is not None:
            shown.refresh()

    def __enter__(self) -> GameBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

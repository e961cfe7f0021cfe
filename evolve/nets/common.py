"""What every net trainer shares: torch (:func:`require_torch`), the errors a user can act on, the one epoch record
(:class:`EpochRecord`) and the one summary writer (:func:`write_summary`, :func:`curve_table`, :func:`prelude`).

The trainers (:mod:`evolve.nets.giraffe_run`, :mod:`evolve.nets.pnet_run`, :mod:`evolve.nets.deepchess_run`,
:mod:`evolve.nets.movenet`) report progress through callbacks (``report(line)``, ``on_epoch(record)``); nothing here
prints. Their checkpoints go through :mod:`evolve.nets.checkpoint`.

May import numpy, ``search.runtime``; torch only inside :func:`require_torch`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from search.runtime.atomic import write_atomic
from search.runtime.errors import MimicError, RunExists
from search.runtime.provenance import describe

TORCH_VERSION = "2.13.0"
INSTALL_HINT = f"pip install torch=={TORCH_VERSION}"


class TorchMissing(MimicError, RuntimeError):
    """Training a net needs torch (the optional extra ``nets``) and it is not installed: the message says how to
    install it."""


class NoTrainingData(MimicError, ValueError):
    """The input (labels, positions, openings) gives nothing to train on; the message names the file."""


def require_torch() -> Any:
    """The ``torch`` module, or :class:`TorchMissing` (a ``RuntimeError``) that says how to install it."""
    try:
        import torch
    except ImportError as exc:
        raise TorchMissing(f"training a net needs torch, the optional extra 'nets': {INSTALL_HINT} (the CPU "
                           "build; it is all the extra holds, so an installed wheel needs nothing more)") from exc
    return torch


def refuse_existing(path: Path, message: str) -> None:
    """:class:`RunExists` with ``message`` when ``path`` exists (the caller checks ``resume`` first)."""
    if path.exists():
        raise RunExists(message)


Report = Callable[[str], None]
"""A progress callback: one line for the console (the command line prints it; the library never does)."""


def quiet(_line: str) -> None:
    """The report that says nothing (the default of every trainer's ``report``)."""


@dataclass
class EpochRecord:
    """One epoch of a trainer's curve. ``epoch`` and ``loss`` (the mean training loss over the epoch's mini-batches)
    always; the others where a trainer measures them (``None`` otherwise): the loss after the epoch on every training
    and held-out row, the mean absolute error in centipawns (the mentor's, side to move's view) on them, the epoch's
    CPU seconds. A file stores the measured fields only (:meth:`to_json`), so the Giraffe bootstrap's curve keeps its
    four keys and the perspective net's its seven."""

    epoch: int
    loss: float
    train_mae: float | None = None
    held_mae: float | None = None
    train_loss: float | None = None
    held_loss: float | None = None
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The measured fields, by name (what a header's curve holds)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> EpochRecord:
        """The record of a header's curve entry (checked by :func:`search.runtime.readback.records` before)."""
        return cls(**record)


def column(curve: Sequence[EpochRecord], name: str) -> list[float]:
    """One field of every record of ``curve`` (a chart's line), NaN where it was not measured."""
    return [float("nan") if (v := getattr(r, name)) is None else float(v) for r in curve]


def record_fields(*optional: str) -> dict[str, type]:
    """The keys and types of a curve entry with these optional fields (for :func:`search.runtime.readback.records`)."""
    known = {f.name for f in fields(EpochRecord)}
    unknown = [name for name in optional if name not in known]
    if unknown:
        raise KeyError(f"EpochRecord has no fields {unknown}")
    return {"epoch": int, "loss": float, **dict.fromkeys(optional, float)}


def prelude(title: str, command: str) -> list[str]:
    """The top of every summary: the title, the command as typed (when known) and the code's version."""
    return [f"# {title}", "", f"Command: `{command}`" if command else "", f"Code: {describe()}", ""]


def curve_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], formats: Sequence[str]) -> list[str]:
    """A markdown table: the header ``columns``, then one line per row, each cell formatted with its entry of
    ``formats`` (``"{:.4f}"``, ``"{}"``...)."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(f.format(v) for f, v in zip(formats, row, strict=True)) + " |" for row in rows]
    return out


def write_summary(path: Path, lines: Sequence[str]) -> None:
    """``summary.md``: the lines, written whole (:func:`search.runtime.atomic.write_atomic`)."""
    write_atomic(path, "\n".join(lines) + "\n")

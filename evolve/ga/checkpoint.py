"""GA checkpoints: one ``.npz`` holding the arrays and, as a JSON string in the array ``meta``, everything
else (generation, settings, genome, generator states, logbook); no pickle, so a checkpoint from elsewhere
cannot run code on load. :func:`write_checkpoint` writes one whole through
:func:`search.runtime.atomic.atomic_path`; :func:`read_checkpoint` validates everything before anything is
restored.

May import: numpy, ``evolve.ga.settings``, ``organisms.genome``, ``search.runtime`` (the atomic writer, the
checks on files read back).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from evolve.ga.settings import GASettings
from organisms.genome import Genome
from search.runtime.atomic import atomic_path
from search.runtime.readback import NpzFile, ReadbackError, number, read_json

NEW_SETTINGS = {"mutation_kind": "bit", "mutation_sigma": 0.1, "mutation_sigma_final": None, "prior": 0.0}
"""Settings added after checkpoints were first written: a checkpoint without them ran with these values."""
CHECKPOINT_FORMAT = 2
"""2: one ``.npz`` holding the arrays and the JSON metadata; 1: ``.npz`` arrays + ``.json`` beside."""


def write_checkpoint(path: Path, meta: Mapping[str, Any], *, population: np.ndarray, losses: np.ndarray,
                     hof_bits: np.ndarray, hof_losses: np.ndarray) -> None:
    """Write the checkpoint ``path.npz`` as one unit: the arrays and ``meta`` (after ``format``) as one JSON
    string. The file is written beside, fsynced and moved into place (:func:`search.runtime.atomic.atomic_path`),
    so a kill at any moment leaves either the previous checkpoint or this one, never a mix. A checkpoint of
    the first format (npz + JSON pair) left beside by an older version is then removed: it is stale."""
    path = Path(path)
    text = json.dumps({"format": CHECKPOINT_FORMAT, **meta})
    with atomic_path(path.with_suffix(".npz"), suffix=".npz") as tmp, open(tmp, "wb") as fh:
        np.savez(fh, population=population, losses=losses, hof_bits=hof_bits, hof_losses=hof_losses,
                 meta=np.array(text))
    path.with_suffix(".json").unlink(missing_ok=True)


def checkpoint_exists(path: Path) -> bool:
    """Whether a checkpoint (either format) lies at ``path`` (without suffix)."""
    path = Path(path)
    return path.with_suffix(".npz").exists() or path.with_suffix(".json").exists()


@dataclass
class CheckpointState:
    """A checkpoint read and validated by :func:`read_checkpoint` (nothing restored yet)."""

    source: str
    generation: int
    elapsed: float  # seconds
    settings: dict[str, Any]
    genome: Genome
    rng: dict[str, Any]
    logbook: list[dict[str, float]]
    population: np.ndarray  # (population, bits) uint8
    losses: np.ndarray  # (population,) float64
    hof_bits: np.ndarray  # (k, bits) uint8
    hof_losses: np.ndarray  # (k,) float64


_LOGBOOK_KEYS = ("gen", "best", "mean", "std", "held_out", "seconds")
LOGBOOK_EXTRA = ("held_out_cp",)
"""Columns a run's logbook may carry besides :data:`_LOGBOOK_KEYS`, in every record or in none: ``held_out_cp``, the
held-out error in centipawns of a loss that is not in centipawns (``--loss wdl``)."""
_ARRAYS = ("population", "losses", "hof_bits", "hof_losses")
MAX_CHECKPOINT_BYTES = 1 << 30
"""A checkpoint larger than this (1 GiB) is refused rather than read."""
MAX_META_CHARS = 64 << 20
"""The checkpoint's JSON (settings, genome, generator states, logbook: a few kB a generation) is at most this long."""


class CheckpointError(ReadbackError):
    """A GA checkpoint that cannot be resumed: one line naming the file and the first thing wrong."""


_number = number
"""A JSON number a float can hold (:func:`search.runtime.readback.number`)."""


def read_checkpoint(path: Path) -> CheckpointState:
    """Read and validate the checkpoint at ``path`` (without suffix); :class:`CheckpointError` names the file and
    the first thing wrong. The arrays are read through :class:`search.runtime.readback.NpzFile` (each ``.npy``
    header checked before anything is allocated; numbers only), the JSON nested at most
    :data:`~search.runtime.readback.MAX_JSON_DEPTH` deep. The schema: see :func:`write_checkpoint` and
    :meth:`evolve.ga.evolution.Evolution.save`."""
    path = Path(path)
    npz = path.with_suffix(".npz")
    legacy = path.with_suffix(".json")
    source = str(npz)
    if not npz.is_file():
        raise CheckpointError(f"{npz}: no checkpoint file" + (" (its JSON half is there)" if legacy.exists() else ""))
    if npz.stat().st_size > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(f"{npz}: too large for a checkpoint ({npz.stat().st_size} bytes)")
    meta: object = None
    with NpzFile(npz, "checkpoint", error=CheckpointError) as data:
        data.require(_ARRAYS)
        arrays = {name: data.array(name, kinds="biuf") for name in _ARRAYS}
        if "meta" in data.names:
            meta = data.json("meta", MAX_META_CHARS, top=object)
    if meta is None:  # the first format: the rest in path.json
        source = str(legacy)
        if not legacy.is_file():
            raise CheckpointError(f"{npz}: not a checkpoint (no meta array, and no {legacy.name} beside it)")
        meta = read_json(legacy, "checkpoint's JSON half", top=object, max_bytes=MAX_META_CHARS,
                         error=CheckpointError)
    return _validate(source, meta, arrays, legacy=source == str(legacy))


def _validate(source: str, meta: object, arrays: dict[str, np.ndarray], legacy: bool) -> CheckpointState:
    def bad(what: str) -> CheckpointError:
        return CheckpointError(f"{source}: {what}")

    if not isinstance(meta, dict):
        raise bad("the checkpoint's metadata must be a JSON object")
    required = ["format", "generation", "elapsed", "settings", "genome", "rng_ops", "rng_sample", "logbook"]
    for key in required if legacy else [*required, "encoding"]:
        if key not in meta:
            raise bad(f"missing {key!r}")
    expected_format = 1 if legacy else CHECKPOINT_FORMAT
    if meta["format"] != expected_format or isinstance(meta["format"], bool):
        raise bad(f"unknown checkpoint format {meta['format']!r} (expected {expected_format})")
    # Settings: exactly GASettings' fields, accepted by its own checks.
    settings = meta["settings"]
    field_names = {f.name for f in fields(GASettings)}
    if isinstance(settings, dict):
        settings = {**{k: v for k, v in NEW_SETTINGS.items() if k not in settings}, **settings}
    if not isinstance(settings, dict) or set(settings) != field_names:
        raise bad(f"'settings' must be an object with the keys {sorted(field_names)}")
    for f in fields(GASettings):
        v = settings[f.name]
        ok = isinstance(v, str) if f.type == "str" else (
            isinstance(v, int) and not isinstance(v, bool) if f.type == "int" else
            (v is None or _number(v)) if f.type == "float | None" else _number(v))
        if not ok:
            raise bad(f"settings.{f.name} must be {'a string' if f.type == 'str' else 'a number'}, got {v!r}")
    try:
        ga = GASettings(**settings)
    except (TypeError, ValueError) as exc:
        raise bad(f"invalid settings ({exc})") from exc
    # Genome.
    encoding = meta.get("encoding", "binary")
    genes = meta["genome"]
    if not isinstance(genes, list) or not all(isinstance(g, dict) for g in genes) or not isinstance(encoding, str):
        raise bad("'genome' must be a list of gene objects and 'encoding' a string")
    try:
        genome = Genome.from_list(genes, encoding)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise bad(f"invalid genome ({exc})") from exc
    # Generation, time, logbook: generations 0..generation, one record each.
    gen = meta["generation"]
    if not isinstance(gen, int) or isinstance(gen, bool) or not 0 <= gen <= ga.generations:
        raise bad(f"generation must be an integer within 0..{ga.generations}, got {gen!r}")
    elapsed = meta["elapsed"]
    if not _number(elapsed) or not math.isfinite(elapsed) or elapsed < 0:
        raise bad(f"elapsed must be a non-negative number of seconds, got {elapsed!r}")
    logbook = meta["logbook"]
    if not isinstance(logbook, list) or len(logbook) != gen + 1:
        raise bad(f"the logbook must hold one record per generation 0..{gen}")
    columns = set(logbook[0]) if logbook and isinstance(logbook[0], dict) else set()
    columns = set(_LOGBOOK_KEYS) | (columns & set(LOGBOOK_EXTRA))
    for i, rec in enumerate(logbook):
        if (not isinstance(rec, dict) or set(rec) != columns or rec["gen"] != i
                or not all(_number(rec[k]) for k in columns)
                or not all(math.isfinite(rec[k]) for k in ("best", "mean", "std", "seconds"))):  # held out: NaN if none
            names = ", ".join(k for k in (*_LOGBOOK_KEYS, *LOGBOOK_EXTRA) if k in columns and k != "gen")
            raise bad(f"logbook record {i} must be {{gen: {i}, {names}}} (numbers; finite but for the held-out "
                      f"errors of a run without held-out rows)")
    for key in ("rng_ops", "rng_sample"):
        if not isinstance(meta[key], dict):
            raise bad(f"{key} must be a bit-generator state object")
    # Arrays: shapes, types and ranges.
    n, bits = ga.population, genome.total_bits
    pop, losses = arrays["population"], arrays["losses"]
    hof_bits, hof_losses = arrays["hof_bits"], arrays["hof_losses"]
    for name, arr in arrays.items():
        if arr.dtype.kind not in "biuf":
            raise bad(f"array {name!r} must be numeric, got {arr.dtype}")
    if pop.shape != (n, bits) or not np.isin(pop, (0, 1)).all():
        raise bad(f"population must be {n} x {bits} bits of 0/1, got shape {pop.shape}")
    if losses.shape != (n,) or not np.isfinite(losses).all():
        raise bad(f"losses must be {n} finite numbers, got shape {losses.shape}")
    k = hof_losses.shape[0] if hof_losses.ndim == 1 else -1
    if (k < 0 or k > ga.hall_of_fame or hof_bits.shape != (k, bits) or not np.isin(hof_bits, (0, 1)).all()
            or not np.isfinite(hof_losses).all()):
        raise bad(f"the hall of fame must be at most {ga.hall_of_fame} rows of {bits} bits of 0/1 with one "
                  f"finite loss each, got shapes {hof_bits.shape} and {hof_losses.shape}")
    if float(logbook[-1]["best"]) != float(losses.min()):
        # The first format could be torn between its two files: new arrays beside an older generation.
        raise bad(f"the losses are not those of generation {gen} (its logbook's best is {logbook[-1]['best']}, "
                  f"the losses' least {float(losses.min())}): a checkpoint mixed from two generations")
    return CheckpointState(source, gen, float(elapsed), settings, genome,
                           {"rng_ops": meta["rng_ops"], "rng_sample": meta["rng_sample"]},
                           [{k: rec[k] for k in (*_LOGBOOK_KEYS, *LOGBOOK_EXTRA) if k in columns} for rec in logbook],
                           pop.astype(np.uint8), losses.astype(np.float64),
                           hof_bits.astype(np.uint8), hof_losses.astype(np.float64))


def jsonable_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A bit-generator state with numpy scalars turned into Python numbers."""
    out: dict[str, Any] = {}
    for k, v in state.items():
        if isinstance(v, dict):
            out[k] = jsonable_state(v)
        elif isinstance(v, np.integer):
            out[k] = int(v)
        elif isinstance(v, np.ndarray):
            out[k] = v.tolist()
        else:
            out[k] = v
    return out

"""The one checkpoint writer and reader of the net trainers: weights (and optimiser state) as ``.npz`` arrays with a
JSON header, written by :func:`organisms.net.write_net_file` (whole or not at all, no pickle) and read back by
:func:`organisms.net.read_net_file` (every array's header checked before it is loaded), then checked before anything
is restored: its kind, the settings it was made with (where a trainer requires the same), every array of exactly the
shape these settings need, finite, and its curve one finite record per epoch.

The files keep the keys they had: the perspective net's ``checkpoint.npz`` (kind ``pnet-checkpoint``), TD-Leaf's
``td-checkpoint.npz`` (kind ``td-checkpoint``, written since issue 37; older files have none and are read as
theirs), ``train-cmp``'s ``checkpoint.npz`` (kind ``cmp-checkpoint``, likewise), the Giraffe bootstrap's
``boot-checkpoint.npz`` (kind ``boot-checkpoint``). An optimiser's state is saved and restored by
:func:`optimizer_arrays` and :func:`load_optimizer` (``train-cmp``'s and the bootstrap's).

May import numpy, ``organisms.net``, ``search.runtime``, ``evolve.nets.common`` (torch only inside
:func:`load_optimizer`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evolve.nets.common import require_torch
from organisms.net import NetFileError, ShapesOf, read_net_file, write_net_file
from search.runtime.readback import records, require, whole


def write_checkpoint(path: Path, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any]) -> None:
    """``arrays`` and ``header`` (JSON) as one ``.npz`` at ``path``, written whole or not at all."""
    write_net_file(path, arrays, header)


def read_checkpoint(path: Path, shapes_of: ShapesOf, *, noun: str, kind: str | None = None, legacy_kind: bool = False,
                    identity: Mapping[str, Any] | None = None, error: type[NetFileError] = NetFileError,
                    nonfinite: str = "{name} must hold finite floats") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and header of the checkpoint ``path``, checked (module docstring): ``shapes_of(header)`` gives the
    shape of every array the settings need; ``kind`` is the header's ``kind`` (with ``legacy_kind``, a header without
    one is accepted: written before kinds were); each key of ``identity`` must hold the same value in the header.
    ``error`` (a :class:`~organisms.net.NetFileError`), one line naming the file, otherwise (``nonfinite``: the
    words after the file's name for an array that is not finite, ``{name}`` the array's)."""
    source = str(path)
    arrays, header = read_net_file(path, shapes_of, error=error, noun=noun, needs="these settings need")
    if kind is not None and header.get("kind", kind if legacy_kind else None) != kind:
        raise error(f"{source}: not a {noun} (kind {repr(header.get('kind'))[:40]})")
    for key, value in (identity or {}).items():
        if header.get(key) != value:
            raise error(f"{source}: made with other {key} settings ({repr(header.get(key))[:200]}); these "
                        f"are {repr(value)[:200]} (another --out, or the same settings)")
    bad = next((k for k, a in arrays.items() if not np.all(np.isfinite(a))), None)
    if bad is not None:
        raise error(f"{source}: " + nonfinite.format(name=bad))
    return arrays, header


def read_count(header: Mapping[str, Any], key: str, source: str, most: int, *,
               error: type[NetFileError] = NetFileError) -> int:
    """The header's ``key``: a whole number from 0 to ``most`` (epochs, iterations or steps done)."""
    return whole(require(header, key, (int, float), source, error=error), key, source, 0, most, error=error)


def read_curve(header: Mapping[str, Any], key: str, fields: Mapping[str, type], source: str, *, rows: int,
               index: str | None = None, allow_nan: Callable[[str], bool] | None = None,
               error: type[NetFileError] = NetFileError) -> list[dict[str, Any]]:
    """The header's curve ``key``: ``rows`` records of exactly ``fields`` (numbers); with ``index``, entry ``i`` is
    that field's ``i + 1`` and every value finite (except a field ``allow_nan`` accepts)."""
    curve = records(require(header, key, list, source, error=error), fields, key, source, error=error)
    if len(curve) != rows:
        raise error(f"{source}: {_count_message(key, len(curve), rows)}")
    if index is not None:
        for i, row in enumerate(curve):
            bad = [k for k, v in row.items() if not math.isfinite(v) and not (allow_nan and allow_nan(k))]
            if bad or row[index] != i + 1:
                what = bad[0] if bad else index
                raise error(f"{source}: {key}[{i}] must be {index} {i + 1}'s record of finite numbers ({what} is "
                            f"{row[what]!r})")
    return curve


def _count_message(key: str, n: int, rows: int) -> str:
    """The message of a curve of the wrong length (the words the readers have always used)."""
    if key == "curve":
        return f"its curve has {n} rows for epoch {rows}"
    return f"{key} has {n} rows for td_iteration {rows}" if key == "td_curve" else f"{key} has {n} rows for {rows}"


def optimizer_arrays(opt: Any) -> dict[str, np.ndarray]:
    """The optimizer's per-parameter state (``state_dict()["state"]``: for Adam ``step``, ``exp_avg`` and
    ``exp_avg_sq``) as arrays named ``adam_<parameter index>_<name>``."""
    return {f"adam_{i}_{name}": t.detach().cpu().numpy().copy()
            for i, st in opt.state_dict()["state"].items() for name, t in st.items()}


def load_optimizer(opt: Any, arrays: Mapping[str, np.ndarray]) -> None:
    """Restore what :func:`optimizer_arrays` saved (the learning rates stay the optimizer's own); other arrays in
    ``arrays`` are left alone."""
    torch = require_torch()
    state: dict[int, dict[str, Any]] = {}
    for key, a in arrays.items():
        if key.startswith("adam_"):
            _, i, name = key.split("_", 2)
            state.setdefault(int(i), {})[name] = torch.from_numpy(np.array(a))
    sd = opt.state_dict()
    sd["state"] = state
    opt.load_state_dict(sd)


def adam_shapes(params: list[tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """The arrays :func:`optimizer_arrays` saves for Adam over parameters of these shapes (in the optimizer's
    order)."""
    return {f"adam_{i}_{name}": shape for i, p in enumerate(params)
            for name, shape in (("step", ()), ("exp_avg", p), ("exp_avg_sq", p))}

"""The one home of the checks on files mimic reads back (issue 23): bounded JSON, typed keys, and ``.npz`` arrays
whose ``.npy`` headers are checked before anything is allocated.

Every file mimic wrote and reads again (net files, the trainers' and the GA's checkpoints, sidecars, clone
folders, caches) may have been damaged or crafted in between, so none is trusted as it comes:

- **JSON** (:func:`read_text`, :func:`parse_json`, :func:`read_json`): a regular file (a FIFO or a device would
  block) of at most a stated size, UTF-8, nested at most :data:`MAX_JSON_DEPTH` deep (checked before parsing, so
  no ``RecursionError``), of the expected top-level type;
- **values** (:func:`require`, :func:`finite`, :func:`whole`, :func:`strings`, :func:`rows`, :func:`records`):
  required keys of a JSON type, finite numbers, whole numbers in a range, lists of strings, tables of numbers,
  lists of records;
- **arrays** (:class:`NpzFile`): an ``.npz`` read member by member, each member's ``.npy`` header checked first:
  no Python objects (never a pickle), at most :data:`MAX_ARRAY_ELEMENTS` elements (or the caller's cap), no
  more bytes than the member holds, then the caller's shape, dtype kinds and finiteness.

A file that fails is a :class:`ReadbackError` (a :class:`~search.runtime.errors.MimicError`), one line naming the
file, the key or array, and what is wrong; a reader may pass its own subclass (``error=``). Imports the standard
library, numpy and ``search.runtime.errors`` (ARCHITECTURE.md: ``search/runtime/``).
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeGuard

import numpy as np

from search.runtime.errors import MimicError
from search.runtime.files import open_regular


class ReadbackError(MimicError, ValueError):
    """A file read back that is not what mimic wrote: its message names the file, the key or array, and what is
    wrong (a ``ValueError`` too, for callers that report those)."""


Error = type[MimicError]

MAX_JSON_BYTES = 16 << 20
"""A JSON file read back is at most this many bytes unless its reader says otherwise (a real one: kilobytes)."""
MAX_JSON_DEPTH = 32
"""JSON read back nests at most this deep (the deepest mimic writes: 5)."""
MAX_ARRAY_ELEMENTS = 1 << 26
"""An array read back holds at most this many elements unless its reader says otherwise (256 MiB of float32)."""
NPY_MAGIC = b"\x93NUMPY"

_JSON_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
               float: "a number"}


def json_type(value: object) -> str:
    """JSON's name for a parsed value's type, with its article (``an object``, ``a list``, ``null``, ...).

    >>> json_type([]), json_type(None), json_type(2.5)
    ('a list', 'null', 'a number')
    """
    return "null" if value is None else _JSON_NAMES.get(type(value), type(value).__name__)


def read_text(path: str | Path, max_bytes: int, what: str, *, error: Error = ReadbackError) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``. The file is opened without blocking and checked
    before anything is read: a FIFO, a device or ``/dev/stdin``, a directory, a larger file or undecodable bytes
    raise ``error`` naming the file and ``what`` it should be; failing to open it raises ``OSError``."""
    with open_regular(path, what, error=error) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise error(f"{path}: {size} bytes is too large for a {what} (at most {max_bytes})")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"{path}: too large for a {what} (more than {max_bytes} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def check_depth(text: str, source: str, what: str = "JSON", max_depth: int = MAX_JSON_DEPTH, *,
                error: Error = ReadbackError) -> None:
    """Refuse JSON ``text`` that nests deeper than ``max_depth`` (brackets inside strings do not count), before
    any parser recurses into it."""
    if text.count("[") + text.count("{") <= max_depth:  # only then can it nest too deep: scan it
        return
    depth = 0
    quoted = escaped = False
    for c in text:
        if quoted:
            quoted, escaped = (c != '"' or escaped), (c == "\\" and not escaped)
        elif c == '"':
            quoted = True
        elif c in "[{":
            depth += 1
            if depth > max_depth:
                raise error(f"{source}: {what} nests deeper than {max_depth} levels")
        elif c in "]}":
            depth -= 1


def parse_json(text: str, source: str, what: str = "JSON", *, top: type = dict, max_depth: int = MAX_JSON_DEPTH,
               error: Error = ReadbackError) -> Any:
    """``text`` parsed, nested at most ``max_depth`` deep and of type ``top`` (``object`` for any); ``error``
    names ``source`` and ``what`` otherwise.

    >>> parse_json('{"a": [1]}', "f.json")
    {'a': [1]}
    >>> parse_json('[1]', "f.json", "the manifest")
    Traceback (most recent call last):
    search.runtime.readback.ReadbackError: f.json: the manifest is a list, not an object
    """
    check_depth(text, source, what, max_depth, error=error)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{source}:{exc.lineno}: {what} is not JSON: {exc.msg}") from exc
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more digits than Python converts
        raise error(f"{source}: {what} is not JSON: {str(exc)[:200]}") from exc
    if not isinstance(data, top):
        raise error(f"{source}: {what} is {json_type(data)}, not {json_type(top())}")
    return data


def read_json(path: str | Path, what: str, *, top: type = dict, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int = MAX_JSON_DEPTH, error: Error = ReadbackError) -> Any:
    """The JSON of file ``path`` (:func:`read_text`, then :func:`parse_json`); a file that cannot be opened is
    ``error`` too, naming it."""
    try:
        text = read_text(path, max_bytes, what, error=error)
    except OSError as exc:
        raise error(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    return parse_json(text, str(path), f"the {what}", top=top, max_depth=max_depth, error=error)


def require(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], source: str, where: str = "", *,
            error: Error = ReadbackError) -> Any:
    """``data[key]``, present and of JSON type ``kind`` (a bool is not a number); ``where`` prefixes the key's name
    in the message (``clones.Tal.``)."""
    if key not in data:
        raise error(f"{source}: {where}{key} is missing")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise error(f"{source}: {where}{key} is {json_type(value)}, not {json_type(kinds[0]())}")
    return value


def number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a JSON number a float can hold (not a bool, nor an integer of hundreds of digits).

    >>> number(2), number(2.5), number(True), number(10**400)
    (True, True, False, False)
    """
    return isinstance(value, float) or (type(value) is int and abs(value) < 1 << 1023)


def finite(value: object, what: str, source: str, low: float = -math.inf, high: float = math.inf, *,
           error: Error = ReadbackError) -> float:
    """``value`` as a finite number in [``low``, ``high``] (a bool is not one), else ``error``.

    >>> finite(2, "beta", "m.json")
    2.0
    >>> finite(float("nan"), "beta", "m.json")
    Traceback (most recent call last):
    search.runtime.readback.ReadbackError: m.json: beta is nan, expected a finite number
    """
    if not number(value) or not math.isfinite(value) or not low <= value <= high:
        bounds = "" if (low, high) == (-math.inf, math.inf) else f" in [{low:g}, {high:g}]"
        raise error(f"{source}: {what} is {repr(value)[:40]}, expected a finite number{bounds}")
    return float(value)


def whole(value: object, what: str, source: str, low: int, high: int, *, error: Error = ReadbackError) -> int:
    """``value`` as a whole number in [``low``, ``high``] (an int, not a bool nor a float), else ``error``.

    >>> whole(3, "epoch", "c.npz", 1, 10)
    3
    >>> whole(2.5, "epoch", "c.npz", 1, 10)
    Traceback (most recent call last):
    search.runtime.readback.ReadbackError: c.npz: epoch is 2.5, expected a whole number in [1, 10]
    """
    if type(value) is not int or not low <= value <= high:
        raise error(f"{source}: {what} is {repr(value)[:40]}, expected a whole number in [{low}, {high}]")
    return value


def strings(value: object, what: str, source: str, *, error: Error = ReadbackError) -> list[str]:
    """``value`` as a list of strings, else ``error``."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise error(f"{source}: {what} is {json_type(value)}, expected a list of strings")
    return value


def rows(value: object, width: int, what: str, source: str, *, error: Error = ReadbackError) -> list[list[float]]:
    """``value`` as a table: a list of rows of ``width`` finite numbers each (a curve of a training), else
    ``error`` naming the first bad row.

    >>> rows([[1, 0.5]], 2, "curves.compare", "c.npz")
    [[1, 0.5]]
    >>> rows([[1, "x"]], 2, "curves.compare", "c.npz")
    Traceback (most recent call last):
    search.runtime.readback.ReadbackError: c.npz: curves.compare[0] is [1, 'x'], expected 2 finite numbers
    """
    if not isinstance(value, list):
        raise error(f"{source}: {what} is {json_type(value)}, expected a list of rows")
    for i, row in enumerate(value):
        if (not isinstance(row, list) or len(row) != width
                or not all(number(v) and math.isfinite(v) for v in row)):
            raise error(f"{source}: {what}[{i}] is {repr(row)[:60]}, expected {width} finite numbers")
    return value


def records(value: object, fields: Mapping[str, type], what: str, source: str, *,
            error: Error = ReadbackError) -> list[dict[str, Any]]:
    """``value`` as a list of objects with exactly the keys of ``fields``, each an ``int`` (a whole number >= 0) or
    a ``float`` (any number: mimic writes NaN for an error it could not measure), else ``error`` naming the first
    bad record.

    >>> records([{"epoch": 1, "loss": 0.5}], {"epoch": int, "loss": float}, "epoch_curve", "b.npz")
    [{'epoch': 1, 'loss': 0.5}]
    >>> records([{"epoch": 1}], {"epoch": int, "loss": float}, "epoch_curve", "b.npz")
    Traceback (most recent call last):
    search.runtime.readback.ReadbackError: b.npz: epoch_curve[0] is {'epoch': 1}, expected {epoch, loss} (numbers)
    """
    if not isinstance(value, list):
        raise error(f"{source}: {what} is {json_type(value)}, expected a list of objects")
    for i, rec in enumerate(value):
        if (not isinstance(rec, dict) or set(rec) != set(fields)
                or not all(type(rec[k]) is int and rec[k] >= 0 if kind is int else
                           number(rec[k]) for k, kind in fields.items())):
            raise error(f"{source}: {what}[{i}] is {repr(rec)[:80]}, expected {{{', '.join(fields)}}} (numbers)")
    return value


class NpzFile:
    """An ``.npz`` read member by member, never with pickles, each array's ``.npy`` header checked before its data
    is read (see the module docstring). Use it as a context manager::

        with NpzFile(path, "checkpoint") as npz:
            header = npz.json("header")
            w = npz.array("w", shape=(3, 4), kinds="f", finite=True)

    ``noun`` names the kind of file in messages (``cannot read the checkpoint``, ``not a checkpoint (.npz without
    pickles)``); ``needs`` says where an expected shape comes from (``w has shape (2,), {needs} (3,)``)."""

    def __init__(self, path: str | Path, noun: str, *, error: Error = ReadbackError,
                 needs: str = "expected") -> None:
        self.path, self.noun, self.error, self.needs = path, noun, error, needs
        try:
            self.fh = open_regular(path, noun, error=error)
        except OSError as exc:
            raise error(f"{path}: cannot read the {noun}: {exc.strerror or exc}") from exc
        try:
            self.zip = self._open_zip()
        except BaseException:
            self.fh.close()
            raise
        self.members = {i.filename[:-4]: i for i in self.zip.infolist() if i.filename.endswith(".npy")}

    def _open_zip(self) -> zipfile.ZipFile:
        """The archive of the open file, refused as :meth:`_not` a net file when it is a bare ``.npy`` or no zip."""
        try:
            if self.fh.read(len(NPY_MAGIC)) == NPY_MAGIC:
                raise self._not("a bare .npy array")
            self.fh.seek(0)
            return zipfile.ZipFile(self.fh)
        except MimicError:
            raise
        except OSError as exc:
            raise self.error(f"{self.path}: cannot read the {self.noun}: {exc.strerror or exc}") from exc
        except (ValueError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
            raise self._not(str(exc)) from exc

    def _not(self, reason: str) -> MimicError:
        return self.error(f"{self.path}: not a {self.noun} (.npz without pickles): {reason}")

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.zip.close()
        self.fh.close()

    @property
    def names(self) -> set[str]:
        """The arrays the file holds."""
        return set(self.members)

    def require(self, names: Iterable[str]) -> None:
        """Refuse a file without every array of ``names``."""
        missing = [n for n in names if n not in self.members]
        if missing:
            raise self.error(f"{self.path}: missing arrays {', '.join(missing)}")

    def array(self, name: str, shape: tuple[int, ...] | None = None, *, kinds: str | None = None,
              finite: bool = False, max_elements: int = MAX_ARRAY_ELEMENTS, max_bytes: int | None = None) -> np.ndarray:
        """Array ``name``, its ``.npy`` header checked before its data is read: no objects, at most ``max_elements``
        elements of at most ``max_bytes`` in all (default: 8 bytes an element, at least 1 MiB) and no more bytes than
        the member holds; then, when given, exactly ``shape``, a dtype of one of the numpy ``kinds`` (``"f"`` floats,
        ``"iu"`` integers, ``"U"`` text, ...), and ``finite`` values."""
        if name not in self.members:
            raise self.error(f"{self.path}: missing arrays {name}")
        info, path = self.members[name], self.path
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise self._not(f"array {name} claims {info.file_size:,} bytes stored in {info.compress_size:,}")
        try:
            with self.zip.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    found, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    found, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise self.error(f"{path}: array {name}: .npy format version {version}, expected 1.0 or 2.0")
                n = math.prod(found)
                if dtype.hasobject:
                    raise self._not(f"array {name} holds Python objects")
                limit = min(info.file_size, max(8 * max_elements, 1 << 20) if max_bytes is None else max_bytes)
                if n > max_elements or n * dtype.itemsize > limit:
                    raise self.error(f"{path}: array {name} claims shape {found} ({n:,} elements), more than it may "
                                     f"hold (at most {max_elements:,} elements, {limit:,} bytes)")
                if shape is not None and tuple(found) != tuple(shape):
                    raise self.error(f"{path}: {name} has shape {tuple(found)}, {self.needs} {tuple(shape)}")
                if kinds is not None and dtype.kind not in kinds:
                    raise self.error(f"{path}: {name} is of type {dtype}, expected {_KIND_NAMES.get(kinds, kinds)}")
                data = fh.read(n * dtype.itemsize)
        except MimicError:
            raise
        except (ValueError, EOFError, OSError, zipfile.BadZipFile, NotImplementedError) as exc:
            raise self._not(f"array {name}: {str(exc)[:200]}") from exc
        if len(data) != n * dtype.itemsize:
            raise self.error(f"{path}: array {name} is cut short ({len(data)} of {n * dtype.itemsize} bytes)")
        flat = np.frombuffer(data, dtype=dtype)
        out = (flat.reshape(found[::-1]).T if fortran else flat.reshape(found)).copy(order="K")
        if finite and (out.dtype.kind not in "biuf" or not np.all(np.isfinite(out))):
            raise self.error(f"{path}: {name} must hold finite numbers")
        return out

    def json(self, name: str, max_chars: int = MAX_JSON_BYTES, *, max_depth: int = MAX_JSON_DEPTH,
             top: type = dict) -> Any:
        """The JSON held as one string in array ``name`` (a header), at most ``max_chars`` characters, nested at
        most ``max_depth`` deep, of type ``top``."""
        if name not in self.members:
            raise self._not(f"no {name} array")
        array = self.array(name, max_elements=1, max_bytes=4 * max_chars, kinds="U")
        if array.shape != ():
            raise self.error(f"{self.path}: the {name} array has shape {array.shape}, expected one string")
        return parse_json(str(array[()]), str(self.path), f"the {name}", top=top, max_depth=max_depth,
                          error=self.error)


_KIND_NAMES = {"f": "floats", "i": "signed integers", "u": "unsigned integers", "iu": "integers", "biu": "integers",
               "U": "text", "biuf": "numbers"}

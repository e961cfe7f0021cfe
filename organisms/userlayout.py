"""A user's genome layout, loaded from its term file (``--genome myterms.py[:NAME]``) or module
(``--genome package.module:NAME``) and checked: its features, genes and terms (docs/terms.md).

The file's bytes are read once, hashed (SHA-256) and run from those very bytes, so the digest names the code that
made the features: it keys their cache (:attr:`UserLayout.feature_set`) and is recorded beside the layout's
source in every organism file and genome made with it (:class:`organisms.genome.LayoutRef`); where an organism
file finds it again is :mod:`organisms.userfiles`. The digest covers that one file (a module the file imports is not
in it). A worker process rebuilds the layout from its source and checks the digest
(:func:`load_checked`), so only strings travel to workers, never code or pickles.

A layout is loaded once per process and digest (:func:`load_layout`). Its errors are :class:`LayoutError`
(exit 2) naming the spec or file and, for a bad term, the term.

May import: chess, numpy; ``organisms.features``, ``organisms.genome``, ``organisms.userterms``, ``search.runtime``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import signal
import sys
import threading
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

from organisms.features import ALL, EG, FEATURE_SPEC, LAYOUTS, MG, N_FEATURES, RICH_FEATURE_NAMES, TERM_NAMES
from organisms.genome import Gene, GenomeError, LayoutRef, rich_genome
from organisms.userterms import TAPERS, Layout, Term
from search.runtime.errors import MimicError
from search.runtime.files import read_regular

USER_FORMAT = 2
"""Bumped whenever how a user layout's features are made changes (it keys their cache with the file's digest). 2: counts
bounded, both forms compared on every position (a cache of version 1 may hold features version 2 refuses)."""

DEFAULT_NAME = "LAYOUT"
"""The name a term file binds its :class:`~organisms.userterms.Layout` to, unless the spec names another."""

FILE_SPEC = re.compile(r"(?P<path>.+\.py)(?::(?P<name>[A-Za-z_]\w*))?")
MODULE_SPEC = re.compile(r"(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*)")
SPEC_FORMS = "paper, rich, a term file FILE.py[:NAME] or a module PACKAGE.MODULE:NAME"


class LayoutError(MimicError, ValueError):
    """A user's layout that cannot be used (a spec of no known form, a file that is missing or raises, a bad term,
    a digest that differs from the one recorded): one line naming the spec or file, and the term. Exit 2."""


def is_builtin(layout: str) -> bool:
    """Whether ``layout`` names one of mimic's own layouts (``organisms.features.LAYOUTS``)."""
    return layout in LAYOUTS


def check_spec(text: str) -> str:
    """``text`` if it is a layout's name or has the form of a user layout's spec (nothing is loaded), else
    :class:`LayoutError` saying which forms there are."""
    if is_builtin(text) or FILE_SPEC.fullmatch(text) or MODULE_SPEC.fullmatch(text):
        return text
    raise LayoutError(f"unknown genome layout {text!r} (one of {SPEC_FORMS})")


@dataclass(frozen=True)
class TermGroup:
    """A user term and the columns of its features in the layout (after the built-in ones), with each one's
    taper (``organisms.features``' ALL, MG or EG)."""

    term: Term
    columns: tuple[int, ...]
    tapers: tuple[int, ...]


@dataclass(frozen=True)
class UserLayout:
    """A loaded, checked user layout. ``names``: every feature (and gene), built-in ones first; ``builtin``: their
    columns in ``organisms.features.RICH_FEATURE_NAMES``; ``groups``: the user's terms, with their columns in
    ``names``. ``source``: the canonical spec (an absolute path, ``:NAME`` when not ``LAYOUT``, or
    ``MODULE:NAME``); ``sha256``: of the file's bytes; ``attr``: the name the layout is bound to; ``file``: the term
    file's absolute path (a module's file), whose lines errors name."""

    source: str
    sha256: str
    attr: str
    names: tuple[str, ...]
    genes: tuple[Gene, ...]
    builtin: tuple[int, ...]
    groups: tuple[TermGroup, ...]
    description: str = ""
    file: str = ""

    @property
    def ref(self) -> LayoutRef:
        """What a genome and an organism file record of the layout."""
        return LayoutRef(self.source, self.sha256)

    @property
    def feature_set(self) -> str:
        """The feature cache's name of this layout's features: the format, the file's digest, the layout's name in
        it (two layouts of one file differ) and the number of features."""
        return f"user{USER_FORMAT}-{self.sha256}-{self.attr}-{len(self.names)}"

    @property
    def needs_terms(self) -> bool:
        """Whether a built-in feature of the paper's terms (tempo aside) is in the layout (they need the raw terms)."""
        return any(i < N_FEATURES - 1 for i in self.builtin)

    @property
    def has_pst(self) -> bool:
        """Whether a piece-square feature is in the layout."""
        return any(i >= N_FEATURES for i in self.builtin)


_LOADED: dict[tuple[str, str], UserLayout] = {}
_BYTES: dict[str, bytes] = {}


def term_file_bytes(sha256: str) -> bytes:
    """The bytes of the term file loaded in this process whose digest is ``sha256`` (the very bytes that ran)."""
    return _BYTES[sha256]


def load_layout(text: str, expect: str | None = None) -> UserLayout:
    """The user layout ``text`` names (see :func:`check_spec`), loaded once per process and file digest. With
    ``expect`` (a hex SHA-256), a file whose digest differs is refused (:class:`LayoutChanged`) before any of it runs.
    """
    check_spec(text)
    if is_builtin(text):
        raise LayoutError(f"{text!r} is one of mimic's own layouts, not a user's")
    watch_interrupts()
    match = FILE_SPEC.fullmatch(text)
    if match is not None:
        path = Path(match["path"]).expanduser().resolve()
        name = match["name"] or DEFAULT_NAME
        data = read_term_file(path, text)
        sha = _check_digest(hashlib.sha256(data).hexdigest(), expect, text)
        source = str(path) + ("" if name == DEFAULT_NAME else f":{name}")
        if (source, sha) not in _LOADED:
            _LOADED[(source, sha)] = _build(_run_file(path, data, sha), name, source, sha, str(path))
            _BYTES[sha] = data
        return _LOADED[(source, sha)]
    match = MODULE_SPEC.fullmatch(text)
    assert match is not None
    module_name = match["module"]
    origin = module_file(module_name, text)
    sha = _check_digest(hashlib.sha256(read_term_file(Path(origin), text)).hexdigest(), expect, text)
    if (text, sha) not in _LOADED:
        stale = any(src == text for src, _ in _LOADED)  # imported before, from other bytes
        _LOADED[(text, sha)] = _build(_import(module_name, text, stale, origin), match["name"], text, sha, origin)
    return _LOADED[(text, sha)]


class LayoutChanged(LayoutError):
    """A user layout's file whose digest is not the one recorded (an organism's, a worker's parent's); ``now``: the
    file's digest."""

    now = ""


def _check_digest(sha: str, expect: str | None, text: str) -> str:
    if expect is not None and sha != expect:
        error = LayoutChanged(f"{text}: the term file has changed (SHA-256 {expect[:12]}… expected, {sha[:12]}… now)")
        error.now = sha
        raise error
    return sha


def load_checked(source: str, sha256: str) -> UserLayout:
    """:func:`load_layout` of ``source``, refused (:class:`LayoutChanged`, before any of it runs) unless its file's
    digest is ``sha256``: a worker process rebuilds the layout its parent loaded, and a file changed in between
    would make other features."""
    try:
        return load_layout(source, sha256)
    except LayoutChanged as exc:
        raise LayoutChanged(f"{exc} while features were being made: run again") from exc


def read_term_file(path: Path, text: str) -> bytes:
    """The bytes of the term file ``path`` (a regular file); a :class:`LayoutError` naming ``text`` if unreadable."""
    try:
        return read_regular(path, "term file", error=LayoutError)
    except OSError as exc:
        raise LayoutError(f"{text}: cannot read the term file: {exc.strerror or exc}") from exc


def line_of(exc: BaseException, filename: str) -> str:
    """`` (line N)`` of the innermost frame of ``exc``'s traceback in the file ``filename`` (a SyntaxError's own
    line); ``""`` when none of its frames is in that file."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f" (line {exc.lineno})"
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f" (line {lines[-1]})" if lines else ""


def one_line(exc: BaseException) -> str:
    """``Type: message`` on one line, at most 200 characters of message (a SyntaxError's message without the file
    and line its text appends: :func:`line_of` gives the line)."""
    message = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    text = " ".join(message.split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


_SIGINTS = 0
"""How many SIGINTs (Ctrl-C) this process has received since :func:`watch_interrupts`."""


def watch_interrupts() -> None:
    """Count the SIGINTs this process receives from now on, each then handled as before (Python's
    ``KeyboardInterrupt``), so that :func:`interrupted` tells the user's Ctrl-C from a term's own ``raise
    KeyboardInterrupt``. Installed in the main thread (the only one a signal reaches), over Python's default handler
    only: another handler is left alone."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _count_interrupt)


def _count_interrupt(signum: int, frame: types.FrameType | None) -> None:
    global _SIGINTS
    _SIGINTS += 1
    signal.default_int_handler(signum, frame)


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc``, out of a user's code, is the user's Ctrl-C, to be let through as everywhere in mimic, rather
    than the code's own failure (any other exception, ``SystemExit`` and ``GeneratorExit`` too): a
    ``KeyboardInterrupt`` in the main thread once a SIGINT has come, or while another Python handler has SIGINT (a
    Ctrl-C cannot then be told from a raise). None comes from a signal in another thread (the UCI server's search),
    nor while SIGINT is ignored (a background job's)."""
    if not isinstance(exc, KeyboardInterrupt) or threading.current_thread() is not threading.main_thread():
        return False
    handler = signal.getsignal(signal.SIGINT)
    if handler is _count_interrupt:
        return _SIGINTS > 0
    return handler not in (signal.SIG_IGN, signal.SIG_DFL, None)


def _run_file(path: Path, data: bytes, sha: str) -> types.ModuleType:
    """The module of the term file's bytes ``data`` (run from them, not from the file read again), under a name
    made from its digest (registered in ``sys.modules`` while it runs, as an import would)."""
    name = f"mimic_user_layout_{sha[:16]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        exec(compile(data, str(path), "exec"), module.__dict__)
    except BaseException as exc:  # the user's code: whatever it raises is the file's (sys.exit too), but a Ctrl-C
        sys.modules.pop(name, None)
        if interrupted(exc):
            raise
        raise LayoutError(f"{path}: the term file raised {one_line(exc)}{line_of(exc, str(path))}") from exc
    return module


def module_file(name: str, text: str) -> str:
    """The file of module ``name``, found without running it (its parent packages are imported)."""
    try:
        spec = importlib.util.find_spec(name)
    except Exception as exc:  # a parent package's code: any exception is the user's
        raise LayoutError(f"{text}: cannot find module {name}: {one_line(exc)}") from exc
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        raise LayoutError(f"{text}: no module {name} with a file (a term module must be a .py file on sys.path)")
    return spec.origin


def _import(name: str, text: str, again: bool, origin: str) -> types.ModuleType:
    """The module ``name`` (its file ``origin``), imported (``again``: reloaded, its file changed since it was
    imported)."""
    try:
        module = importlib.import_module(name)
        return importlib.reload(module) if again else module
    except BaseException as exc:  # the user's code: whatever it raises is the module's (sys.exit too), but a Ctrl-C
        if interrupted(exc):
            raise
        raise LayoutError(f"{text}: cannot import {name}: {one_line(exc)}{line_of(exc, origin)}") from exc


def _builtin_columns(names: object, where: str, what: str) -> list[int]:
    """Columns of ``RICH_FEATURE_NAMES`` the names of a layout's ``builtins`` (or ``drop``) choose."""
    if isinstance(names, str) or not isinstance(names, list | tuple):
        raise LayoutError(f"{where}: {what} must be a list of names, got {type(names).__name__}")
    chosen: list[int] = []
    for n in names:
        if n == "rich":
            chosen += range(len(RICH_FEATURE_NAMES))
        elif n == "paper":
            chosen += range(N_FEATURES)
        elif n == "pst" or (isinstance(n, str) and n.startswith("pst_") and n.count("_") == 1):
            cols = [j for j, f in enumerate(RICH_FEATURE_NAMES) if f.startswith(f"{n}_") and f.startswith("pst_")]
            if not cols:
                raise LayoutError(f"{where}: {what}: no piece-square table {n!r} (pst_pawn ... pst_king)")
            chosen += cols
        elif n in TERM_NAMES:
            chosen += [j for j, (t, _, _) in enumerate(FEATURE_SPEC) if t == TERM_NAMES.index(n)]
        elif n in RICH_FEATURE_NAMES:
            chosen.append(RICH_FEATURE_NAMES.index(n))
        else:
            raise LayoutError(f"{where}: {what}: {str(n)[:60]!r} is no built-in name (a layout: paper, rich; a term "
                              f"such as rook_open_file; pst, pst_knight; tempo; or a feature such as king_center_eg)")
    return chosen


def function_name(function: object) -> str:
    """The name of a term's function as exports write it: its ``__name__``, else its type's name (a callable object);
    :func:`load_layout` refuses a layout whose name is neither a Python identifier nor ``<lambda>``."""
    try:
        name = getattr(function, "__name__", None)
    except Exception:  # the user's object: any exception is its own
        name = None
    return name if isinstance(name, str) else type(function).__name__


def _check_term(term: object, i: int, where: str) -> Term:
    if not isinstance(term, Term):
        raise LayoutError(f"{where}: terms[{i}] is a {type(term).__name__}, not an organisms.userterms.Term")
    at = f"{where}: term {term.name!r}" if isinstance(term.name, str) else f"{where}: terms[{i}]"
    if not isinstance(term.name, str) or not term.name.isidentifier() or len(term.name) > 64:
        raise LayoutError(f"{at}: the name must be a Python identifier of at most 64 characters")
    if term.board is None and term.batch is None:
        raise LayoutError(f"{at}: give board= (a function of a chess.Board) or batch= (of bitboard rows), or both")
    for form in ("board", "batch"):
        function = getattr(term, form)
        if function is not None and not callable(function):
            raise LayoutError(f"{at}: {form}= must be a function")
        name = function_name(function) if function is not None else "f"
        if not (name.isidentifier() or name == "<lambda>"):  # an export writes it into its source's comments
            raise LayoutError(f"{at}: {form}= is a function named {name[:40]!r}, not a Python identifier (mimic "
                              "export writes its name into generated source)")
    if term.taper not in TAPERS:
        raise LayoutError(f"{at}: taper must be one of {', '.join(TAPERS)}, got {term.taper!r}")
    if type(term.sign) is not int or term.sign not in (1, -1):
        raise LayoutError(f"{at}: sign must be 1 (a bonus) or -1 (a penalty), got {term.sign!r}")
    if type(term.bits) is not int:
        raise LayoutError(f"{at}: bits must be an integer, got {term.bits!r}")
    for bound in ("low", "high"):
        value = getattr(term, bound)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise LayoutError(f"{at}: {bound} must be a number, got {value!r}")
    return term


def _build(module: types.ModuleType, name: str, source: str, sha: str, file: str) -> UserLayout:
    """The checked :class:`UserLayout` of ``module``'s :class:`~organisms.userterms.Layout` bound to ``name``."""
    where = source
    layout = getattr(module, name, None)
    if not isinstance(layout, Layout):
        found = "nothing" if layout is None else type(layout).__name__
        raise LayoutError(f"{where}: {name} must be an organisms.userterms.Layout (the file binds {found} to it)")
    chosen = _builtin_columns(layout.builtins, where, "builtins")
    dropped = set(_builtin_columns(layout.drop, where, "drop"))
    builtin = tuple(sorted(set(chosen) - dropped))
    base = rich_genome().genes
    genes = [base[j] for j in builtin]
    names = [RICH_FEATURE_NAMES[j] for j in builtin]
    if isinstance(layout.terms, str) or not isinstance(layout.terms, list | tuple):
        raise LayoutError(f"{where}: terms must be a list of Term, got {type(layout.terms).__name__}")
    groups = []
    for i, raw in enumerate(layout.terms):
        term = _check_term(raw, i, where)
        columns, tapers = [], []
        for feature in term.feature_names():
            if feature in RICH_FEATURE_NAMES:
                raise LayoutError(f"{where}: term {term.name!r}: feature {feature!r} is a built-in feature's name "
                                  f"(choose it in builtins, or name yours otherwise)")
            if feature in names:
                raise LayoutError(f"{where}: term {term.name!r}: feature {feature!r} is declared twice")
            try:
                genes.append(Gene(feature, term.bits, float(term.low), float(term.high)))
            except GenomeError as exc:
                raise LayoutError(f"{where}: term {term.name!r}: {exc}") from exc
            columns.append(len(names))
            tapers.append({"": ALL, "mg": MG, "eg": EG}[feature[len(term.name) + 1:]])
            names.append(feature)
        groups.append(TermGroup(term, tuple(columns), tuple(tapers)))
    if not names:
        raise LayoutError(f"{where}: the layout has no features (name builtins, declare terms, or both)")
    description = layout.description if isinstance(layout.description, str) else ""
    return UserLayout(source, sha, name, tuple(names), tuple(genes), builtin, tuple(groups), description[:200], file)

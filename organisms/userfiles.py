"""Where an organism file of a user's layout finds its term file again, and the copy of the term file written
beside organisms so that a results folder carries it (docs/terms.md, "Organisms of your layout").

An organism file records its layout's source (the term file's absolute path, or ``MODULE:NAME``) and the SHA-256 of
the file's bytes. Loading it takes the recorded file if its digest is the recorded one, else a file of the same name
beside the organism file with that digest (:func:`recorded_layout`); whichever is found is checked before any of it
runs (:func:`find_recorded` runs nothing at all). ``mimic evolve`` and ``mimic fit`` write the copy
(:func:`ship_term_file`): the very bytes that ran, never over a different file of that name.

May import: ``organisms.genome``, ``organisms.userlayout``, ``search.runtime``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

from organisms.genome import LayoutRef
from organisms.userlayout import (
    FILE_SPEC,
    MODULE_SPEC,
    LayoutError,
    UserLayout,
    load_layout,
    module_file,
    read_term_file,
    term_file_bytes,
)
from search.runtime.atomic import write_atomic


class Found(NamedTuple):
    """Where an organism file's term file is (:func:`find_recorded`): ``spec``, the layout to load (``None`` when
    no file has the recorded digest); else ``problem`` says what is wrong, and ``changed`` whether a file of the
    name is there with other bytes (not merely missing)."""

    spec: str | None
    problem: str = ""
    changed: bool = False


def recorded_layout(source: str, sha256: str, where: str) -> UserLayout:
    """The user layout an organism file ``where`` records as ``source`` with the digest ``sha256``: the term file
    at ``source`` if its digest is ``sha256``, else a file of the same name beside ``where`` with that digest (a
    results folder that ships its term file, wherever the folder goes); refused (:class:`LayoutError`, one line
    naming what was found) when neither is, before any of it runs (:func:`find_recorded`)."""
    found = find_recorded(source, sha256, where)
    if found.spec is None:
        advice = ": restore the file, or make the organism again with this one" if found.changed else ""
        raise LayoutError(f"{where}: its genome layout {found.problem}{advice}")
    try:
        return load_layout(found.spec, sha256)
    except LayoutError as exc:
        raise LayoutError(f"{where}: its genome layout: {exc}") from exc


def find_recorded(source: str, sha256: str, where: str) -> Found:
    """Where the term file an organism file ``where`` records (``source``, ``sha256``) is, found without running
    any of it: the recorded file if its digest is ``sha256``, else the file of the same name beside ``where`` if
    its digest is; else what is wrong ("PATH has changed since the organism was made (...)", "PATH is missing
    (...)")."""
    match, module = FILE_SPEC.fullmatch(source), MODULE_SPEC.fullmatch(source)
    if match is None:  # a module: found on sys.path (its parent packages are imported), not beside the organism
        if module is None:
            return Found(None, f"{source[:80]!r} is no term file or module")
        try:
            now = hashlib.sha256(read_term_file(Path(module_file(module["module"], source)), source)).hexdigest()
        except LayoutError as exc:
            return Found(None, f"{source} cannot be found: {exc}")
        return Found(source) if now == sha256 else Found(None, _changed(source, sha256, now), True)
    recorded = Path(match["path"])
    beside = Path(where).parent / recorded.name
    digests = {}
    for path in dict.fromkeys((recorded, beside)):
        if path.exists():
            digests[path] = hashlib.sha256(read_term_file(path, str(path))).hexdigest()
            if digests[path] == sha256:
                return Found(str(path) + (f":{match['name']}" if match["name"] else ""))
    if recorded in digests:
        other = (f"; {beside} beside the organism is not it either ({digests[beside][:12]}…)"
                 if beside in digests and beside != recorded else "")
        return Found(None, _changed(str(recorded), sha256, digests[recorded], other), True)
    if beside in digests:
        return Found(None, f"{recorded} is missing, and {beside} beside the organism is not it (SHA-256 "
                           f"{sha256[:12]}… recorded, {digests[beside][:12]}… there)", True)
    return Found(None, f"{recorded} is missing (and no {beside.name} beside the organism)")


def _changed(text: str, recorded: str, now: str, other: str = "") -> str:
    return f"{text} has changed since the organism was made (SHA-256 {recorded[:12]}… recorded, {now[:12]}… now{other})"


def ship_term_file(layout: LayoutRef, folder: str | Path, write: bool = True) -> Path | None:
    """Copy the term file of ``layout`` (loaded in this process) into ``folder`` under its own name, so that an
    organism written there loads wherever the folder goes (:func:`recorded_layout`): the very bytes that were loaded,
    whole or not at all. The copy's path, or ``None`` for a module's layout (found on sys.path, not copied). Nothing
    is written when the file there is the term file itself or holds the same bytes; a different file of that name is
    refused (:class:`LayoutError`), never replaced. ``write=False`` checks only (before a run's work)."""
    match = FILE_SPEC.fullmatch(layout.source)
    if match is None:
        return None
    target = Path(folder) / Path(match["path"]).name
    if target.exists():
        same = target.resolve() == Path(match["path"]) or hashlib.sha256(
            read_term_file(target, str(target))).hexdigest() == layout.sha256
        if not same:
            raise LayoutError(f"{target} exists and is not the term file {match['path']}, whose copy goes beside the "
                              "organism: move it away, or choose another --out")
        return target
    if write:
        try:
            write_atomic(target, term_file_bytes(layout.sha256))
        except OSError as exc:
            raise OSError(exc.errno, f"cannot copy the term file: {exc.strerror or exc}", str(target)) from exc
    return target

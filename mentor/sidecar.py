"""A label file's sidecar ``FILE.json``: its provenance (the runs that made the file), read back checked.

What EPD has no room for lives beside the label file (:mod:`mentor.labels`): the commands that made it, their
settings, the mentor's UCI ``id name``, mimic's version and git commit. This module owns the sidecar's schema,
its checked reading (:func:`read_sidecar`, through :mod:`search.runtime.readback`), the migration of old run
entries, moving old files' ``#`` header lines into it (:func:`convert_legacy`), and the summary lines of what made
a file (:func:`provenance_lines`), and what labels a file holds (:func:`identity`: a resumed run must make the same,
:func:`check_resume`). Whole files are written through ``search.runtime.atomic``. May import ``search/runtime``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from search.formats import gz
from search.runtime.atomic import atomic_open, write_json_atomic
from search.runtime.errors import SettingsError
from search.runtime.files import open_regular
from search.runtime.readback import ReadbackError, json_type, read_json, require, strings

SIDECAR_SCHEMA = "mimic-labels/2"


def sidecar_path(path: str | Path) -> Path:
    """Where a label file's provenance lives: ``FILE.json`` beside ``FILE`` (``labels.epd.json``)."""
    return Path(str(path) + ".json")


class SidecarError(ReadbackError):
    """A label file's sidecar that is not one: one line naming it and what is wrong."""


SIDECAR_KEYS: dict[str, type] = {"schema": str, "labels": str, "runs": list, "legacy_header": list}
"""The keys a sidecar may hold (each optional: a sidecar of schema 1 lacks some) and their JSON types."""


def read_sidecar(path: str | Path) -> dict[str, Any]:
    """The provenance of label file ``path`` (``{}`` when it has none, or an empty sidecar), checked through
    :mod:`search.runtime.readback`: a JSON object of bounded size and nesting whose keys of :data:`SIDECAR_KEYS`
    have their types, ``runs`` a list of objects and ``legacy_header`` a list of strings; :class:`SidecarError`
    otherwise (a damaged sidecar is never overwritten: the user moves it away)."""
    side = sidecar_path(path)
    if not side.exists() or (side.is_file() and side.stat().st_size == 0):
        return {}
    data: dict[str, Any] = read_json(side, "label file's sidecar", error=SidecarError)
    for key, kind in SIDECAR_KEYS.items():
        if key in data:
            require(data, key, kind, str(side), error=SidecarError)
    bad = next((i for i, r in enumerate(data.get("runs", [])) if not isinstance(r, dict)), None)
    if bad is not None:
        raise SidecarError(f"{side}: runs[{bad}] is {json_type(data['runs'][bad])}, not an object")
    strings(data.get("legacy_header", []), "legacy_header", str(side), error=SidecarError)
    return data


def _migrate_run(old: dict[str, Any], command: str | None) -> dict[str, Any]:
    """A run entry recorded before schema 2 (``{"settings", "summary", "finished"}``, settings being the
    ``mimic label`` arguments) in the current schema. Nothing is invented: what the old entries did not
    record (the mentor's ``id name``, mimic's version and commit, UTC times) is ``None``; the old local
    finishing time is kept as ``finished_local``; ``command`` comes from the old file's header."""
    s = old.get("settings", {})
    if not isinstance(s, dict):
        s = {}
    sampler_keys = ("min_plies", "max_plies", "no_check", "skip_plies", "per_game", "random_move", "quiet")
    options = s.get("option", [])
    return {
        "run_id": None,
        "command": command if command is not None else s.get("command"),
        "settings": {"sources": s.get("source"), "positions": s.get("positions"), "seed": s.get("seed"),
                     "jobs": s.get("jobs"), "resume": s.get("resume"), "cap": s.get("cap"),
                     "sampler": {k: s[k] for k in sampler_keys if k in s}},
        "mentor": {"kind": "builtin" if s.get("mentor") == "builtin" else "uci",
                   "command": s.get("mentor_command", []), "id_name": None, "depth": s.get("depth"),
                   "nodes": s.get("nodes"), "hash_mb": s.get("hash"), "timeout": s.get("timeout"),
                   "options": dict(str(o).partition("=")[::2] for o in options) if isinstance(options, list) else {}},
        "mimic_version": None, "git_commit": None, "git_dirty": None,
        "started_utc": None, "finished_utc": None, "finished_local": old.get("finished"),
        "summary": old.get("summary"),
    }


def migrate_sidecar(side: dict[str, Any], labels_name: str) -> dict[str, Any]:
    """A sidecar in the current schema (``SIDECAR_SCHEMA``): old run entries rewritten, others kept."""
    header = [str(x) for x in side.get("legacy_header", [])]
    command = header[0] if header and header[0].startswith("mimic ") else None
    runs = [r if "run_id" in r else _migrate_run(r, command) for r in side.get("runs", []) if isinstance(r, dict)]
    out: dict[str, Any] = {"schema": SIDECAR_SCHEMA, "labels": labels_name, "runs": runs}
    if header:
        out["legacy_header"] = header
    return out


def comment_lines(path: str | Path) -> list[tuple[int, str]]:
    """``(line number, text)`` of every ``#`` line of a label file (old files' headers)."""
    out: list[tuple[int, str]] = []
    if gz.is_gzip(path):  # written by mimic since labels could be compressed: never a '#' header
        return out
    with open_regular(path, "label file") as fh:
        for line_no, raw in enumerate(fh, 1):
            if raw.lstrip().startswith(b"#"):
                out.append((line_no, raw.decode("utf-8", errors="replace").strip()))
    return out


def convert_legacy(path: str | Path) -> list[str]:
    """Move the ``#`` lines of label file ``path`` into its sidecar's ``legacy_header``; return them.

    The file is rewritten (atomically) with every other line unchanged, byte for byte. The header
    text is stored without its leading ``# ``; the sidecar's old run entries are brought to the
    current schema (:func:`migrate_sidecar`). A file without ``#`` lines is left alone.
    """
    path = Path(path)
    comments = comment_lines(path)
    if not comments:
        return []
    header = [text[1:].strip() for _, text in comments]
    side = read_sidecar(path)
    side["legacy_header"] = [*side.get("legacy_header", []), *header]
    write_json_atomic(sidecar_path(path), migrate_sidecar(side, path.name))
    drop = {line_no for line_no, _ in comments}
    with atomic_open(path, "wb") as out, open(path, "rb") as src:
        for line_no, raw in enumerate(src, 1):
            if line_no not in drop:
                out.write(raw)
    return header


def provenance_lines(path: str | Path) -> list[str]:
    """What the sidecar of label file ``path`` says made it, one line per run (for summaries)."""
    side = read_sidecar(path)
    lines: list[str] = [str(x) for x in side.get("legacy_header", []) if isinstance(x, str)]
    for run in side.get("runs", []):
        if not isinstance(run, dict):
            continue
        command = run.get("command")
        if not isinstance(command, str) or run.get("run_id") is None:  # recorded before schema 2: the
            continue  # legacy_header above says what made it
        mentor = run.get("mentor")
        who = ""
        if isinstance(mentor, dict):
            who = f"; mentor {mentor.get('id_name') or mentor.get('kind')}"
        version = run.get("mimic_version")
        made = ""
        if isinstance(version, str):
            commit = run.get("git_commit")
            made = f"; mimic {version}" + (f", commit {str(commit)[:12]}" if commit else "")
            made += " (with local changes)" if run.get("git_dirty") else ""
        lines.append(command + who + made)
    return lines


SELFPLAY_FLAGS: dict[str, str] = {
    "random_plies": "--random-plies", "random_rate": "--random-rate", "max_plies": "--game-plies",
    "resign_cp": "--resign-cp", "resign_plies": "--resign-plies", "skip_plies": "--skip-plies",
    "skip_check": "--keep-check", "skip_noisy": "--keep-noisy", "cap": "--cap", "per_game": "--per-game"}
"""The ``mimic datagen`` flag of each self-play option a run entry records (``settings.selfplay``); the two
``skip_`` options are on unless their ``--keep-`` flag is given."""


def _mentor_name(m: dict[str, Any]) -> str:
    """A recorded mentor as ``--mentor`` names it: ``builtin``, ``builtin:SPEC`` or the engine's command."""
    if m.get("kind") == "builtin":
        return "builtin" + (f":{m['player']}" if m.get("player") else "")
    command = m.get("command")
    return " ".join(str(c) for c in command) if isinstance(command, list) else str(command)


def _limit(m: dict[str, Any]) -> str:
    """A recorded mentor's limit as given on the command line."""
    if m.get("static"):
        return "@eval"
    return f"--nodes {m['nodes']}" if m.get("nodes") is not None else f"--depth {m.get('depth')}"


def identity(settings: dict[str, Any], mentors: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """What kind of labels a run makes, from its entry's ``settings`` and mentor records (a crowd's, in order), as
    ``(setting, as given on the command line)``: the command (``label`` or self-play's ``datagen``), the mentors,
    their depth or nodes and UCI options; for self-play also the seed and every option of :data:`SELFPLAY_FLAGS`.
    Every run appending to one label file must make the same (:func:`check_resume`); the number of positions, the
    workers, hash and timeout may differ, and ``label``'s sources, seed and sampling too (more positions, the same
    labels)."""
    selfplay = settings.get("selfplay")
    options = mentors[0].get("options") if mentors else None
    out = [("command", "mimic datagen" if isinstance(selfplay, dict) else "mimic label"),
           ("--mentor", " ".join(f"--mentor {_mentor_name(m)}" for m in mentors)),
           ("--depth", _limit(mentors[0]) if len({_limit(m) for m in mentors}) == 1 else
            ", ".join(f"{_limit(m)} for {_mentor_name(m)}" for m in mentors)),
           ("--option", " ".join(f"--option {k}={v}" for k, v in sorted(options.items()))
            if isinstance(options, dict) and options else "no --option")]
    if isinstance(selfplay, dict):
        out.append(("--seed", f"--seed {settings.get('seed')}"))
        for key, flag in SELFPLAY_FLAGS.items():
            value = selfplay.get(key)
            text = (f"no {flag}" if value else flag) if key.startswith("skip_") and isinstance(value, bool) else \
                f"{flag} {value}"
            out.append((flag, text))
    return out


def check_resume(path: str | Path, side: dict[str, Any], new: list[tuple[str, str]]) -> None:
    """Refuse to resume label file ``path`` with a run making other labels (``new``: :func:`identity`) than the last
    run its sidecar ``side`` records: :class:`SettingsError` naming the first setting that differs, with its old and
    new value. A file without a recorded run (no sidecar, or runs from before schema 2) is not checked."""
    runs = [r for r in side.get("runs", []) if isinstance(r, dict) and r.get("run_id") is not None
            and isinstance(r.get("settings"), dict) and isinstance(r.get("mentor"), dict)]
    if not runs:
        return
    last = runs[-1]
    crowd = last.get("crowd")
    mentors = crowd.get("mentors") if isinstance(crowd, dict) else None
    if not (isinstance(mentors, list) and all(isinstance(m, dict) for m in mentors) and mentors):
        mentors = [last["mentor"]]
    old = dict(identity(last["settings"], mentors))
    for name, now in new:
        if old.get(name) != now:
            raise SettingsError(f"--resume: {path} holds labels made with {old.get(name)}, not {now} (the last run in "
                                f"{sidecar_path(path)}): resume with its settings, or choose another --out")

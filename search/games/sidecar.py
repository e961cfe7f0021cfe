"""A game set's sidecar ``OUT.json`` (``mimic games`` and ``mimic tournament``): what identifies the game set (its
players, time control, adjudication, openings, event), every run that played into the PGN, checked when read back
and when a run resumes.

A resumed run must play the same players under the same rules as the games already in the PGN: :meth:`GameSetSidecar.
open` refuses, in one line (:class:`~search.runtime.errors.MimicError`), a PGN that holds other players' games or a
sidecar whose identity differs; :meth:`GameSetSidecar.write` rewrites the file whole (the atomic writer) and turns a
failed write into :class:`SidecarWriteError` (the PGN keeps its whole games). Imports ``search/games/pgnlog`` and
``search/runtime`` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from search.games.pgnlog import read_pgn_games
from search.runtime.atomic import write_json_atomic
from search.runtime.errors import MimicError, RunError
from search.runtime.readback import ReadbackError, json_type, read_json, require

SIDECAR_KEYS: dict[str, type] = {"players": dict, "time_control": str, "adjudication": dict, "openings": dict,
                                 "event": str, "runs": list}
"""The keys every sidecar ``OUT.json`` holds (``gauntlet`` only for a gauntlet), and the JSON type of each."""

ROUND_NOTE = ("P.K.C: pairing P (players' order{gauntlet}), opening K of the pairing, C=1 when the pairing's first "
              "player has White")


class SidecarWriteError(RunError, OSError):
    """The sidecar ``OUT.json`` could not be written (a full disk); the PGN keeps its whole games. Exit 1."""


def read_sidecar(path: Path) -> dict[str, object]:
    """The sidecar ``OUT.json`` of a game set, checked (:mod:`search.runtime.readback`): a JSON object of bounded size
    and nesting with every key of :data:`SIDECAR_KEYS` of its type, ``players`` mapping names to specs (strings)
    and ``runs`` a list of objects. Raises :class:`~search.runtime.readback.ReadbackError` (a
    :class:`~search.runtime.errors.MimicError`: one line naming the file and what is wrong) otherwise."""
    data: dict[str, object] = read_json(path, "game set's sidecar")
    for key, kind in SIDECAR_KEYS.items():
        require(data, key, kind, str(path))
    players = data["players"]
    assert isinstance(players, dict)
    if not all(isinstance(v, str) for v in players.values()):
        raise ReadbackError(f"{path}: players must map names to player specs (strings)")
    runs = data["runs"]
    assert isinstance(runs, list)
    bad = next((i for i, r in enumerate(runs) if not isinstance(r, dict)), None)
    if bad is not None:
        raise ReadbackError(f"{path}: runs[{bad}] is {json_type(runs[bad])}, not an object")
    return data


def check_pgn_players(pgn: Path, names: tuple[str, ...]) -> None:
    """Refuse to resume a PGN that holds games of players not among ``names`` (their White/Black headers), with
    one line (:class:`~search.runtime.errors.MimicError`): resuming would mix two game sets in one PGN."""
    if not pgn.is_file():
        return
    try:
        games = read_pgn_games(pgn)[0]
    except OSError as exc:
        raise MimicError(f"cannot read {pgn}: {exc.strerror or exc}") from exc
    others = sorted({h.get(side, "?") for _, h in games for side in ("White", "Black")} - set(names))
    if others:
        shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
        raise MimicError(f"--resume: {pgn} holds games of other players ({shown}) than those asked for; "
                         "choose another --out")


@dataclass
class GameSetSidecar:
    """The sidecar of the game set written to ``pgn``: ``identity`` (what a resumed run must share), the ``runs``
    so far (provenance and settings of each), and what each write adds (``extra``: games per pairing)."""

    pgn: Path
    identity: dict[str, Any]
    gauntlet: bool = False
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return Path(f"{self.pgn}.json")

    def open(self, resume: bool) -> None:
        """On ``resume``, check the PGN's players and the sidecar's identity against this run's, and take the runs
        already recorded; :class:`~search.runtime.errors.MimicError` in one line when they differ."""
        if not resume:
            return
        names = tuple(self.identity["players"])
        check_pgn_players(self.pgn, names)
        if not self.path.exists():
            return
        old = read_sidecar(self.path)
        differ = [k for k, v in self.identity.items() if old.get(k) != v]
        if differ:
            raise MimicError(f"--resume with other {', '.join(differ)} than the games in {self.pgn} (see "
                             f"{self.path}); choose another --out")
        old_runs = old["runs"]
        assert isinstance(old_runs, list)  # read_sidecar checked it: a list of objects
        self.runs = list(old_runs)

    def write(self, played: int | None, games_per_pairing: int) -> None:
        """Rewrite the sidecar whole: the identity, ``games_per_pairing``, the games in the PGN (``played``,
        ``None`` before any), the meaning of a round and the runs; :class:`SidecarWriteError` when it cannot."""
        record: Mapping[str, Any] = {
            **self.identity, "games_per_pairing": games_per_pairing, "games_in_pgn": played,
            "round": ROUND_NOTE.format(gauntlet="; a gauntlet: the first player against each other"
                                       if self.gauntlet else ""),
            "runs": self.runs}
        try:
            write_json_atomic(self.path, record, indent=2)
        except OSError as exc:  # name the sidecar, not the PGN; the PGN keeps its whole games
            raise SidecarWriteError(f"cannot write {self.path}: {exc.strerror or exc}; the games in {self.pgn} are "
                                    "kept, --resume continues the game set") from exc

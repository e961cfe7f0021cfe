"""``mimic games --resume`` trusts neither its sidecar ``OUT.json`` nor a PGN of other players, and a full disk
ends ``games`` with one line and a non-zero exit (issue 23). Crafted sidecars and PGNs run in this process
through :func:`evolve.cli.main`; the full disk is a real file size limit (``RLIMIT_FSIZE``) in a child process,
as in tests/test_match_resume.py."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from evolve.cli import main
from search.games.pgnlog import read_pgn_text

from .conftest import limited_disk, mimic_command, whole_games

# Cheap deterministic players: material against random:1, both at depth 1, their games cut at 40 plies (a draw by
# maximum length unless a rule or resignation came first; the second game ran to 172 plies).
PLAYERS = ["material@depth=1", "random:1@depth=1", "--depth", "1", "--max-plies", "40"]


def _games(out: Path, *extra: str, players: list[str] = PLAYERS, games: int = 1) -> list[str]:
    return ["games", *players, "--games", str(games), "--out", str(out), *extra]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, dict[str, object]]:
    """The PGN and the sidecar of one finished game set (one game per pairing)."""
    out = tmp_path_factory.mktemp("played") / "g.pgn"
    assert main(_games(out)) == 0
    return out.read_bytes(), json.loads(Path(f"{out}.json").read_text())


def _crafted(good: dict[str, object]) -> dict[str, str]:
    """Sidecar texts that are not a game set's sidecar, by what is wrong with them."""
    def edit(change: Callable[[dict[str, object]], None]) -> str:
        data = json.loads(json.dumps(good))
        change(data)
        return json.dumps(data)

    return {
        "a JSON list": "[]",
        "null": "null",
        "not JSON": "{\"players\": ",
        "nested 100k deep": "[" * 100_000 + "]" * 100_000,
        "runs not a list": edit(lambda d: d.__setitem__("runs", 3)),
        "a run not an object": edit(lambda d: d.__setitem__("runs", [1])),
        "event missing": edit(lambda d: d.pop("event")),
        "runs missing": edit(lambda d: d.pop("runs")),
        "players not names to specs": edit(lambda d: d.__setitem__("players", {"a": 1})),
        "players a list": edit(lambda d: d.__setitem__("players", ["material@depth=1"])),
    }


CASES = ["a JSON list", "null", "not JSON", "nested 100k deep", "runs not a list", "a run not an object",
         "event missing", "runs missing", "players not names to specs", "players a list"]


@pytest.mark.parametrize("case", CASES)
def test_a_crafted_sidecar_is_one_line_and_nothing_is_written(
        case: str, played: tuple[bytes, dict[str, object]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    pgn_bytes, good = played
    out = tmp_path / "g.pgn"
    sidecar = Path(f"{out}.json")
    out.write_bytes(pgn_bytes)
    sidecar.write_text(_crafted(good)[case])
    before = sidecar.read_bytes()
    capsys.readouterr()
    # Two games per pairing: the resumed run would play one more game if it went on.
    assert main(_games(out, "--resume", games=2)) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mimic games: ") and str(sidecar) in err[0], err
    assert out.read_bytes() == pgn_bytes and sidecar.read_bytes() == before


def test_the_untouched_sidecar_still_resumes(played: tuple[bytes, dict[str, object]], tmp_path: Path) -> None:
    # The same game set, read back through the same checks, goes on: its one pairing plays a second game.
    pgn_bytes, good = played
    out = tmp_path / "g.pgn"
    out.write_bytes(pgn_bytes)
    Path(f"{out}.json").write_text(json.dumps(good))
    assert main(_games(out, "--resume", games=2)) == 0
    assert len(read_pgn_text(out.read_text())) == 2
    assert len(json.loads(Path(f"{out}.json").read_text())["runs"]) == 2  # the first run and this one


def test_a_deleted_sidecar_does_not_let_other_players_into_the_pgn(
        played: tuple[bytes, dict[str, object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn_bytes, _ = played
    out = tmp_path / "x.pgn"
    out.write_bytes(pgn_bytes)  # material against random:1, its sidecar deleted
    capsys.readouterr()
    others = ["material@depth=1", "random:2@depth=1", *PLAYERS[2:]]
    assert main(_games(out, "--resume", players=others)) == 2
    err = capsys.readouterr().err.splitlines()
    # random:1's name in the PGN is not among the players asked for (material and random:2).
    assert len(err) == 1 and "other players" in err[0] and "random-1 depth=1" in err[0] and str(out) in err[0], err
    assert out.read_bytes() == pgn_bytes and not Path(f"{out}.json").exists()
    # The same players as the PGN's resume without their sidecar.
    assert main(_games(out, "--resume", games=2)) == 0
    assert len(read_pgn_text(out.read_text())) == 2


def test_games_on_a_full_disk_stop_with_one_line_and_resume_loses_nothing(tmp_path: Path) -> None:
    # Four games of the one pairing. They take 1,432 + 1,440 + 1,346 + 1,428 bytes today and the sidecar 859,
    # so a 500-byte disk cannot hold the sidecar (the run stops before any game), a 3,000-byte one holds the
    # sidecar and the first two games (2,872 bytes) but not the third. The exact sizes do not matter: each run stops
    # with one line naming the file it could not write, exit 1 (as match's PGN write failure), the PGN keeps whole
    # games only, and the run after it plays on; the end result equals an uninterrupted game set game for game.
    full = tmp_path / "full.pgn"
    assert main(_games(full, games=4)) == 0
    out = tmp_path / "g.pgn"
    # Under the size limit, the child must write nothing but its outputs: no .pyc files (cut short, they break
    # later imports) and no git index lock (provenance runs `git status`, whose lock file would be left behind).
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "GIT_OPTIONAL_LOCKS": "0"}
    for room, line in ((500, f"mimic games: cannot write {out}.json: "), (3_000, f"mimic games: {out}: cannot append")):
        resume = ["--resume"] if out.exists() else []
        run = subprocess.run(mimic_command(*_games(out, *resume, games=4)), capture_output=True, text=True,
                             preexec_fn=limited_disk(room), env=env)
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        errors = [line for line in run.stderr.splitlines() if not line.startswith("warning")]
        assert len(errors) == 1 and errors[0].startswith(line), errors
        assert not out.exists() or out.stat().st_size <= room
        if out.exists():
            whole_games(out)
    # The last run, with room to spare, needs no limit: in this process.
    assert main(_games(out, "--resume", games=4)) == 0
    assert whole_games(out) == whole_games(full)
    assert json.loads(Path(f"{out}.json").read_text())["games_in_pgn"] == 4

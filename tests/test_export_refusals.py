"""What export, --init and match must refuse (issue 61, items 6 and 8): an organism file holding a value its gene's
bits cannot hold or of a format version this mimic does not read, an illegal position given to ``--explain``, and a
term file whose function's name would write code into an export's source. Each is one line naming the file (or the
FEN, or the term), exit 2, and nothing written. Real files throughout: the shipped organisms, each copied into
tmp_path with one thing changed, and the real command line.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import CliRunner, write_expert_labels

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "results/paper-builtin/organism.json"
THREATS = ROOT / "results/user-terms/threats.json"
THREATS_PY = ROOT / "results/user-terms/threats.py"
EXPORTS = [("--format", "c"), ("--format", "rust"), ("--format", "json"), ("--format", "c", "--layout", "pesto")]


def _changed(tmp_path: Path, change: Callable[[dict[str, Any]], None], name: str = "organism.json") -> Path:
    """The shipped paper organism, written into ``tmp_path`` with ``change`` made to its JSON object."""
    data = json.loads(PAPER.read_text())
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _gene(name: str, value: float, keep_chromosome: bool = True) -> Callable[[dict[str, Any]], None]:
    """A change: gene ``name``'s value set to ``value`` (as a hand edit would), its chromosome kept or dropped."""
    def change(data: dict[str, Any]) -> None:
        (gene,) = [g for g in data["genes"] if g["name"] == name]
        gene["value"] = value
        if not keep_chromosome:
            del gene["chromosome"]
    return change


def _refused(done: Any, command: str) -> str:
    """The one line of a refusal (exit 2, nothing on stdout), without the ``mimic COMMAND: `` it starts with."""
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout[:300], done.stderr)
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"mimic {command}: "), line
    return line[len(f"mimic {command}: "):]


@pytest.mark.parametrize("flags", EXPORTS, ids=[" ".join(f) for f in EXPORTS])
def test_export_refuses_a_value_its_gene_s_bits_cannot_hold(tmp_path: Path, cli: CliRunner,
                                                           flags: tuple[str, ...]) -> None:
    # pawn: 10 bits over [0, 400] (the file says so), a step of 400 / 1023 = 0.391 cp: 1e308 lies far beyond what
    # any of its 1,024 patterns decodes to, and the export would show 400 in its place.
    path = _changed(tmp_path, _gene("pawn", 1e308))
    out = tmp_path / "export.out"
    line = _refused(cli("export", path, *flags, "--out", out), "export")
    assert line == (f"{path}: gene pawn is 1e+308, outside its range [0, 400] (its 10 bits cannot hold it; mimic "
                    "refuses rather than clamps it)")
    assert not out.exists()


def test_a_value_within_half_a_step_of_its_range_is_the_range_s_end(tmp_path: Path, cli: CliRunner) -> None:
    # "Far" is what the bits cannot represent: 400.19 rounds to the top pattern (within 0.391 / 2 = 0.1955 of 400) and
    # exports as 400 exactly; 400.2 and -0.2 lie beyond half a step and are refused. Without a chromosome too.
    done = cli("export", _changed(tmp_path, _gene("pawn", 400.19, keep_chromosome=False), "near.json"),
               "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["genes"]["pawn"] == 400.0
    for value in (400.2, -0.2):
        path = _changed(tmp_path, _gene("pawn", value, keep_chromosome=False), "far.json")
        assert _refused(cli("export", path, "--format", "json"), "export").startswith(
            f"{path}: gene pawn is {value:g}, outside its range [0, 400]")


@pytest.mark.parametrize("flags", EXPORTS, ids=[" ".join(f) for f in EXPORTS])
def test_export_refuses_an_organism_file_of_another_version(tmp_path: Path, cli: CliRunner,
                                                            flags: tuple[str, ...]) -> None:
    # This mimic writes version 1 (every shipped organism file says so); a version-99 file is a later mimic's, whose
    # keys may mean other things.
    path = _changed(tmp_path, lambda data: data.update(version=99))
    line = _refused(cli("export", path, *flags), "export")
    assert line == (f"{path}: a mimic-organism file of version 99; this mimic reads version 1 (a newer mimic's file, "
                    "or not one mimic wrote)")


ILLEGAL = [
    ("4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "too many kings"),  # two White kings, a1 and e1
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "a pawn on the first or last rank"),  # a White pawn on a1
    ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "the side not to move is in check"),  # Re2 attacks Ke8, White to move
    ("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "bad castling rights"),  # castling rights without a rook on the board
]


@pytest.mark.parametrize(("fen", "words"), ILLEGAL, ids=[w for _, w in ILLEGAL])
def test_explain_refuses_an_illegal_position(cli: CliRunner, fen: str, words: str) -> None:
    line = _refused(cli("export", PAPER, "--explain", fen), "export")
    assert line == f"--explain {fen!r}: not a legal position: {words}"


def test_a_term_function_whose_name_is_not_an_identifier_is_refused_by_every_export(tmp_path: Path,
                                                                                    cli: CliRunner) -> None:
    # The shipped threats layout with its board function renamed to hold a line break and Rust code: the name is
    # written into the exports' comments, where the line break would end a Rust // comment and start code. The
    # organism file is the shipped one, pointed at the changed term file and its digest.
    terms = tmp_path / "threats.py"
    renamed = '\npawn_threat.__name__ = "x\\n}\\ncompile_error!(\\"injected\\");\\n//"\n'
    terms.write_text(THREATS_PY.read_text() + renamed)
    data = json.loads(THREATS.read_text())
    data.update(layout=str(terms), layout_sha256=hashlib.sha256(terms.read_bytes()).hexdigest())
    organism = tmp_path / "threats.json"
    organism.write_text(json.dumps(data))
    for fmt in ("c", "rust", "json"):
        line = _refused(cli("export", organism, "--format", fmt), "export")
        assert line == (f"{organism}: its genome layout: {terms}: term 'pawn_threat': board= is a function named "
                        "'x\\n}\\ncompile_error!(\"injected\");\\n//', not a Python identifier (mimic export writes "
                        "its name into generated source)"), line
    # The shipped file, unchanged, still exports (its functions' names are identifiers).
    shutil.copy(THREATS_PY, terms)
    data.update(layout_sha256=hashlib.sha256(terms.read_bytes()).hexdigest())
    organism.write_text(json.dumps(data))
    done = cli("export", organism, "--format", "rust")
    assert done.returncode == 0 and "pawn_threat(board), pawn_threat_batch(rows)" in done.stdout, done.stderr


def test_match_refuses_an_organism_file_whose_value_its_bits_cannot_hold(tmp_path: Path, cli: CliRunner) -> None:
    # pawn 4000 cp: ten times its range's top (400); clamped, the organism would play a pawn of 400 cp.
    path = _changed(tmp_path, _gene("pawn", 4000))
    line = _refused(cli("match", f"organism:{path}", "material", "--games", "2", "--nodes", "50"), "match")
    assert line == (f"'organism:{path}': {path}: gene pawn is 4000, outside its range [0, 400] (its 10 bits cannot "
                    "hold it; mimic refuses rather than clamps it)")


def test_evolve_init_refuses_an_organism_file_whose_value_its_bits_cannot_hold(tmp_path: Path,
                                                                               cli: CliRunner) -> None:
    # knight -500 cp, below its range [0, 1200]: clamped, the run would start from a knight of 0 cp.
    labels = tmp_path / "labels.epd"
    write_expert_labels(labels, 30, seed=3)
    path = _changed(tmp_path, _gene("knight", -500))
    out = tmp_path / "run"
    line = _refused(cli("evolve", labels, "--out", out, "--init", path, "--population", "4", "--generations", "1",
                        "--jobs", "1", "--no-progress"), "evolve")
    assert line == (f"{path}: gene knight is -500, outside its range [0, 1200] (its 10 bits cannot hold it; mimic "
                    "refuses rather than clamps it)")
    assert not (out / "organism.json").exists()

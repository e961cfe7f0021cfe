"""ARCHITECTURE.md kept true: the import rules between packages and rooms, the module map, module sizes.

The rules are read from ARCHITECTURE.md's table "Packages and rooms" (its third column, "may import"), so the
document and the check cannot drift: each row names a room, and what its modules may import as backticked rooms
(``pkg/room/``), a package's top-level modules (``pkg/``), single modules (``pkg/module.py``) or ``everything``, and
the third-party distributions they may import as plain words; notes in brackets are for the reader. Imports are read
from the source with ``ast`` (function-level imports included), so a lazy import that breaks a rule is caught too.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("search", "organisms", "mentor", "evolve")
MAX_LINES = 400
"""No module above about 400 lines (ARCHITECTURE.md, Packages and rooms)."""
THIRD_PARTY_NAMES = {"scikit-learn": "sklearn", "dask": "distributed"}
"""Distributions whose import name differs from the word ARCHITECTURE.md uses."""


def modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module name ``path`` imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def module_of(name: str) -> Path | None:
    """The file of mimic's module ``name`` (``a.b.c`` may be module ``a.b``'s name ``c``: the longest that is a
    file or a package); ``None`` for a name outside mimic."""
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    for n in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:n])
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py")
        if (base / "__init__.py").is_file():
            return base / "__init__.py"
    return None


@dataclass(frozen=True)
class Rule:
    room: str  # "search/runtime/" or "search/" (a package's top level)
    targets: tuple[str, ...]  # rooms, tops, modules, or "everything"
    third_party: frozenset[str]

    def covers(self, path: Path) -> bool:
        """Whether ``path`` is a module of this room (a top row: the package's own top-level files)."""
        rel = path.relative_to(ROOT).as_posix()
        folder = rel.rsplit("/", 1)[0] + "/"
        return folder == self.room

    def allows(self, target: Path) -> bool:
        rel = target.relative_to(ROOT).as_posix()
        folder = rel.rsplit("/", 1)[0] + "/"
        for t in (*self.targets, self.room):
            if t == "everything" or (t.endswith(".py") and rel == t) or (t.endswith("/") and folder == t):
                return True
        return False


def rules(text: str | None = None) -> list[Rule]:
    """The rows of ARCHITECTURE.md's table "Packages and rooms": room, and what it may import."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8") if text is None else text
    table = text.split("## Packages and rooms", 1)[1].split("\n| package / room |", 1)[1].split("\n\n", 1)[0]
    out = []
    for row in table.splitlines()[2:]:
        room_cell, _, may = row.split("|")[1:4]
        room = re.findall(r"`([^`]+)`", room_cell)[0]
        bare = re.sub(r"\([^()]*\)", "", may)  # notes in brackets (no nesting) are for the reader
        targets = tuple(re.findall(r"`([^`]+)`", bare))
        words = set(re.findall(r"(?<![`\w/.-])([a-z][a-z0-9-]*)(?![`\w/.-])", re.sub(r"`[^`]*`", "", bare)))
        if "everything" in words:
            targets, words = ("everything",), set()
        third = frozenset(THIRD_PARTY_NAMES.get(w, w) for w in words)
        out.append(Rule(room, targets, third))
    return out


RULES = rules()


def rule_of(path: Path) -> Rule:
    found = [r for r in RULES if r.covers(path)]
    assert len(found) == 1, f"{path}: {len(found)} rows of ARCHITECTURE.md's table name its room"
    return found[0]


def test_the_rule_reader_sees_lazy_imports(tmp_path: Path) -> None:
    # A function-level import of evolve from a file is found (written here by hand).
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from evolve.cli import main\n    import torch.nn\n")
    assert imports(f) == {"evolve.cli", "evolve.cli.main", "torch.nn"}


def test_the_table_reader_on_a_row_by_hand() -> None:
    # A row as ARCHITECTURE.md writes them: rooms, a top, a module, third-party words, a note in brackets.
    text = ("## Packages and rooms\n\n| package / room | owns | may import |\n|---|---|---|\n"
            "| `evolve/nets/` | nets | chess, numpy, torch (only here); `evolve/data/`, `evolve/ga/wdl.py`, `search/` "
            "(the core, never `search/games/`) |\n\nafter\n")
    (r,) = rules(text)
    assert r.room == "evolve/nets/" and r.targets == ("evolve/data/", "evolve/ga/wdl.py", "search/")
    assert r.third_party == {"chess", "numpy", "torch"}
    assert r.allows(ROOT / "evolve/ga/wdl.py") and not r.allows(ROOT / "evolve/ga/run.py")
    assert r.allows(ROOT / "search/engine.py") and not r.allows(ROOT / "search/games/match.py")


def test_every_module_has_one_row() -> None:
    for path in modules():
        rule_of(path)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_architecture(path: Path) -> None:
    rule = rule_of(path)
    names = imports(path)
    ours = {n: module_of(n) for n in names if n.split(".")[0] in PACKAGES}
    broken = sorted(n for n, target in ours.items() if target is not None and not rule.allows(target))
    assert not broken, f"{rule.room} may not import {broken} (ARCHITECTURE.md, Packages and rooms)"
    if "everything" in rule.targets:
        return
    third = {n.split(".")[0] for n in names} - set(PACKAGES) - set(sys.stdlib_module_names) - {"__future__"}
    assert third <= rule.third_party, f"{rule.room} may not import {sorted(third - rule.third_party)}"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_above_400_lines(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_one_plotting_module() -> None:
    # matplotlib is imported in evolve/plots.py only (the table lets evolve's top import it; this is the module).
    found = [p.relative_to(ROOT).as_posix() for p in modules() if "matplotlib" in {n.split(".")[0] for n in imports(p)}]
    assert found == ["evolve/plots.py"]


def test_the_module_map_lists_every_module() -> None:
    """ARCHITECTURE.md's "Modules by room" names each room's modules; the tree must hold exactly those
    (packages' __init__ and the CLI's one-module-per-command files aside)."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("### Modules by room", 1)[1].split("\n\n", 2)[1]
    for row in section.splitlines()[2:]:
        room, listed = row.split("|")[1:3]
        folder = ROOT / room.strip().strip("`")
        named = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", listed)))  # notes in brackets aside
        on_disk = {p.stem for p in folder.glob("*.py")} - {"__init__", "__main__"}
        if folder.name == "cli":
            assert named <= on_disk
            continue
        assert named == on_disk, (room, sorted(named ^ on_disk))

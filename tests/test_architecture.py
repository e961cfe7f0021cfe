"""ARCHITECTURE.md kept true: the import rules between packages and rooms, the module map, module sizes.

Imports are read from the source with ``ast`` (function-level imports included), so a lazy import that
breaks a rule is caught too. The rules are ARCHITECTURE.md's table, restated here by hand.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("search", "organisms", "mentor", "evolve")
MAX_LINES = 400
"""No module above about 400 lines (ARCHITECTURE.md, Packages and rooms)."""


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


def ours(names: set[str]) -> set[str]:
    return {n for n in names if n.split(".")[0] in PACKAGES}


def test_the_rule_reader_sees_lazy_imports(tmp_path: Path) -> None:
    # A function-level import of evolve from a file is found (written here by hand).
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from evolve.cli import main\n    import torch.nn\n")
    assert imports(f) == {"evolve.cli", "evolve.cli.main", "torch.nn"}


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_architecture(path: Path) -> None:
    name = dotted(path)
    mine = ours(imports(path))
    top = name.split(".")[0]
    if top == "search":
        assert not {m for m in mine if m.split(".")[0] != "search"}, "search imports only search"
        if name.startswith("search.runtime"):
            assert all(m.startswith("search.runtime") for m in mine), "search/runtime is the bottom"
        if name.startswith("search.formats"):
            assert all(m.startswith(("search.formats", "search.runtime")) for m in mine)
    if top == "organisms":
        allowed = ("organisms", "search.conventions", "search.base", "search.see", "search.runtime")
        assert all(m.startswith(allowed) for m in mine), sorted(m for m in mine if not m.startswith(allowed))
    if top == "mentor":
        assert not {m for m in mine if m.startswith("evolve")}, "nothing outside evolve imports evolve"
    if not name.startswith("evolve.cli"):
        assert not {m for m in mine if m.startswith("evolve.cli")}, "nothing imports the command line"
    third = imports(path)
    if not name.startswith("evolve.nets"):
        assert not {m for m in third if m.split(".")[0] == "torch"}, "torch is imported only in evolve/nets"
    if name != "evolve.plots":
        assert not {m for m in third if m.split(".")[0] == "matplotlib"}, "matplotlib only in evolve/plots"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_above_400_lines(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


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

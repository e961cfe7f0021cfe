"""Write the table of mimic's built-in terms in docs/terms.md from the code that defines them.

    python tools/make_term_docs.py            # rewrite the table in docs/terms.md
    python tools/make_term_docs.py --check    # exit 1, saying so, when the table is not what this writes

Every term of the ``paper`` layout (``organisms.features.TERM_NAMES`` and ``tempo``) and every piece-square table of
``rich``, one row each: the name a term file's ``builtins`` and ``drop`` take, its features (genes), whether its
weight is a bonus or a penalty, its gene's range and width (``organisms.genome.rich_genome``), and what it counts for
one side (``organisms.features.TERM_DEFINITIONS``, ``TEMPO_DEFINITION``, ``pst_definition``). Only the part of the
page between :data:`BEGIN` and :data:`END` is written; ``tests/test_docs.py`` fails when it differs from what this
script writes now.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python tools/make_term_docs.py` from a checkout
    sys.path.insert(0, str(ROOT))

from organisms.features import (  # noqa: E402
    ALL,
    FEATURE_NAMES,
    FEATURE_SPEC,
    MG,
    PST_FEATURE_NAMES,
    PST_PIECES,
    TEMPO_DEFINITION,
    TERM_DEFINITIONS,
    TERM_NAMES,
    pst_definition,
)
from organisms.genome import rich_genome  # noqa: E402

PAGE = ROOT / "docs" / "terms.md"
REGENERATE = "python tools/make_term_docs.py"
BEGIN = f"<!-- built-in terms: written by `{REGENERATE}` from organisms/features.py; do not edit by hand -->"
END = "<!-- end of the built-in terms -->"
_TAPER = {ALL: "", MG: "mg", 2: "eg"}


def _range(name: str) -> str:
    gene = rich_genome().genes[rich_genome().names.index(name)]
    return f"{gene.low:g} to {gene.high:g}, {gene.bits} bits"


def _term_row(t: int) -> str:
    """One term's row: its features in FEATURE_SPEC order, each phase's orientation (+1 a bonus, -1 a penalty)."""
    parts = [(FEATURE_NAMES[j], taper, sign) for j, (term, taper, sign) in enumerate(FEATURE_SPEC) if term == t]
    name = TERM_NAMES[t]
    shown = ", ".join(f"`{f}`" if k == 0 else f"`{f.removeprefix(name)}`" for k, (f, _, _) in enumerate(parts))
    signs = {sign for _, _, sign in parts}
    if len(signs) == 1:
        counts = "a bonus" if signs == {1} else "a penalty"
    else:
        counts = ", ".join(f"a {'bonus' if sign > 0 else 'penalty'} ({_TAPER[taper]})" for _, taper, sign in parts)
    return f"| `{name}` | {shown} | {counts} | {_range(parts[0][0])} | {TERM_DEFINITIONS[name]} |"


def _pst_row(piece: str) -> str:
    names = [n for n in PST_FEATURE_NAMES if n.startswith(f"pst_{piece}_")]
    ranks = sorted({int(n.split("_")[2][1]) for n in names})
    return (f"| `pst_{piece}` | {len(names)}: `{names[0]}` ... `{names[-1]}` (files a-d, ranks {ranks[0]}-{ranks[-1]}; "
            f"`_mg` and `_eg`) | signed: a bonus when positive | {_range(names[0])} | {pst_definition(piece)} |")


def render() -> str:
    """The generated part of docs/terms.md, :data:`BEGIN` to :data:`END` inclusive."""
    head = "| name | features | its weight is | gene range (cp per unit), width | what one side's count is |"
    rule = "|---|---|---|---|---|"
    paper = [_term_row(t) for t in range(len(TERM_NAMES))]
    tempo = f"| `tempo` | `tempo` | a bonus | {_range('tempo')} | {TEMPO_DEFINITION} |"
    return "\n".join([
        BEGIN, "",
        f"**`paper`**, {len(FEATURE_NAMES)} features (and the first {len(FEATURE_NAMES)} of `rich`), in the order "
        "the layouts hold them:", "", head, rule, *paper, tempo, "",
        f"**`rich`** adds {len(PST_FEATURE_NAMES)} piece-square features, `pst_PIECE_SQUARE_PHASE`, one table a piece "
        "and phase:", "", head, rule, *(_pst_row(p) for p in PST_PIECES), "", END])


def rewrite(text: str) -> str:
    """``text`` (the page) with its generated part replaced by :func:`render`'s."""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{PAGE}: the markers {BEGIN!r} and {END!r} are missing")
    before, rest = text.split(BEGIN, 1)
    return before + render() + rest.split(END, 1)[1]


def main(argv: list[str] | None = None) -> int:
    """Rewrite the table (exit 0), or with ``--check`` exit 1 when the page's table is stale."""
    argv = sys.argv[1:] if argv is None else argv
    text = PAGE.read_text(encoding="utf-8")
    new = rewrite(text)
    if argv == ["--check"]:
        if new != text:
            print(f"{PAGE.relative_to(ROOT)}: the table of built-in terms is stale: run `{REGENERATE}`",
                  file=sys.stderr)
            return 1
        return 0
    if argv:
        print(f"usage: {REGENERATE} [--check]", file=sys.stderr)
        return 2
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

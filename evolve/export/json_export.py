"""An organism as JSON (``mimic export --format json``): one object of a stable structure, version 1 (docs/export.md
documents each key; a change of meaning bumps ``version``, a new key does not):

``format`` ``"mimic-export"``, ``version`` 1, ``kind`` ``"organism"``, ``layout`` (``mimic`` or ``pesto``),
then the notes (``source``, ``units``, ``point_of_view``, ``squares``, ``phase``, ``term_counts``, ``evaluation``:
text), then the numbers: ``pieces`` (their order), ``material`` (``mg``, ``eg``: six values, pawn to king),
``piece_square`` (``mg``, ``eg``: by piece name, 64 values in the layout's square order), ``terms`` (a list in the
evaluation's order: ``name``, ``mg``, ``eg``, ``from`` (per phase the gene and its sign, or null), ``counts``),
``tempo``, and ``genes`` (every gene's decoded value by name, the organism file's order). The pesto layout's
material and piece-square values are whole centipawns; every other number is the exact float64 value.

An organism of a user's layout adds the notes ``mimic_features`` and ``user_term_counts``, ``user_layout``
(``source``, ``sha256``, ``description``: the term file as the organism file records it) and ``user_terms`` (a list
in the evaluation's order: ``name``, ``mg``, ``eg``, ``from``, ``taper``, ``sign``, ``counts``); ``terms`` lists the
positional terms it has a gene of.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evolve.export.organism import PIECES, OrganismTables, Weight, notes, pesto_order, whole
from organisms.features import TERM_DEFINITIONS

FORMAT = "mimic-export"
VERSION = 1


def _gene(w: Weight) -> dict[str, Any] | None:
    return None if w.gene is None else {"gene": w.gene, "sign": w.sign}


def export_dict(t: OrganismTables, layout: str = "mimic") -> dict[str, Any]:
    """The JSON object of ``t`` in table ``layout`` (module docstring)."""
    pesto = layout == "pesto"

    def number(x: float) -> float | int:
        return whole(x) if pesto else x

    def table(row: tuple[float, ...]) -> list[float | int]:
        return [number(x) for x in (pesto_order(row) if pesto else row)]

    material = [number(x) for x in t.material()]
    user: dict[str, Any] = {} if t.user is None else {
        "user_layout": {"source": t.user.source, "sha256": t.user.sha256, "description": t.user.description},
        "user_terms": [{"name": u.name, "mg": t.value(u.mg), "eg": t.value(u.eg),
                        "from": {"mg": _gene(u.mg), "eg": _gene(u.eg)}, "taper": u.taper, "sign": u.sign,
                        "counts": u.counts} for u in t.user.terms]}
    return {
        "format": FORMAT, "version": VERSION, "kind": "organism", "layout": layout, **notes(t, layout),
        "pieces": list(PIECES),
        "material": {"mg": material, "eg": list(material)},
        "piece_square": {"mg": {p: table(r) for p, r in zip(PIECES, t.psq_mg, strict=True)},
                         "eg": {p: table(r) for p, r in zip(PIECES, t.psq_eg, strict=True)}},
        "terms": [{"name": n, "mg": t.value(mg), "eg": t.value(eg), "from": {"mg": _gene(mg), "eg": _gene(eg)},
                   "counts": TERM_DEFINITIONS[n]} for n, mg, eg in zip(t.terms, t.term_mg, t.term_eg, strict=True)],
        **user,
        "tempo": t.tempo,
        "genes": dict(t.genes),
    }


def json_text(t: OrganismTables, layout: str = "mimic") -> str:
    """:func:`export_dict` as indented JSON text, each list of numbers (a table, the material) on one line."""
    text = json.dumps(export_dict(t, layout), indent=1)
    return re.sub(r"\[\n\s+([^\[\]{}\"]*?)\n\s*\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)

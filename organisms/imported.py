"""Where ``mimic evolve`` and ``mimic fit`` start from (``--init FILE``): an engine's existing values read into the
genes of the run's genome (:func:`read_start`, a :class:`Start`).

``FILE`` is a JSON object in one of four forms, told apart by its keys:

* **an organism file** (``"format": "mimic-organism"``, :mod:`organisms.organism`): its decoded values by gene
  name, in any encoding; a paper organism may start a rich genome, and any organism whose genes a user's layout
  (``--genome myterms.py``) has may start it (the genes it lacks then take the default). An organism of a user's
  layout is read by gene name without its term file being run: a term file changed or gone since the organism was
  made is a warning (:attr:`Start.warning`), not an error;
* **an organism's export** (``"format": "mimic-export"``, ``mimic export --format json``): its ``genes``, the
  organism's values by name, under the same rules;
* **PeSTO-layout tables** (any of the keys ``mg_value``, ``eg_value``, ``mg_table``, ``eg_table``; all four
  needed): ``mg_value``/``eg_value`` six material values (a list, pawn, knight, bishop, rook, queen, king, or an
  object by those names; the king's may be left out: it cancels), ``mg_table``/``eg_table`` six 64-entry tables (a
  list in that order or an object by piece name), centipawns for a White piece; optionally ``square_order``
  (``"a8"``, PeSTO's arrays as printed and the default, or ``"a1"``: :data:`organisms.pst_import.SQUARE_ORDERS`)
  and ``genes``, named values (as below) for the genes the tables do not set (mobility, pawn structure, tempo,
  ...). The tables are projected onto the genome's material and piece-square genes by least squares
  (:mod:`organisms.pst_import`); they need a genome with every one of them (``--genome rich``, or a user's layout
  that has them all);
* **named values**: ``{"pawn": 100, "knight": 320, "pst_knight_c3_mg": 12, ...}``, gene names as mimic names them
  (``mimic genes --genome LAYOUT`` lists them), centipawns per unit of the feature of that name (the paper's
  genes are non-negative magnitudes, piece-square genes signed offsets added to the piece's material gene, files
  mirrored onto a-d, own point of view: ``organisms.features``).

A gene the file does not set takes :data:`DEFAULT_VALUE`, 0: the term is absent from the engine whose values are
imported (0 lies in every gene range of the paper and rich genomes; a gene whose range does not hold 0 takes the
nearest end of it). A value beyond its gene's range (by more than
half the gene's grid step) is refused, naming gene, value and range, whatever the form (:func:`check_range`; the
tables' projection clips instead, and says so). Anything else wrong with the file (not JSON, a wrong type, a wrong
table length, a non-finite number, an unknown gene) is an :class:`InitFileError` naming the file and the key.

May import: chess, numpy, ``organisms`` (features, genome, organism, pst_import, userfiles), ``search/runtime/``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from organisms.features import LAYOUTS, PST_PIECES, RICH_FEATURE_NAMES, layout_of
from organisms.genome import Genome
from organisms.organism import FORMAT, MAX_FILE_BYTES, Organism, file_values
from organisms.pst_import import SQUARE_ORDERS, Tables, distances, project, pst_gene_names
from organisms.userfiles import find_recorded
from search.runtime.errors import InputError, SettingsError
from search.runtime.readback import finite, json_type, read_json

DEFAULT_VALUE = 0.0
"""The value of a gene an ``--init`` file does not set (cp per unit of feature): the term is absent from the
engine whose values are imported (a gene whose range does not hold it takes the nearest end of its range)."""
EXPORT_FORMAT = "mimic-export"
"""The ``format`` of ``mimic export --format json`` (``evolve.export.json_export.FORMAT``): its ``genes`` are an
organism's values by name."""
TABLE_KEYS = ("mg_value", "eg_value", "mg_table", "eg_table")
"""The keys of PeSTO-layout tables (all four needed)."""
TABLE_OPTIONS = ("square_order", "genes")
"""The optional keys of PeSTO-layout tables."""
FORMS = {"organism": "an organism file", "export": "an organism's mimic export (JSON)", "values": "named gene values",
         "tables": "PeSTO-layout tables", "fit": "the exact fit of the run's loss"}
"""What a run starts from, by form, as the report names it."""


class InitFileError(InputError, ValueError):
    """An ``--init`` file that cannot be read as one of its forms: one line naming the file, the key and what is
    wrong. Exit 2."""


@dataclass(frozen=True)
class Start:
    """Where a run starts: gene values of ``genome`` (cp per unit of feature, genome order) as its source gives
    them (``given``; tables: their projection), ``defaulted`` the genes it did not set (they hold
    :data:`DEFAULT_VALUE`); for tables, the tables and the projected genes clipped to their range (name, the
    unclipped value); ``warning``: a line to show before the work, or None."""

    source: str
    form: str
    genome: Genome
    given: np.ndarray
    defaulted: tuple[str, ...] = ()
    tables: Tables | None = None
    clipped: tuple[tuple[str, float], ...] = ()
    warning: str | None = None
    """An organism's term file changed or gone since it was made (its values were taken by name), or None."""

    @property
    def bits(self) -> np.ndarray:
        """The chromosome nearest to :attr:`given` (the run's generation 0 holds it and mutated copies)."""
        return self.genome.encode(self.given)

    @property
    def weights(self) -> np.ndarray:
        """The values the genome holds of :attr:`given`: each gene's nearest grid value (cp per unit of feature)."""
        return self.genome.decode(self.bits[None, :])[0]

    def note(self) -> str | None:
        """One console line worth seeing before the work: genes defaulted, tables clipped; None when nothing is."""
        parts = []
        if self.defaulted and self.form not in ("organism", "export"):
            parts.append(f"{len(self.defaulted)} of {len(self.genome)} genes not in the file take {DEFAULT_VALUE:g}")
        if self.tables is not None:
            worst = max(distances(self.tables, self.values()), key=lambda d: d.largest)
            parts.append(f"the tables projected onto the genes, {len(self.clipped)} clipped to their range; largest "
                         f"difference from the tables {worst.largest:.0f} cp ({worst.piece} {worst.square} "
                         f"{worst.phase})")
        return f"--init {self.source}: " + "; ".join(parts) if parts else None

    def values(self) -> dict[str, float]:
        """:attr:`weights` by gene name."""
        return dict(zip(self.genome.names, self.weights.tolist(), strict=True))

    def lines(self) -> list[str]:
        """What was imported, for a run's summary and ``mimic fit``'s console (Markdown): the form, the genes
        defaulted, and for tables how far the start's values lie from them per piece and phase."""
        head = f"Started from {FORMS[self.form]}" + ("" if self.form == "fit" else f" (`{self.source}`)")
        lines = [head + (f"; {len(self.defaulted)} of {len(self.genome)} genes not in it took "
                         f"{DEFAULT_VALUE:g} ({_names(self.defaulted)})." if self.defaulted else ".")]
        if self.tables is None:
            return lines
        lines += ["", "The tables were projected onto the material and piece-square genes by least squares (files "
                  "mirrored: a gene is its square's and its mirror's mean less the piece's material; the material "
                  "gene takes the tables' level over both phases; the king's level is free, as it cancels)"
                  + (f"; {len(self.clipped)} piece-square genes lay beyond their range and were clipped ("
                     + ", ".join(f"{n} {v:.0f}" for n, v in self.clipped[:6])
                     + (", ..." if len(self.clipped) > 6 else "") + ")" if self.clipped else "")
                  + ". How far the start's piece values (material + square, for a White piece) lie from the tables', "
                  "in centipawns over the squares a piece can stand on (the king's up to its level):", "",
                  "| piece | mg RMS | mg largest | eg RMS | eg largest |", "|---|---|---|---|---|"]
        d = distances(self.tables, self.values())
        for mg, eg in zip(d[::2], d[1::2], strict=True):
            lines.append(f"| {mg.piece} | {mg.rms:.1f} | {mg.largest:.1f} ({mg.square}) | {eg.rms:.1f} | "
                         f"{eg.largest:.1f} ({eg.square}) |")
        return lines

    @classmethod
    def of_weights(cls, weights: np.ndarray, genome: Genome, source: str = "fit", form: str = "fit") -> Start:
        """A start from weights in hand (``--init fit``: the exact fit's)."""
        return cls(source, form, genome, np.asarray(weights, dtype=np.float64))


def _names(names: tuple[str, ...], shown: int = 4) -> str:
    return ", ".join(names[:shown]) + (f", ... {len(names) - shown} more" if len(names) > shown else "")


def check_range(values: np.ndarray, genome: Genome, source: str) -> None:
    """Refuse values beyond their gene's range by more than half its grid step (they would be clamped: not where
    the user started), in one line naming the first such gene, its value and its range."""
    outside = np.flatnonzero((values < genome.low - genome.scale / 2) | (values > genome.high + genome.scale / 2))
    if len(outside):
        i = int(outside[0])
        raise SettingsError(f"--init {source}: gene {genome.names[i]} is {values[i]:g}, outside this run's range "
                            f"[{genome.low[i]:g}, {genome.high[i]:g}] ({len(outside)} gene(s) outside; mimic refuses "
                            "rather than clamps them)")


def layout_name(genome: Genome) -> str:
    """The ``--genome`` that makes ``genome``: ``paper``, ``rich`` or a user layout's source."""
    return genome.layout.source if genome.layout is not None else (layout_of(genome.names) or "LAYOUT")


def _unknown(name: str, genome: Genome, source: str, where: str = "") -> InitFileError:
    close = difflib.get_close_matches(name, genome.names, n=1)
    hint = (f" (did you mean {close[0]!r}?)" if close else
            " (a rich genome's gene: --genome rich)" if name in RICH_FEATURE_NAMES else "")
    return InitFileError(f"{source}: {where}{name!r} is not a gene of the {layout_name(genome)} genome{hint}; "
                         f"mimic genes --genome {layout_name(genome)} lists them")


def _named(data: dict[str, Any], genome: Genome, source: str, where: str = "") -> dict[str, float]:
    """Named values: every key a gene of ``genome``, every value a finite number."""
    out = {}
    for name, value in data.items():
        if name not in genome.names:
            raise _unknown(name, genome, source, where)
        out[name] = finite(value, f"{where}{name}", source, error=InitFileError)
    return out


def _by_piece(value: object, key: str, source: str, king_optional: bool) -> list[object]:
    """Six entries (pawn to king) of a list in that order or an object by piece name; the king's 0 when
    ``king_optional`` and left out."""
    n = len(PST_PIECES)
    if isinstance(value, list):
        if len(value) == n - 1 and king_optional:
            return [*value, 0]
        if len(value) != n:
            raise InitFileError(f"{source}: {key} has {len(value)} entries, expected {n} (pawn, knight, bishop, "
                                f"rook, queen, king{', the king optional' if king_optional else ''})")
        return list(value)
    if isinstance(value, dict):
        extra = [p for p in value if p not in PST_PIECES]
        if extra:
            raise InitFileError(f"{source}: {key}.{extra[0]} is not a piece (pawn, knight, bishop, rook, queen, king)")
        missing = [p for p in PST_PIECES if p not in value and not (king_optional and p == "king")]
        if missing:
            raise InitFileError(f"{source}: {key}.{missing[0]} is missing")
        return [value.get(p, 0) for p in PST_PIECES]
    raise InitFileError(f"{source}: {key} is {json_type(value)}, expected a list of {n} or an object by piece name")


def _tables(data: dict[str, Any], genome: Genome, source: str) -> tuple[Tables, dict[str, float]]:
    """PeSTO-layout tables and the named values beside them (``genes``)."""
    extra = [k for k in data if k not in TABLE_KEYS + TABLE_OPTIONS]
    if extra:
        raise InitFileError(f"{source}: {extra[0]!r} is not a key of PeSTO-layout tables (they have "
                            f"{', '.join(TABLE_KEYS + TABLE_OPTIONS)})")
    missing = [k for k in TABLE_KEYS if k not in data]
    if missing:
        raise InitFileError(f"{source}: {missing[0]} is missing (PeSTO-layout tables need {', '.join(TABLE_KEYS)})")
    order = data.get("square_order", "a8")
    if order not in SQUARE_ORDERS:
        raise InitFileError(f"{source}: square_order is {str(order)[:40]!r}, expected one of "
                            f"{', '.join(SQUARE_ORDERS)} (a8: a8..h8 first, PeSTO's; a1: a1..h1 first)")
    values = {k: [finite(v, f"{k}.{p}", source, error=InitFileError)
                  for p, v in zip(PST_PIECES, _by_piece(data[k], k, source, True), strict=True)]
              for k in ("mg_value", "eg_value")}
    tables: dict[str, list[list[float]]] = {}
    for k in ("mg_table", "eg_table"):
        tables[k] = []
        for p, table in zip(PST_PIECES, _by_piece(data[k], k, source, False), strict=True):
            if not isinstance(table, list) or len(table) != 64:
                got = f"{len(table)} values" if isinstance(table, list) else json_type(table)
                raise InitFileError(f"{source}: {k}.{p} is {got}, expected a list of 64 (squares from {order})")
            tables[k].append([finite(v, f"{k}.{p}[{i}]", source, error=InitFileError) for i, v in enumerate(table)])
    genes = data.get("genes", {})
    if not isinstance(genes, dict):
        raise InitFileError(f"{source}: genes is {json_type(genes)}, expected an object of gene values by name")
    named = _named(genes, genome, source, "genes.")
    set_by_tables = set(pst_gene_names())
    clash = [n for n in named if n in set_by_tables]
    if clash:
        raise InitFileError(f"{source}: genes.{clash[0]} is set by the tables (mg_value, eg_value, mg_table, "
                            "eg_table give the material and piece-square genes)")
    return Tables.from_lists(values["mg_value"], values["eg_value"], tables["mg_table"], tables["eg_table"],
                             order), named


def read_start(path: str | Path, genome: Genome) -> Start:
    """The start an ``--init`` file gives ``genome`` (see the module docstring for its forms): an
    :class:`InitFileError` for a file that is none of them, a ``SettingsError`` for genes that do not fit the
    genome (another layout's, values beyond a range)."""
    source = str(path)
    data = read_json(path, "--init file", max_bytes=MAX_FILE_BYTES, error=InitFileError)
    tables: Tables | None = None
    clipped: tuple[tuple[str, float], ...] = ()
    warning: str | None = None
    """An organism's term file changed or gone since it was made (its values were taken by name), or None."""
    warning = None
    if "format" in data or (isinstance(data.get("genes"), list) and not any(k in data for k in TABLE_KEYS)):
        if data.get("format") not in (FORMAT, EXPORT_FORMAT):
            what = f"format is {str(data['format'])[:40]!r}" if "format" in data else "a list of genes but no format"
            raise InitFileError(f"{source}: {what}: an --init file is a {FORMAT} file, a {EXPORT_FORMAT} file of an "
                                f"organism, PeSTO-layout tables ({', '.join(TABLE_KEYS)}) or gene values by name")
        form = "organism" if data["format"] == FORMAT else "export"
        given, warning = (_organism_values if form == "organism" else _export_values)(data, genome, source)
    elif any(k in data for k in TABLE_KEYS):
        lacking = [n for n in pst_gene_names() if n not in genome.names]
        if lacking:
            raise SettingsError(f"--init {source}: PeSTO-layout tables need a genome with every material and "
                                f"piece-square gene (--genome rich); the {layout_name(genome)} genome lacks "
                                f"{len(lacking)}, e.g. {lacking[0]}")
        tables, named = _tables(data, genome, source)
        projection = project(tables, genome)
        form, given, clipped = "tables", {**projection.values, **named}, projection.clipped
    else:
        if not data:
            raise InitFileError(f"{source}: no gene values (an empty object)")
        form, given = "values", _named(data, genome, source)
    defaulted = tuple(n for n in genome.names if n not in given)
    default = np.clip(DEFAULT_VALUE, genome.low, genome.high)
    values = np.array([given.get(n, default[j]) for j, n in enumerate(genome.names)], dtype=np.float64)
    check_range(values, genome, source)
    return Start(source, form, genome, values, defaulted, tables, clipped, warning)


def _organism_values(data: dict[str, Any], genome: Genome, source: str) -> tuple[dict[str, float], str | None]:
    """An organism file's values by gene name and a warning (or None). The organism of a user's layout is read by
    gene name without its term file being run (only its values are needed): a term file changed or gone since
    (:func:`organisms.userfiles.find_recorded`) is the warning, not an error. Which genes may differ:
    :func:`_fits`."""
    layout = data.get("layout", "paper")
    if layout in LAYOUTS:
        return _fits(Organism.from_dict(data, source).values(), str(layout), genome, source), None
    values = file_values(data, source)
    sha = data.get("layout_sha256")
    if not isinstance(layout, str) or not isinstance(sha, str):
        raise InitFileError(f"{source}: unknown 'layout' {str(layout)[:40]!r} (one of {', '.join(LAYOUTS)}, or a "
                            "user's term file with its 'layout_sha256')")
    found = find_recorded(layout, sha, source)
    warning = None if found.spec is not None else (f"--init {source}: its genome layout {found.problem}; its gene "
                                                   "values are taken by name, without running it")
    return _fits(values, layout, genome, source), warning


def _export_values(data: dict[str, Any], genome: Genome, source: str) -> tuple[dict[str, float], None]:
    """A ``mimic export --format json`` file's gene values by name (``genes``: the organism's decoded values, exact
    in either table layout); an export of a net is refused. Which genes may differ: :func:`_fits`."""
    if data.get("kind") != "organism" or not isinstance(data.get("genes"), dict):
        raise InitFileError(f"{source}: a {EXPORT_FORMAT} file of kind {str(data.get('kind'))[:20]!r}, not an "
                            "organism's with its gene values by name ('genes')")
    values = {name: finite(v, f"genes.{name}", source, error=InitFileError) for name, v in data["genes"].items()}
    user = data.get("user_layout")
    layout = str(user.get("source")) if isinstance(user, dict) else (layout_of(tuple(values)) or "unknown")
    return _fits(values, layout, genome, source), None


def _fits(values: dict[str, float], layout: str, genome: Genome, source: str) -> dict[str, float]:
    """``values`` (an organism's, of ``layout``) if they may start ``genome``: a paper organism may start a rich
    genome, and any organism whose genes a user's layout has may start it (the genes it lacks take the default); any
    other difference of genes is refused."""
    missing = [n for n in genome.names if n not in values]
    extra = [n for n in values if n not in genome.names]
    if extra or (missing and layout != "paper" and genome.layout is None):
        raise SettingsError(f"{source}: the organism's genes ({layout} layout) are not this run's genome's "
                            f"(unknown genes: {extra[:3] or 'none'}, missing: {missing[:3] or 'none'})")
    return values

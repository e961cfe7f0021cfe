"""Issue 11 item 2: gene mutation, the memetic option beside the pure GA, the rich genome's GA defaults."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import chess
import numpy as np
import pytest

from evolve.cli import build_parser
from evolve.cli.options import ga_settings as _ga_settings
from evolve.data.dataset import load_dataset
from evolve.ga.evolution import RICH_DEFAULTS, Evolution, GASettings, integers_to_bits, mutate_genes
from evolve.ga.objectives import MentorLoss
from evolve.ga.run import RunSettings, evolve
from mentor.labels import Label, LabelWriter
from mentor.samplers import random_playouts
from organisms.expert import Expert
from organisms.genome import Gene, Genome, layout_genome

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "evolving.md"


@pytest.mark.parametrize("encoding", ["gray", "binary"])
def test_integers_to_bits_inverts_decoding(encoding: str) -> None:
    genome = layout_genome("rich", encoding)
    rng = np.random.default_rng(3)
    bits = genome.random_bits(rng, 20)
    assert np.array_equal(integers_to_bits(genome, genome.integers(bits)), bits)
    # By hand: one 3-bit gene holding 5 = binary 101 -> Gray 5 ^ (5 >> 1) = 5 ^ 2 = 7 = 111.
    small = Genome([Gene("a", 3, 0, 7)], encoding)
    assert integers_to_bits(small, np.array([[5]])).tolist() == ([[1, 1, 1]] if encoding == "gray" else [[1, 0, 1]])


@pytest.mark.parametrize("kind", ["gaussian", "uniform"])
@pytest.mark.parametrize("encoding", ["gray", "binary"])
def test_gene_mutation_changes_exactly_the_chosen_genes(kind: str, encoding: str) -> None:
    genome = layout_genome("rich", encoding)  # 417 genes of 6, 7 and 10 bits
    rng = np.random.default_rng(11)
    before = genome.random_bits(rng, 50)
    children = before.copy()
    chosen = mutate_genes(children, genome, 0.05, kind, 0.1, rng)
    old, new = genome.integers(before), genome.integers(children)
    # Every chosen gene has a new value, no other gene moved, and every value is on its gene's grid.
    assert np.array_equal(old != new, chosen)
    assert (new >= 0).all() and (new <= genome.max_int).all()
    # No bit outside the chosen genes moved (a gene's bits are its own, in either encoding).
    widths = np.array([g.bits for g in genome.genes])
    assert not (children != before)[~np.repeat(chosen, widths, axis=1)].any()
    # 50 x 417 genes at 5%: about 1,043 chosen (binomial sd 31); seeded, so this is a fixed number.
    assert 900 < chosen.sum() < 1200


def test_gaussian_steps_reflect_at_the_range_ends() -> None:
    # One 2-bit gene (values 0..3) at 3 with sigma 10: steps clip to +-3 then reflect, e.g. 3 + 2 = 5 -> 2 * 3 - 5 = 1;
    # whatever the draw, the value stays in 0..3 and differs from 3.
    genome = Genome([Gene("a", 2, 0, 3)], "binary")
    rng = np.random.default_rng(0)
    children = np.tile(np.array([[1, 1]], dtype=np.uint8), (200, 1))
    mutate_genes(children, genome, 1.0, "gaussian", 10.0, rng)
    values = genome.integers(children)[:, 0]
    assert set(values.tolist()) <= {0, 1, 2}


def test_ga_with_gene_mutation_runs_and_checkpoints_without_new_keys_still_load(tmp_path: Path) -> None:
    genome = Genome([Gene(f"g{i}", 6, 0, 63) for i in range(5)])
    rng = np.random.default_rng(5)
    features = rng.integers(-3, 4, size=(400, 5)).astype(np.float64)
    truth = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    objective = MentorLoss(features, features @ truth)
    rows = np.arange(400)
    settings = GASettings(generations=60, mutation_kind="gaussian", mutation=0.1, sample=200)
    ev = Evolution(genome, objective, rows[:300], rows[300:], settings)
    ev.run(checkpoint=tmp_path / "ck", every=30)
    _, _, held = ev.winner()
    first = ev.logbook[0]["held_out"]
    assert held < first / 4  # the GA works with gene mutation (a random start is off by hundreds of cp)
    # A checkpoint written before mutation_kind / mutation_sigma existed ran with bit mutation: it loads as such.
    with np.load(tmp_path / "ck.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    for key in ("mutation_kind", "mutation_sigma"):
        del meta["settings"][key]
    meta["settings"]["mutation"] = 0.005
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    old = Evolution(genome, objective, rows[:300], rows[300:], GASettings(generations=60, sample=200))
    old.load(tmp_path / "old")
    assert old.generation == 60


def _labels(path: Path, n: int) -> None:
    """``n`` random positions labelled by the built-in expert's static evaluation (cp, side to move)."""
    expert = Expert()
    with LabelWriter(path) as w:
        for s in random_playouts(n, 7, min_plies=4, max_plies=80):
            board: chess.Board = s.board
            w.write(Label(board, int(expert.evaluate(board)), 1, [], None, None, "test", None))


def test_polish_is_off_by_default_and_never_hides_the_pure_ga(tmp_path: Path) -> None:
    assert RunSettings(labels="x", out="y", ga=GASettings()).polish == 0
    args = build_parser().parse_args(["evolve", "labels.epd", "--out", "o"])
    assert args.polish == 0
    labels = tmp_path / "labels.epd"
    _labels(labels, 150)
    ds = load_dataset(labels, target="root", cache_dir=tmp_path / "cache")
    # A small GA (30 organisms, 10 generations, 150 labels; was the default 100 organisms, 20 generations, 300
    # labels): the polish's rules hold at any size.
    ga = GASettings(population=30, generations=10, sample=100)
    settings = RunSettings(labels=str(labels), out=str(tmp_path / "run"), ga=ga, target="root", polish=3)
    o = evolve(settings, "test", dataset=ds)
    assert o.polished is not None and o.polished.passes <= 3
    assert o.polished.train_loss <= o.train_loss  # descent never raises the training loss it starts from
    summary = (tmp_path / "run" / "summary.md").read_text()
    # The pure GA's row and ratio stay, with the polished row beside them.
    assert f"| GA winner | {o.train_loss:.2f} | {o.held_loss:.2f} |" in summary
    assert re.search(r"\*\*GA held-out error ÷ exact L1 fit held-out error: [0-9.]+\*\* \(pure GA\)", summary)
    assert "| GA winner + memetic polish (" in summary and "The memetic polish ran once, after generation 10" in summary
    assert json.loads((tmp_path / "run" / "organism.json").read_text())["meta"]["held_out_error"] == o.held_loss
    polished = json.loads((tmp_path / "run" / "organism-polished.json").read_text())
    assert polished["meta"]["held_out_error"] == o.polished.held_loss
    # Off (the default): no polished row, no polished file.
    plain = evolve(RunSettings(labels=str(labels), out=str(tmp_path / "plain"), ga=ga, target="root"),
                   "test", dataset=ds)
    assert plain.polished is None and not (tmp_path / "plain" / "organism-polished.json").exists()
    assert "memetic" not in (tmp_path / "plain" / "summary.md").read_text()
    assert plain.held_loss == o.held_loss  # the same GA either way: polish only runs after it


def test_rich_defaults_differ_from_the_papers_only_where_documented() -> None:
    parse = build_parser().parse_args
    paper = _ga_settings(parse(["evolve", "l.epd", "--out", "o"]))
    rich = _ga_settings(parse(["evolve", "l.epd", "--out", "o", "--genome", "rich"]))
    assert paper == GASettings()  # the paper genome's defaults are exactly the paper's
    differ = {k for k, v in asdict(rich).items() if getattr(paper, k) != v}
    assert differ == set(RICH_DEFAULTS)
    guide = GUIDE.read_text()
    for key, value in RICH_DEFAULTS.items():
        assert f"--{key.replace('_', '-')} {value}" in guide  # each is documented in docs/evolving.md
    # A flag given on the command line always wins over the rich defaults.
    given = _ga_settings(parse(["evolve", "l.epd", "--out", "o", "--genome", "rich", "--generations", "7",
                                "--mutation-kind", "bit", "--mutation", "0.004"]))
    assert (given.generations, given.mutation_kind, given.mutation) == (7, "bit", 0.004)
    assert given.crossover_kind == RICH_DEFAULTS.get("crossover_kind", "two-point")


def test_shrinking_sigma_is_geometric_from_first_to_final() -> None:
    # 0.1 -> 0.001 over generations 1..3 is a factor 10 per generation: 0.1, 0.01, 0.001 (by hand).
    s = GASettings(generations=3, mutation_kind="gaussian", mutation_sigma=0.1, mutation_sigma_final=0.001)
    assert [round(s.sigma_at(g), 12) for g in (1, 2, 3)] == [0.1, 0.01, 0.001]
    assert GASettings(mutation_kind="gaussian").sigma_at(200) == 0.1  # no final sigma: constant
    with pytest.raises(ValueError, match="final mutation sigma"):
        GASettings(mutation_sigma=0.1, mutation_sigma_final=0.2)


@pytest.mark.parametrize("bad", [{"population": 1}, {"elite": 100}, {"crossover": 1.5}, {"mutation": -0.1},
                                 {"generations": -1}, {"sample": 0}, {"tournament": 0}, {"seed": -1}])
def test_settings_out_of_range_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        GASettings(**bad)  # type: ignore[arg-type]

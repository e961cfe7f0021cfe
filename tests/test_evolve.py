"""The genetic algorithm: DEAP operators, fitness, recovery of a known organism, resume, the exact fit."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import chess
import numpy as np
import pytest
from deap import tools

from evolve.data.dataset import load_dataset, split
from evolve.ga.evolution import (
    Evolution,
    GASettings,
    GenerationRecord,
    as_individual,
    mate_population,
    select_tournament,
)
from evolve.ga.fit import exact_fit
from evolve.ga.objectives import MentorLoss, ResultLoss, fit_k, sigmoid
from mentor.labels import Label, LabelWriter
from organisms import Organism, feature_matrix
from organisms.expert import EXPERT_WEIGHTS
from organisms.genome import default_genome

from .conftest import CliRunner


def _positions(n: int, seed: int) -> list[chess.Board]:
    """``n`` distinct positions 4-119 plies into random playouts, none game over: an eighth of the positions each
    playout passes through (one legal-move generation a ply), where mentor's random_playouts plays a whole playout
    for each position (that was 6 s of this file's fixture). Same phases, same kind of data for every check."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    seen: set[str] = set()
    while len(out) < n:
        board = chess.Board()
        for ply in range(1, 120):
            moves = list(board.generate_legal_moves())
            if not moves or len(out) == n:
                break
            board.push(rng.choice(moves))
            if ply >= 4 and rng.random() < 1 / 8 and not board.is_game_over() and board.epd() not in seen:
                seen.add(board.epd())
                out.append(board.copy(stack=False))
    return out


def _known_organism() -> Organism:
    """A sensible organism: textbook material, the expert's positional weights."""
    w = dict(EXPERT_WEIGHTS)
    w.update(pawn=100, knight=320, bishop=330, rook=500, queen=900, knight_center=5, bishop_center=3,
             king_center_mg=10, king_center_eg=15)
    return Organism.from_weights(w)


@pytest.fixture(scope="module")
def synthetic() -> tuple[list[chess.Board], np.ndarray, np.ndarray, Organism]:
    boards = _positions(3000, seed=1)
    truth = _known_organism()
    y = np.array([truth.evaluate(b) for b in boards], dtype=np.float64)
    return boards, feature_matrix(boards, use_cache=False).astype(np.float64), y, truth


def test_deap_two_point_corrupts_arrays_and_ours_does_not() -> None:
    a0 = np.zeros(64, dtype=np.uint8)
    b0 = np.ones(64, dtype=np.uint8)
    # DEAP's own cxTwoPoint, on numpy individuals: both children end up with the same segment.
    a, b = as_individual(a0.copy()), as_individual(b0.copy())
    random.seed(3)
    tools.cxTwoPoint(a, b)
    assert np.any((a + b) != 1)  # bits were lost: some position no longer holds one 0 and one 1
    # Ours keeps every position's pair of bits, and really swaps a segment.
    pair = np.stack([a0, b0])
    mate_population(pair, 1.0, "two-point", np.random.default_rng(3))
    assert np.all((pair[0] + pair[1]) == 1) and 0 < pair[0].sum() < 64
    for kind in ("one-point", "uniform"):
        pop = np.random.default_rng(1).integers(0, 2, (10, 64), dtype=np.uint8)
        before = pop.copy()
        mate_population(pop, 1.0, kind, np.random.default_rng(2))
        assert np.array_equal(pop[0::2] + pop[1::2], before[0::2] + before[1::2])
        assert not np.array_equal(pop, before)


def test_tournament_prefers_low_loss() -> None:
    losses = np.arange(100, dtype=np.float64)
    picks = select_tournament(losses, 10_000, 3, np.random.default_rng(0))
    assert picks.mean() < 30  # with size 3 the expected winner is the 25th percentile


def test_matrix_fitness_equals_per_position_evaluate(synthetic: tuple) -> None:
    boards, features, y, _ = synthetic
    genome = default_genome()
    objective = MentorLoss(features, y)
    rows = np.arange(0, 3000, 7)
    for seed in (1, 2, 3):
        organism = Organism.random(seed)
        per_position = np.array([organism.evaluate(boards[i]) for i in rows], dtype=np.float64)
        loss = objective.losses(genome.decode(organism.bits[None, :]), rows)[0]
        assert abs(loss - np.abs(per_position - y[rows]).mean()) <= 0.5  # evaluate() rounds to whole cp
        assert np.all(np.abs(features[rows] @ organism.weights - per_position) <= 0.5 + 1e-9)


@pytest.mark.parametrize("encoding", ["binary", "gray"])
def test_ga_recovers_a_known_organism(synthetic: tuple, encoding: str) -> None:
    _, features, y, truth = synthetic
    genome = default_genome(encoding)
    train, held = split(len(y), 0.2, 0)
    objective = MentorLoss(features, y)
    start = np.median(objective.losses(genome.decode(genome.random_bits(np.random.default_rng(9), 100)), held))
    ev = Evolution(genome, objective, train, held, GASettings(seed=2))
    ev.run()
    bits, _, held_error = ev.winner()
    weights = genome.decode(bits[None, :])[0]
    # From ~700 cp for random organisms to a few percent of it (binary reading), under 2% with Gray.
    assert held_error < (0.06 if encoding == "binary" else 0.02) * start
    material = weights[:5] / truth.weights[:5]
    assert np.all(np.abs(material - 1) < 0.15), material


@pytest.mark.parametrize("stop_at", [30, 37])
def test_resume_is_bit_identical(synthetic: tuple, tmp_path: Path, stop_at: int) -> None:
    _, features, y, _ = synthetic
    genome = default_genome()
    train, held = split(len(y), 0.2, 0)
    objective = MentorLoss(features, y)
    settings = GASettings(generations=60, seed=4)
    full = Evolution(genome, objective, train, held, settings)
    full.run()

    class Killed(Exception):
        pass

    # The kill lands in on_generation, before that generation's checkpoint: a run killed at generation
    # 30 resumes from 20, one killed at 37 from 30 (an unseeded draw used here failed on multiples of 10).

    def kill(rec: GenerationRecord) -> None:
        if rec.gen == stop_at:
            raise Killed

    first = Evolution(genome, objective, train, held, settings)
    with pytest.raises(Killed):
        first.run(checkpoint=tmp_path / "ck", every=10, on_generation=kill)
    resumed = Evolution(genome, objective, train, held, settings)
    resumed.load(tmp_path / "ck")
    assert resumed.generation == (stop_at - 1) // 10 * 10
    resumed.run(checkpoint=tmp_path / "ck", every=10)
    assert np.array_equal(resumed.population, full.population)
    assert np.array_equal(resumed.losses, full.losses)
    assert np.array_equal(resumed.winner()[0], full.winner()[0])
    assert [r["best"] for r in resumed.logbook] == [r["best"] for r in full.logbook]


def test_exact_fit_is_never_beaten(synthetic: tuple) -> None:
    _, features, y, _ = synthetic
    noisy = y + np.random.default_rng(0).normal(0, 40, len(y))  # a mentor the model cannot match exactly
    genome = default_genome()
    train, held = split(len(y), 0.2, 0)
    fit = exact_fit(features, noisy, train, held, genome, "l1")
    objective = MentorLoss(features, noisy)
    for seed in range(3):
        ev = Evolution(genome, objective, train, held, GASettings(generations=150, seed=seed))
        ev.run()
        assert fit.train_mae <= ev.winner()[1] + 1e-9
    l2 = exact_fit(features, noisy, train, held, genome, "l2")
    assert fit.train_mae <= l2.train_mae + 1e-9
    assert np.all(fit.weights >= genome.low - 1e-9) and np.all(fit.weights <= genome.high + 1e-9)


def test_fitted_k_recovers_the_logistic_scale() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(0, 300, 20_000)
    results = (rng.random(20_000) < sigmoid(scores / 180.0)).astype(float)
    k = fit_k(scores, results, np.ones_like(scores))
    assert 165 < k < 195


def _write_labels(path: Path, boards: list[chess.Board], scores: np.ndarray, with_results: bool) -> None:
    rng = random.Random(0)
    with LabelWriter(path) as w:
        for b, s in zip(boards, scores, strict=True):
            result = None
            if with_results:  # a game result that agrees with the score more often than not
                p_white = 1 / (1 + np.exp(-(s if b.turn else -s) / 200))
                result = "1-0" if rng.random() < p_white else "0-1"
            w.write(Label(b, int(s), 6, [], result, None, "synthetic", rng.randrange(0, 80) if with_results else None))


def test_evolve_command_writes_results_and_resumes(cli: CliRunner, synthetic: tuple, tmp_path: Path) -> None:
    boards, _, y, _ = synthetic
    labels = tmp_path / "labels.epd"
    # 600 labels (1,500 took 1.2 s of exact fits a label set): the resume and the refusals are the point.
    _write_labels(labels, boards[:600], y[:600], with_results=False)
    common = ["evolve", str(labels), "--target", "root", "--no-progress", "--checkpoint-every", "5"]
    cli(*common, "--out", str(tmp_path / "a"), "--generations", "40", check=True)
    cli(*common, "--out", str(tmp_path / "b"), "--generations", "20", check=True)
    again = cli(*common, "--out", str(tmp_path / "b"), "--generations", "40")
    assert again.returncode == 2 and "--resume" in again.stderr  # a checkpoint is never overwritten silently
    # Another loss or label set on --resume is refused in one line: the checkpoint's best organism no longer has
    # the held-out loss its logbook recorded. The checkpoint is left as it was.
    before = (tmp_path / "b" / "checkpoint.npz").read_bytes()
    other = tmp_path / "other.epd"
    _write_labels(other, boards[:600], y[:600] + 50, with_results=False)  # every score 50 cp higher
    for argv in ([*common, "--loss", "wdl"], [*common[:1], str(other), *common[2:]]):
        refused = cli(*argv, "--out", str(tmp_path / "b"), "--generations", "40", "--resume")
        assert refused.returncode == 2 and "evolved against another objective" in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    assert (tmp_path / "b" / "checkpoint.npz").read_bytes() == before
    cli(*common, "--out", str(tmp_path / "b"), "--generations", "40", "--resume", check=True)
    a = json.loads((tmp_path / "a" / "organism.json").read_text())
    b = json.loads((tmp_path / "b" / "organism.json").read_text())
    assert [g["chromosome"] for g in a["genes"]] == [g["chromosome"] for g in b["genes"]]
    for name in ("organism.json", "logbook.csv", "curve.png", "summary.md", "settings.json"):
        assert (tmp_path / "a" / name).stat().st_size > 0
    summary = (tmp_path / "a" / "summary.md").read_text()
    assert "GA held-out error ÷ exact L1 fit held-out error" in summary and "| queen |" in summary
    assert len((tmp_path / "a" / "logbook.csv").read_text().splitlines()) == 42  # header + generations 0..40
    Organism.load(tmp_path / "a" / "organism.json")  # the winner is a loadable organism


def test_result_objective_with_greko_baseline(cli: CliRunner, synthetic: tuple, tmp_path: Path) -> None:
    boards, _, y, _ = synthetic
    labels = tmp_path / "games.epd"
    # 600 labels (1,500 took 1.6 s of GreKo's descent): K fitted on their 480 training positions is 185 today.
    _write_labels(labels, boards[:600], y[:600], with_results=True)
    ds = load_dataset(labels, target="root", cache_dir=tmp_path / "cache")
    objective = ResultLoss(ds.features, ds.y, ds.result, ds.plies_to_end, ds.train)
    assert 120 < objective.k < 300  # the results were drawn with K = 200 cp
    run = cli("evolve", str(labels), "--target", "root", "--objective", "result", "--generations", "30",
              "--no-progress", "--out", str(tmp_path / "r"), check=True)
    assert "winner" in run.stdout
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "GreKo coordinate descent" in summary and "K (fitted, cp)" in summary
    # The baseline is a timed computation of the run, not of the report writer: its wall time is listed
    # beside the GA's, on the console and in the summary's wall-time section.
    assert "GreKo coordinate descent" in run.stdout.split("time: ")[1]
    wall = summary.split("## Wall time")[1]
    assert re.search(r"^- GreKo coordinate descent: \d+\.\d\d s$", wall, re.MULTILINE)


def test_fit_command(cli: CliRunner, synthetic: tuple, tmp_path: Path) -> None:
    boards, _, y, _ = synthetic
    labels = tmp_path / "labels.epd"
    _write_labels(labels, boards[:800], y[:800], with_results=False)
    run = cli("fit", str(labels), "--target", "root", "--loss", "l1", "--loss", "l2", "--out",
              str(tmp_path / "fit.json"), check=True)
    assert "L1 fit" in run.stdout and "L2 fit" in run.stdout
    # Labels made by an organism are fitted to within rounding.
    l1_train = float(run.stdout.split("L1 fit")[1].split("error ")[1].split(" cp")[0])
    assert l1_train < 1.0
    assert (tmp_path / "fit-l1.json").exists() and (tmp_path / "fit-l2.json").exists()


def test_demo_runs_end_to_end_and_resumes(cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "demo"
    # 40 positions, one worker (no pool to start), one game at 0.02 s a move, not the demo's 0.1 s (the search
    # spends its movetime; the game's clock is no part of what this checks: the stages run, write their files and
    # resume): 6.8 -> 5.3 s of CPU. 60 positions, two workers and two games at 0.1 s took 15 s.
    import evolve.demo

    monkeypatch.setattr(evolve.demo, "MATCH_MOVETIME", 0.02)
    cmd = ["demo", "--out", str(out), "--positions", "40", "--jobs", "1", "--match-games", "1", "--no-progress"]
    first = cli(*cmd, check=True)
    assert "40 labelled now" in first.stdout and "exact L1 fit" in first.stdout
    assert "| evolved organism | 1 |" in first.stdout
    for name in ("labels.epd", "summary.md", "organism.json", "logbook.csv", "curve.png", "match.pgn"):
        assert (out / name).exists(), name
    winner = json.loads((out / "organism.json").read_text())["genes"]
    second = cli(*cmd, check=True)
    assert "40 already labelled, 0 labelled now" in second.stdout
    assert "| evolved organism | 1 |" in second.stdout  # the match, too, is read back from its PGN
    assert json.loads((out / "organism.json").read_text())["genes"] == winner  # read back, not redone
    # The demo's labels are standard EPD, their provenance in the sidecar label's own schema.
    from mentor.labeller import BUILTIN_NAME
    from mentor.sidecar import read_sidecar
    from search.runtime.provenance import mimic_version

    for line in (out / "labels.epd").read_text().splitlines():
        chess.Board.from_epd(line)
    runs = read_sidecar(out / "labels.epd")["runs"]
    assert len(runs) == 2 and all(r["command"].startswith("mimic demo --out") for r in runs)
    assert {r["mentor"]["id_name"] for r in runs} == {f"{BUILTIN_NAME} {mimic_version()}"}
    assert [r["summary"]["labelled"] for r in runs] == [40, 0]


def test_prior_penalty_by_hand() -> None:
    """Two genes' changes in shares of their ranges, squared, averaged, times the weight: gene ``pawn`` (range
    0-400) from 100 to 140 is 0.1 of its range, gene ``knight`` (0-1200) from 300 to 180 is -0.1; weight 3:
    3 x (0.01 + 0.01) / 2 = 0.03 for the moved organism, 0 for the start itself and without a weight."""
    from evolve.ga.evolution import prior_penalty
    from organisms.genome import Gene, Genome

    genome = Genome([Gene("pawn", 8, 0.0, 400.0), Gene("knight", 8, 0.0, 1200.0)])
    start = np.array([100.0, 300.0])
    values = np.array([[100.0, 300.0], [140.0, 180.0]])
    assert prior_penalty(genome, values, start, 3.0) == pytest.approx([0.0, 0.03])
    assert np.all(prior_penalty(genome, values, start, 0.0) == 0)
    assert np.all(prior_penalty(genome, values, None, 3.0) == 0)


def test_a_prior_keeps_genes_the_rows_never_see_at_the_start(synthetic: tuple) -> None:
    """Ten genes whose features are zero in every row do not change the loss, so from a start mutation moves them
    freely; a prior toward the start holds them, while the genes the rows see still move as far as the loss needs.
    The start is the known organism with its material 10 % too high (its held-out error about 46 cp); the winner
    of each run is measured: the mean change of the ten unseen genes from the start (in shares of their ranges),
    its held-out error and its material against the known organism's."""
    from search.runtime.errors import SettingsError

    _, features, _, truth = synthetic
    seen = features.copy()
    seen[:, -10:] = 0.0  # the last ten genes' features never occur
    y = seen @ truth.weights
    genome = default_genome()
    train, held = split(len(y), 0.2, 0)
    objective = MentorLoss(seen, y)
    first = truth.weights.copy()
    first[:5] *= 1.1
    start_bits = genome.encode(first)
    start = genome.decode(start_bits[None, :])[0]
    start_error = float(objective.losses(start[None, :], held)[0])
    drift = {}
    for prior in (0.0, 1e4):
        ev = Evolution(genome, objective, train, held, GASettings(generations=60, seed=3, prior=prior),
                       initial=start_bits)
        ev.run()
        bits, _, held_error = ev.winner()
        w = genome.decode(bits[None, :])[0]
        drift[prior] = float(np.mean(np.abs(w[-10:] - start[-10:]) / (genome.high - genome.low)[-10:]))
        assert held_error < 0.2 * start_error  # the seen genes fitted with or without the prior
        assert np.all(np.abs(w[:5] / truth.weights[:5] - 1) < 0.05), w[:5]
    assert drift[1e4] < 0.1 * drift[0.0], drift
    with pytest.raises(SettingsError, match="needs one"):
        Evolution(genome, objective, train, held, GASettings(prior=1.0))

"""The mentor objective in win-probability space (issue 24, ``--loss wdl``): Stockfish 15.1's model against
python-chess, the loss of a hand-computed case, K fitting, the result blend, the quiet-label filter, the
move number of a label, the L-BFGS-B ceiling and its cache, and the L1 path left as it was."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest

from evolve.data.cache import resolve_labels
from evolve.data.dataset import Dataset, load_dataset
from evolve.ga.evolution import Evolution, GASettings, GenerationRecord
from evolve.ga.fit_cache import cached_wdl_fit, fit_key, wdl_fit_key
from evolve.ga.objectives import MentorLoss, fit_k
from evolve.ga.run import RunSettings, build_objective, evolve
from evolve.ga.wdl import (
    LOGISTIC_SCALE,
    WdlTarget,
    exact_wdl_fit,
    sf15_1_expectation,
    wdl_loss,
    wdl_loss_and_gradient,
    wdl_target,
)
from evolve.ga.wdl_loss import WdlLoss
from mentor.labels import Label, LabelWriter, parse_label
from mentor.samplers import random_playouts
from organisms import Organism
from organisms.expert import Expert
from organisms.genome import default_genome
from tests.conftest import CliRunner


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """120 random positions labelled by the expert's static evaluation (cp, side to move), every third with a
    game result, so that the root target's score is exactly reproducible by a linear organism's features."""
    path = tmp_path_factory.mktemp("wdl") / "labels.epd"
    expert = Expert()
    with LabelWriter(path) as w:
        for i, s in enumerate(random_playouts(120, 11, min_plies=4, max_plies=60)):
            result = ("1-0", "0-1", "1/2-1/2")[i % 9 // 3] if i % 3 == 0 else None
            w.write(Label(s.board, int(expert.evaluate(s.board)), 1, [], result, None, "test", None))
    return path


def test_the_vectorised_sf15_1_model_is_python_chess_on_a_grid() -> None:
    # Expected values from python-chess itself (an independent implementation: pure Python, math.exp).
    cps = [*range(-1600, 1601, 7), 0, 1, -1, 99, 100, 101, 29_990, -29_990, 29_000, -29_500]
    plies = [0, 1, 13, 30, 64, 100, 200, 240, 300]
    cp, ply = np.meshgrid(np.array(cps, dtype=np.float64), np.array(plies, dtype=np.float64))
    ours = sf15_1_expectation(cp.ravel(), ply.ravel())
    theirs = [chess.engine.Mate(1 if c > 0 else -1).wdl(model="sf15.1").expectation() if abs(c) >= 29_000
              else chess.engine.Cp(int(c)).wdl(model="sf15.1", ply=int(p)).expectation()
              for c, p in zip(cp.ravel(), ply.ravel(), strict=True)]
    assert np.array_equal(ours, np.array(theirs))


def test_the_wdl_loss_of_a_hand_computed_case() -> None:
    # Two labels, one gene: evals 100 and 200 cp (weight 100 × features 1 and 2), K = 100 cp, targets 0.5 and 1:
    # σ(1) = 1/(1 + e^-1) = 0.7310586, σ(2) = 0.8807971; squared errors 0.2310586² = 0.0533881 and
    # 0.1192029² = 0.0142093, mean 0.0337987; at power 2.5, each square times the error's square root:
    # 0.0533881·0.4806855 = 0.0256629 and 0.0142093·0.3452577 = 0.0049059, mean 0.0152844.
    # The centipawn error against mentor scores 150 and 150: (50 + 50) / 2 = 50.
    f = np.array([[1.0], [2.0]])
    y = np.array([150.0, 150.0])
    for power, expected in ((2.0, 0.0337987), (2.5, 0.0152844)):
        target = WdlTarget(np.array([0.5, 1.0]), 100.0, power, "logistic", 1.0, 0, 0)
        loss = WdlLoss(f, y, target)
        assert loss.losses(np.array([[100.0]]), np.array([0, 1]))[0] == pytest.approx(expected, abs=1e-7)
        both = loss.both_units(np.array([[100.0], [0.0]]), np.array([0, 1]))
        assert both[0][0] == pytest.approx(expected, abs=1e-7) and both[1][0] == pytest.approx(50.0)
        assert both[0][1] == pytest.approx(((0.5 - 0.5) ** power + 0.5 ** power) / 2)  # weight 0: σ(0) = ½


def test_k_fitting_recovers_the_k_that_made_the_targets() -> None:
    rng = np.random.default_rng(5)
    y = rng.uniform(-900, 900, 1000)
    for k in (60.0, 137.0, 400.0):
        p = 0.5 * (1 + np.tanh(0.5 * y / k))  # σ(y / k), written out
        for power in (2.0, 2.5):
            assert fit_k(y, p, np.ones(len(y)), power) == pytest.approx(k, rel=1e-4)
    # The logistic model with no result blend: its own scale comes back, 400 / ln 10.
    target = wdl_target(y, np.full(len(y), np.nan), np.full(len(y), np.nan), np.arange(1000), "logistic")
    assert target.k == pytest.approx(400 / math.log(10), rel=1e-4)
    assert math.log(10) * LOGISTIC_SCALE == pytest.approx(400)


def test_the_result_blend_applies_only_where_the_label_has_a_result() -> None:
    # Scores 0 cp are a 50 % expectation under either model; results 1, unknown, 0, ½; λ = 0.25:
    # 0.25·0.5 + 0.75·1 = 0.875, 0.5 (no result: the mentor's alone), 0.125, 0.5.
    y = np.zeros(4)
    result = np.array([1.0, np.nan, 0.0, 0.5])
    for model in ("sf15.1", "logistic"):
        t = wdl_target(y, result, np.full(4, np.nan), np.arange(4), model, lambda_result=0.25, k=100.0)
        assert np.allclose(t.p, [0.875, 0.5, 0.125, 0.5]) and t.blended == 3
        assert t.unknown_ply == (4 if model == "sf15.1" else 0)
    mentor_only = wdl_target(y, result, np.full(4, np.nan), np.arange(4), lambda_result=1.0, k=100.0)
    assert np.allclose(mentor_only.p, 0.5) and mentor_only.blended == 0
    # Mates are certain whatever the model: +29990 (mate in 5 plies) is 1, −29990 is 0.
    mates = wdl_target(np.array([29_990.0, -29_990.0]), np.full(2, np.nan), np.array([40.0, 40.0]), np.arange(2),
                       k=100.0)
    assert list(mates.p) == [1.0, 0.0]


QUIET = {  # each crafted label and whether it is quiet (the labelled position and the PV's first move)
    "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - ce 50; acd 5; pv exd5;": False,  # a capture
    "4k3/8/8/8/8/8/8/r3K3 w - - ce -500; acd 5; pv Ke2;": False,  # White in check
    "8/P6k/8/8/8/8/8/K7 w - - ce 900; acd 5; pv a8=Q;": False,  # a promotion
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 30; acd 5; pv e4 e5;": True,  # quiet
    "r3k3/8/8/8/8/8/8/4K3 w - - ce -480; acd 5;": False,  # no PV: its best move is unknown
}


def test_the_quiet_filter_on_crafted_labels(tmp_path: Path) -> None:
    for text, quiet in QUIET.items():
        assert parse_label(text).quiet() is quiet, text
    path = tmp_path / "crafted.epd"
    path.write_text("\n".join(QUIET) + "\n")
    ds = load_dataset(path, held_out=0.0, quiet=True, cache_dir=tmp_path / "cache")
    # The quiet one's PV (e4 e5) leads back to White to move: its score keeps its sign, +30.
    assert (ds.n, ds.not_quiet, ds.total) == (1, 4, 5) and ds.y[0] == 30
    assert "4 not quiet left out" in ds.describe()
    everything = load_dataset(path, held_out=0.0, cache_dir=tmp_path / "cache")
    assert everything.n == 5 and everything.not_quiet == 0


def test_the_ply_comes_from_the_label_move_number(tmp_path: Path) -> None:
    # Black to move at move 1 is ply 1; the PV's e5 makes the leaf ply 2 (no capture to resolve after it).
    text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce -30; acd 5; pv e5; fmvn 1;"
    label = parse_label(text)
    assert label.fullmove == 1 and label.root_ply == 1
    assert parse_label(label.to_epd()).fullmove == 1  # written back as fmvn
    path = tmp_path / "fmvn.epd"
    path.write_text(text + "\n" + "8/8/8/4k3/8/8/8/4K2R w K - ce 700; acd 5; pv Kf2;\n")
    leaf = resolve_labels(path, "leaf", cache_dir=tmp_path / "c")
    root = resolve_labels(path, "root", cache_dir=tmp_path / "c")
    assert leaf.ply[0] == 2 and root.ply[0] == 1 and np.isnan(leaf.ply[1]) and np.isnan(root.ply[1])


def test_the_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    f = rng.normal(size=(40, 5))
    p = rng.uniform(0, 1, 40)
    w = rng.normal(scale=60, size=5)
    for power in (2.0, 2.5):
        loss, grad = wdl_loss_and_gradient(f, p, w, 90.0, power)
        assert loss == pytest.approx(wdl_loss(f, p, w, 90.0, power), rel=1e-12)
        h = 1e-3
        numeric = [(wdl_loss(f, p, w + h * e, 90.0, power) - wdl_loss(f, p, w - h * e, 90.0, power)) / (2 * h)
                   for e in np.eye(5)]
        assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-10)


def test_a_wdl_run_reports_both_units_and_the_ceiling_is_at_most_the_ga(labels: Path, tmp_path: Path) -> None:
    ga = GASettings(population=24, generations=6, sample=60, seed=2)
    settings = RunSettings(labels=str(labels), out=str(tmp_path / "run"), ga=ga, target="root", loss="wdl",
                           wdl_model="logistic", lambda_result=0.5)
    o = evolve(settings, "test")
    assert isinstance(o.objective, WdlLoss) and o.fit_wdl is not None and o.cp_errors is not None
    assert o.fit_wdl.train_loss is not None and o.fit_wdl.train_loss <= o.train_loss
    assert o.ratio == pytest.approx(o.held_loss / o.fit_wdl.held_loss)
    ds = o.dataset
    assert isinstance(ds, Dataset) and o.fit_l1 is not None
    known = int((~np.isnan(ds.result)).sum())  # every third label has a result (one may be beyond the cap)
    assert o.objective.target.blended == known and 35 <= known <= 40
    header = (tmp_path / "run" / "logbook.csv").read_text().splitlines()[0]
    assert header == "gen,best,mean,std,held_out,seconds,held_out_cp"
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert f"| K (fitted on the training rows, cp) | {o.objective.target.k:.2f} |" in summary
    assert "win-probability ceiling" in summary and f"{known} labels blended" in summary
    # The ceiling's cache: a second solve is read back; another K is another entry.
    genome = default_genome()
    target, start = o.objective.target, o.fit_l1.weights
    again = cached_wdl_fit(ds.features, ds.y, ds.train, ds.held, genome, target, start)  # its data key computed
    assert again.cached and np.array_equal(again.weights, o.fit_wdl.weights)
    assert (again.train_loss, again.held_loss) == (o.fit_wdl.train_loss, o.fit_wdl.held_loss)
    assert again.key == o.fit_wdl.key and o.fit_l1.key == fit_key(ds.features, ds.y, ds.train, ds.held, genome, "l1")
    # Another K, power, model, λ or target is another entry; so is another data key (features, scores, rows).
    variants = [target, replace(target, k=target.k * 1.1), replace(target, power=2.5), replace(target, model="sf15.1"),
                replace(target, lambda_result=0.7), replace(target, p=target.p + 1e-9)]
    keys = {wdl_fit_key(o.fit_l1.key, t, start) for t in variants}
    assert len(keys) == 6 and wdl_fit_key("other data", target, start) not in keys
    solved = exact_wdl_fit(ds.features, ds.y, target, ds.train, ds.held, genome.low, genome.high, start)
    assert np.array_equal(solved.weights, o.fit_wdl.weights)


def test_the_l1_path_is_the_unchanged_mentor_loss(labels: Path, tmp_path: Path) -> None:
    ga = GASettings(population=20, generations=5, sample=50, seed=4)
    settings = RunSettings(labels=str(labels), out=str(tmp_path / "l1"), ga=ga, target="root")
    ds = load_dataset(labels, target="root", seed=4)  # the run splits with its GA seed
    objective = build_objective(ds, "mentor", settings.lam, settings)
    assert type(objective) is MentorLoss
    # The same seed through the run and through Evolution on MentorLoss directly: the same logbook, bit for bit.
    o = evolve(settings, "test")
    ev = Evolution(default_genome(), MentorLoss(ds.features, ds.y), ds.train, ds.held, ga)
    ev.run()
    ours = [{k: v for k, v in r.items() if k != "seconds"} for r in o.records]
    assert ours == [{k: v for k, v in r.items() if k != "seconds"} for r in ev.logbook]
    assert (tmp_path / "l1" / "logbook.csv").read_text().splitlines()[0] == "gen,best,mean,std,held_out,seconds"


def test_bad_loss_settings_are_one_line_and_exit_2(cli: CliRunner, labels: Path, tmp_path: Path) -> None:
    done = cli("evolve", labels, "--loss", "wdl", "--objective", "result", "--out", tmp_path / "x", "--no-progress")
    assert done.returncode == 2 and "mentor objective" in done.stderr and "Traceback" not in done.stderr
    done = cli("fit", labels, "--loss", "wdl", "--loss-power", "1", "--target", "root")
    assert done.returncode == 2 and "power" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = cli("fit", labels, "--loss", "wdl", "--target", "root", "--wdl-model", "logistic")
    assert done.returncode == 0, done.stderr
    assert "K 173.7" in done.stdout and "WDL fit (L-BFGS-B" in done.stdout


def test_labels_from_a_game_carry_its_move_number(cli: CliRunner, tmp_path: Path) -> None:
    # A 24-ply game; a label taken after ply k has c2 = 24 − k plies to the end, so its ply must be 24 − c2.
    moves = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 " \
            "10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 1/2-1/2"
    pgn = tmp_path / "game.pgn"
    pgn.write_text(f'[White "a"]\n[Black "b"]\n[Result "1/2-1/2"]\n\n{moves}\n')
    out = tmp_path / "labels.epd"
    done = cli("label", "--mentor", "builtin", "--depth", "1", "--source", pgn, "--per-game", "4",
               "--positions", "4", "--skip-plies", "4", "--out", out, "--no-progress")
    assert done.returncode == 0, done.stderr
    labels = [parse_label(line) for line in out.read_text().splitlines()]
    assert len(labels) == 4
    for label in labels:
        assert label.plies_to_end is not None and label.root_ply == 24 - label.plies_to_end


@pytest.mark.parametrize("loss", ["l1", "wdl"])
def test_init_fit_starts_from_the_exact_fit_of_the_runs_loss(labels: Path, tmp_path: Path, loss: str) -> None:
    # Generation 0 only, every training row in the sample: the winner is the best of the population, which holds
    # the fit's nearest organism, so its training loss is at most that organism's (computed here with numpy).
    ga = GASettings(population=16, generations=0, sample=10_000, seed=3)
    settings = RunSettings(labels=str(labels), out=str(tmp_path / loss), ga=ga, target="root", loss=loss,
                           wdl_model="logistic", init="fit")
    o = evolve(settings, "test")
    ds = o.dataset
    assert isinstance(ds, Dataset)
    fit = o.fit_wdl if loss == "wdl" else o.fit_l1
    assert fit is not None
    nearest = Organism.from_weights(fit.weights, default_genome()).weights
    x, y = ds.features[ds.train], ds.y[ds.train]
    if loss == "wdl":
        assert isinstance(o.objective, WdlLoss)
        t = o.objective.target
        mine = wdl_loss(x, t.p[ds.train], nearest, t.k, t.power)
    else:
        mine = float(np.abs(x @ nearest - y).mean())
    assert o.train_loss <= mine + 1e-12  # 16 random organisms miss the expert's scores by hundreds of cp: not this
    with pytest.raises(ValueError, match="--init fit"):
        RunSettings(labels=str(labels), out=str(tmp_path / "x"), ga=ga, objective="result", init="fit")


def test_a_wdl_run_killed_at_any_generation_resumes_bit_for_bit(labels: Path, tmp_path: Path) -> None:
    # Issue 36: a wdl logbook record carries held_out_cp, which the checkpoint's check refused. Kills land in
    # on_generation, before that generation's checkpoint (every 3): each resume restarts from the last multiple of 3.
    ga = GASettings(population=16, generations=14, sample=50, seed=5)
    settings = RunSettings(labels=str(labels), out=str(tmp_path / "x"), ga=ga, target="root", loss="wdl",
                           wdl_model="logistic")
    ds = load_dataset(labels, target="root", seed=5)
    objective = build_objective(ds, "mentor", settings.lam, settings)
    full = Evolution(default_genome(), objective, ds.train, ds.held, ga)
    full.run()

    class Killed(Exception):
        pass

    for stop_at in (1, 4, 7, 11, 14):
        checkpoint = tmp_path / f"ck{stop_at}"

        def kill(rec: GenerationRecord, stop_at: int = stop_at) -> None:
            if rec.gen == stop_at:
                raise Killed

        with pytest.raises(Killed):
            Evolution(default_genome(), objective, ds.train, ds.held, ga).run(checkpoint=checkpoint, every=3,
                                                                               on_generation=kill)
        resumed = Evolution(default_genome(), objective, ds.train, ds.held, ga)
        resumed.load(checkpoint)
        assert resumed.generation == (stop_at - 1) // 3 * 3
        resumed.run(checkpoint=checkpoint, every=3)
        assert np.array_equal(resumed.population, full.population) and np.array_equal(resumed.losses, full.losses)
        assert np.array_equal(resumed.winner()[0], full.winner()[0])
        strip = [{k: v for k, v in r.items() if k != "seconds"} for r in full.logbook]
        assert [{k: v for k, v in r.items() if k != "seconds"} for r in resumed.logbook] == strip
        assert all("held_out_cp" in r for r in resumed.logbook)


def test_the_evolve_command_resumes_a_wdl_run_and_refuses_it_as_l1(cli: CliRunner, labels: Path,
                                                                   tmp_path: Path) -> None:
    common = ["evolve", labels, "--target", "root", "--loss", "wdl", "--wdl-model", "logistic", "--no-progress",
              "--population", "16", "--checkpoint-every", "4"]
    cli(*common, "--generations", "12", "--out", tmp_path / "whole", check=True)
    cli(*common, "--generations", "6", "--out", tmp_path / "part", check=True)
    # The same run resumed as l1: its best organism's held-out l1 error is not the wdl loss its logbook holds.
    l1 = [a for a in common if a not in ("wdl", "--loss", "--wdl-model", "logistic")]
    refused = cli(*l1, "--generations", "12", "--out", tmp_path / "part", "--resume")
    assert refused.returncode == 2 and "evolved against another objective" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    cli(*common, "--generations", "12", "--out", tmp_path / "part", "--resume", check=True)
    whole, part = (json.loads((tmp_path / n / "organism.json").read_text()) for n in ("whole", "part"))
    assert [g["chromosome"] for g in whole["genes"]] == [g["chromosome"] for g in part["genes"]]

    def columns(name: str) -> list[list[str]]:  # the logbook without its wall-time column
        return [r[:5] + r[6:] for r in csv.reader((tmp_path / name / "logbook.csv").read_text().splitlines())]

    assert columns("whole") == columns("part") and columns("part")[0][-1] == "held_out_cp"


def test_degenerate_settings_are_refused_before_the_labels_are_read(cli: CliRunner, labels: Path,
                                                                     tmp_path: Path) -> None:
    # Issue 36: --loss-power 1e6 underflowed the loss to 0 and wrote an untrained organism; an --init organism with a
    # gene beyond this run's range was clamped without a word.
    for argv in (["evolve", labels, "--loss", "wdl", "--loss-power", "1e6", "--out", tmp_path / "p"],
                 ["fit", labels, "--loss", "wdl", "--loss-power", "9"]):
        done = cli(*argv, "--no-progress") if argv[0] == "evolve" else cli(*argv)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "--loss-power must be above 1 (the loss must be smooth) and at most 8" in done.stderr
        assert done.stdout == ""  # refused before the labels were read (fit prints their counts first)
    assert not (tmp_path / "p").exists() or not any((tmp_path / "p").iterdir())
    # An organism whose knight gene's range is [0, 12000] (its chromosome all ones: 12000) against the paper
    # layout's [0, 1200].
    organism = Organism.random(3)
    organism.save(tmp_path / "o.json")
    data = json.loads((tmp_path / "o.json").read_text())
    knight = next(g for g in data["genes"] if g["name"] == "knight")
    knight.update(high=12000.0, chromosome="1" * knight["bits"], value=12000.0)
    (tmp_path / "o.json").write_text(json.dumps(data))
    done = cli("evolve", labels, "--init", tmp_path / "o.json", "--out", tmp_path / "i", "--no-progress",
               "--generations", "1")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "gene knight is 12000, outside this run's range [0, 1200]" in done.stderr

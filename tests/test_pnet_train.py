"""Training the perspective net (evolve/nets/pnet_*.py, ``mimic train-pnet``; issue 26): the inputs from bitboard
rows, resume reaching the uninterrupted run's weights to the bit, the exported file played by organisms/pnet.py
within the quantisation bound of torch's forward, one-line errors. Tiny nets on 400 real Stockfish labels."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import numpy as np
import pytest

from organisms.net import NetFileError
from organisms.pnet import QA, QA_OUT, PNet, pnet_inputs
from tests.conftest import random_positions, run_mimic

if TYPE_CHECKING:
    from evolve.nets.pnet_run import PNetRunSettings

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "results" / "rich-stockfish" / "labels.epd"  # Stockfish 15.1, depth 10


def _torch() -> None:
    pytest.importorskip("torch")


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 400 lines of the Stockfish labels."""
    path = tmp_path_factory.mktemp("pnet-labels") / "labels.epd"
    with open(SOURCE, encoding="utf-8") as fh:
        path.write_text("".join(next(fh) for _ in range(400)), encoding="utf-8")
    return path


def test_row_inputs_are_the_engines_inputs() -> None:
    from evolve.nets.pnet_data import PAD, row_inputs
    from organisms.features import bitboard_row

    boards = random_positions(3, 40)
    stm, nstm = row_inputs(np.array([bitboard_row(b) for b in boards], dtype=np.uint64))
    for b, s, o in zip(boards, stm, nstm, strict=True):
        ours, theirs = pnet_inputs(b)  # organisms/pnet.py's own, from the board
        assert [int(i) for i in s if i != PAD] == ours and [int(i) for i in o if i != PAD] == theirs, b.fen()


def _settings(labels: Path, out: Path, epochs: int = 4) -> PNetRunSettings:
    from evolve.nets.pnet_run import PNetRunSettings
    from evolve.nets.pnet_train import PNetSettings

    return PNetRunSettings(labels=str(labels), out=str(out), k_mode="mentor",
                           net=PNetSettings(units=8, epochs=epochs, batch=32, lr=5e-3, lr_final=1e-3, seed=3))


class Interrupted(Exception):
    pass


def test_resume_reaches_the_uninterrupted_weights_to_the_bit(labels: Path, tmp_path: Path) -> None:
    _torch()
    from evolve.nets.pnet_run import train_pnet

    whole = train_pnet(_settings(labels, tmp_path / "whole"))
    assert [r.epoch for r in whole.curve] == [1, 2, 3, 4]
    assert whole.curve[-1].train_loss < whole.curve[0].train_loss  # it learns (320 rows: the held-out loss may rise)

    def stop_after_two(line: str) -> None:
        if line.startswith("epoch 2:"):  # the checkpoint of epoch 2 is written before the line is reported
            raise Interrupted

    with pytest.raises(Interrupted):
        train_pnet(_settings(labels, tmp_path / "cut"), report=stop_after_two)
    assert not (tmp_path / "cut" / "pnet.npz").exists()
    with pytest.raises(FileExistsError, match="--resume"):
        train_pnet(_settings(labels, tmp_path / "cut"))
    resumed = train_pnet(_settings(labels, tmp_path / "cut"), resume=True)
    assert [r.held_loss for r in resumed.curve] == [r.held_loss for r in whole.curve]
    a, b = PNet.load(whole.path), PNet.load(resumed.path)
    for name in a.arrays:
        assert np.array_equal(a.arrays[name], b.arrays[name]), name
    # Another setting on resuming: refused in one line naming the checkpoint, nothing trained.
    with pytest.raises(NetFileError, match=r"checkpoint\.npz: made with other net settings"):
        train_pnet(_settings(labels, tmp_path / "cut", epochs=5), resume=True)


def test_the_exported_net_plays_torchs_evaluation_within_the_quantisation_bound(labels: Path,
                                                                                  tmp_path: Path) -> None:
    _torch()
    import torch

    from evolve.nets.pnet_data import row_inputs
    from evolve.nets.pnet_run import PNetRunSettings, train_pnet
    from evolve.nets.pnet_train import PNetSettings, build_model
    from organisms.features import bitboard_row

    s = PNetSettings(units=8, epochs=2, batch=32, lr=5e-3, seed=5)  # with the PSQT path, the default
    outcome = train_pnet(PNetRunSettings(labels=str(labels), out=str(tmp_path), k_mode="mentor", net=s))
    net = PNet.load(outcome.path)
    assert net.header["k_mentor"] == pytest.approx(outcome.data.k_mentor)
    model = build_model(s)  # the exported weights back into a torch model
    with torch.no_grad():
        model.w_in[:768] = torch.from_numpy(net.arrays["w_in"])
        model.b_in[:] = torch.from_numpy(net.arrays["b_in"])
        model.out.weight[:] = torch.from_numpy(net.arrays["w_out"].T)
        model.out.bias[:] = torch.from_numpy(net.arrays["b_out"])
        model.psqt[:768, 0] = torch.from_numpy(net.arrays["w_psqt"])
    boards = random_positions(9, 60)
    stm, nstm = row_inputs(np.array([bitboard_row(b) for b in boards], dtype=np.uint64))
    with torch.no_grad():
        exact = model(torch.from_numpy(stm.astype(np.int64)), torch.from_numpy(nstm.astype(np.int64))).double()
    w_q = np.rint(net.arrays["w_out"][:, 0].astype(np.float64) * QA_OUT)
    for board, e in zip(boards, exact.numpy() * net.scale, strict=True):
        # The bound, derived: each first-layer weight and bias is rounded to 1/QA, so an accumulator of k pieces is
        # off by at most (k + 1) / (2 QA), and the clamp does not widen it; the output weights are rounded to
        # 1/QA_OUT (off by 1 / (2 QA_OUT) each, times an activation within [0, 1]) and the output bias to
        # 1/(QA QA_OUT). So |out_q - out| <= sum_j (k + 1) / (2 QA) |w_q,j| / QA_OUT + 2N / (2 QA_OUT)
        # + 1 / (2 QA QA_OUT); the PSQT weights are rounded to 1/(QA QA_OUT), so each perspective's sum is off by
        # k / (2 QA QA_OUT) and half their difference by as much; times the scale in cp; then the engine rounds to
        # a whole centipawn (0.5), and torch's float32 sums add a little (0.01 cp is ample at these sizes).
        k = len(board.piece_map())
        bound = net.scale * ((k + 1) / (2 * QA) * np.abs(w_q).sum() / QA_OUT + 2 * net.units / (2 * QA_OUT)
                             + 1 / (2 * QA * QA_OUT) + k / (2 * QA * QA_OUT)) + 0.5 + 0.01
        assert abs(net.evaluate(board) - e) <= bound, (board.fen(), net.evaluate(board), e, bound)
    assert max(abs(net.evaluate(b) - e) for b, e in zip(boards, exact.numpy() * net.scale, strict=True)) < 5


def test_an_untrained_psqt_path_counts_the_piece_values() -> None:
    _torch()
    import torch

    from evolve.nets.pnet_data import row_inputs
    from evolve.nets.pnet_train import PNetSettings, build_model
    from organisms.features import bitboard_row

    model = build_model(PNetSettings(units=4, psqt=True, scale=400.0))
    with torch.no_grad():  # silence the clipped units: what is left is the PSQT path at its start
        model.out.weight.zero_()
        model.out.bias.zero_()
    # Piece values 100, 320, 330, 500, 900 (search.conventions): without Black's queen the side to move is White,
    # +900 cp; Black to move, -900; White without a knight and a pawn, Black to move: +420 for Black.
    fens = {"rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1": 900,
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1": -900,
            "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/R1BQKBNR b KQkq - 0 1": 420, chess.STARTING_FEN: 0}
    stm, nstm = row_inputs(np.array([bitboard_row(chess.Board(f)) for f in fens], dtype=np.uint64))
    with torch.no_grad():
        cp = model(torch.from_numpy(stm.astype(np.int64)), torch.from_numpy(nstm.astype(np.int64))).numpy() * 400.0
    assert cp == pytest.approx(list(fens.values()), abs=1e-3)


def test_weight_decay_pulls_the_first_layer_only(labels: Path, tmp_path: Path) -> None:
    _torch()
    from evolve.nets.pnet_run import PNetRunSettings, train_pnet
    from evolve.nets.pnet_train import PNetSettings

    # AdamW multiplies each decayed weight by (1 - lr x decay) before its Adam step; with lr x decay = 1 the first
    # layer is zeroed before every step, so after training it holds one Adam step, at most lr (1 - b1) / sqrt(1 - b2)
    # = 3.17 lr in size (Adam's worst case with b1 = 0.9, b2 = 0.999), far below its start (uniform in +-0.05).
    # The PSQT path is not decayed: after 10 steps of at most 3.17 lr each it is still within 0.16 of the queen's
    # start, 900 / 400 = 2.25 output units.
    lr = 5e-3
    s = PNetSettings(units=8, epochs=1, batch=32, lr=lr, lr_final=lr, weight_decay=1 / lr, seed=3)
    net = PNet.load(train_pnet(PNetRunSettings(labels=str(labels), out=str(tmp_path), k_mode="mentor", unit="k",
                                               net=s)).path)
    assert 0 < np.abs(net.arrays["w_in"]).max() <= 3.17 * lr
    queen = 4 * 64 + chess.D1  # "our queen on d1"
    assert abs(net.arrays["w_psqt"][queen] - 2.25) <= 10 * 3.17 * lr
    assert abs(net.arrays["w_psqt"][384 + queen] + 2.25) <= 10 * 3.17 * lr


def test_train_pnet_command(labels: Path, tmp_path: Path) -> None:
    _torch()
    out = tmp_path / "run"
    args = ["train-pnet", labels, "--out", out, "--units", "8", "--epochs", "1", "--batch", "64", "--quiet-labels",
            "--net-k", "expert", "--no-psqt", "--weight-decay", "0"]  # the first design (plain Adam, no PSQT path)
    done = run_mimic(*args)
    assert done.returncode == 0, done.stderr
    assert "play it as pnet:" in done.stdout and "not quiet left out" in done.stdout
    assert {p.name for p in out.iterdir()} >= {"pnet.npz", "checkpoint.npz", "summary.md", "curve.png"}
    header = PNet.load(out / "pnet.npz").header
    assert header["psqt"] is False and "w_psqt" not in PNet.load(out / "pnet.npz").arrays
    assert header["training"]["net"]["weight_decay"] == 0
    assert header["training"]["run"]["quiet"] is True and header["command"].startswith("mimic train-pnet")
    rows = header["training"]["rows"]  # the split's sizes: a fifth of the used labels held out, rounded
    used = int(re.search(r"(\d+) used \(", done.stdout).group(1))  # type: ignore[union-attr]
    assert rows["train"] + rows["held_out"] == used and rows["held_out"] == round(0.2 * used)
    assert rows["from_more_labels"] == 0
    again = run_mimic(*args)  # a run is there
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--resume" in again.stderr
    (out / "checkpoint.npz").write_bytes(b"not a zip")
    bad = run_mimic(*args, "--resume")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("mimic train-pnet: ")
    assert "checkpoint.npz: not a pnet training checkpoint" in bad.stderr
    empty = tmp_path / "empty.epd"
    empty.write_text("", encoding="utf-8")
    none = run_mimic("train-pnet", empty, "--out", tmp_path / "x")
    assert none.returncode == 2 and none.stderr.count("\n") == 1 and "empty.epd: no usable labels" in none.stderr
    flag = run_mimic("train-pnet", labels, "--out", tmp_path / "y", "--net-k", "steep")
    assert flag.returncode == 2 and "--net-k: expected expert, mentor or a positive number" in flag.stderr


def test_more_labels_add_training_rows_only(labels: Path, tmp_path: Path) -> None:
    """``--more-labels``: a second file's labels train, the held-out rows stay the first file's, and a label whose
    position is a held-out one is left out. The second file here is the first file's 400 lines again, the next 100
    lines of the Stockfish labels and a malformed line, with targets at the labelled positions (``root``) so the
    expected counts follow from the lines alone."""
    from evolve.nets.pnet_data import load_pnet_data

    with open(SOURCE, encoding="utf-8") as fh:
        lines = [next(fh) for _ in range(500)]
    key = [" ".join(line.split()[:2]) for line in lines]  # placement and side to move: the resolved row's content
    assert len(set(key)) == 500  # 500 distinct positions, so only the repeated 400 can meet held-out rows
    new_kept = sum(abs(int(re.search(r"ce (-?\d+);", line).group(1))) <= 1500  # type: ignore[union-attr]
                   for line in lines[400:])
    extra = tmp_path / "more.epd"
    extra.write_text("".join(lines) + "8/8/8/8 w - - ce 12;\n", encoding="utf-8")  # line 501: a broken FEN
    alone = load_pnet_data(labels, target="root", seed=1)
    both = load_pnet_data(labels, target="root", seed=1, more=[extra])
    assert np.array_equal(both.held, alone.held) and np.array_equal(both.y[both.held], alone.y[alone.held])
    assert both.more_held_out == len(alone.held) > 0  # each held-out position was in the second file once
    assert both.more_used == len(alone.train) + new_kept
    assert len(both.train) == 2 * len(alone.train) + new_kept and len(both.y) == len(alone.y) + both.more_used
    assert both.total == 400 + 500 and both.malformed == alone.malformed + 1  # total: the well-formed labels
    assert any("more.epd:501" in e for e in both.errors)
    assert f"{both.more_used} training rows from {extra}" in both.describe()


def test_members_train_alike_and_play_as_their_mean(labels: Path, tmp_path: Path) -> None:
    """``--members 2``: two nets trained alike (seeds 1 and 2, one split) in member-1/ and member-2/, their mean in
    pnet.npz; member 1 is the net a single run with seed 1 makes, to the bit; the mean scores the members' mean."""
    _torch()
    from dataclasses import replace

    from evolve.nets.pnet_run import PNetRunSettings, train_pnet
    from evolve.nets.pnet_train import PNetSettings

    s = PNetRunSettings(labels=str(labels), out=str(tmp_path / "ens"), seed=1, members=2,
                        net=PNetSettings(units=8, epochs=1, batch=64, seed=1))
    outcome = train_pnet(s)
    train_pnet(replace(s, out=str(tmp_path / "one"), members=1))
    one, m1, m2 = (PNet.load(tmp_path / p / "pnet.npz") for p in ("one", "ens/member-1", "ens/member-2"))
    assert all(np.array_equal(one.arrays[k], m1.arrays[k]) for k in one.arrays)
    assert not np.array_equal(m1.arrays["w_in"], m2.arrays["w_in"])  # seed 2 starts elsewhere
    mean = PNet.load(tmp_path / "ens" / "pnet.npz")
    assert mean.units == 16 and mean.header["members"] == ["member-1/pnet.npz", "member-2/pnet.npz"]

    def bound(n: PNet) -> float:  # test_pnet.py's bound on a net's rounding (derived there)
        return (2 * n.units + 1) * n.scale / (2 * QA_OUT) + 32 * n.scale / (2 * QA * QA_OUT) + 0.5

    for board in random_positions(3, 40):
        assert abs(mean.evaluate(board) - (m1.evaluate(board) + m2.evaluate(board)) / 2) <= \
            bound(mean) + (bound(m1) + bound(m2)) / 2
    # The mean's held-out error is at most the larger member's: its evaluation of a row is a weighted mean of theirs
    # (weights unit_i / (2 * mean unit), in the mentor's centipawns), and |x - y| is convex.
    errs = outcome.mean_errors
    assert errs["held_mae"] <= max(errs["members_held_mae"]) + 1e-9
    summary = (tmp_path / "ens" / "summary.md").read_text(encoding="utf-8")
    assert "**An ensemble**: the mean of 2 nets" in summary and f"{errs['held_mae']:.1f} cp" in summary
    with pytest.raises(FileExistsError, match="--resume"):  # member checkpoints are there
        train_pnet(s)
    train_pnet(s, resume=True)
    assert np.array_equal(PNet.load(tmp_path / "ens" / "pnet.npz").arrays["w_out"], mean.arrays["w_out"])


def test_the_output_unit_matches_the_references_piece_values() -> None:
    from evolve.nets.pnet_unit import PIECES, material_unit, piece_values, probe_positions
    from organisms.material import Material

    boards = probe_positions()
    plain = Material({chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900})
    values = piece_values(plain, boards)
    # Material counts exactly: every kept pair is worth the piece's value, and every type has pairs.
    assert {n: v for n, (v, _) in values.items()} == {"pawn": 100, "knight": 300, "bishop": 300, "rook": 500,
                                                       "queen": 900}
    assert all(k > 0 for _, k in values.values()) and set(values) == set(PIECES)
    # Twice the values: every ratio is 2, so c = sum(2) / sum(4) = 1/2; knights at 450 (ratio 1.5, the others 1):
    # c = (4 + 1.5) / (4 + 2.25) = 0.88.
    double = Material({chess.PAWN: 200, chess.KNIGHT: 600, chess.BISHOP: 600, chess.ROOK: 1000, chess.QUEEN: 1800})
    assert material_unit(double, plain, boards) == 0.5
    knights = Material({chess.PAWN: 100, chess.KNIGHT: 450, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900})
    assert material_unit(knights, plain, boards) == pytest.approx(5.5 / 6.25)


@pytest.mark.parametrize(("flags", "says"), [
    (["--units", "16385"], "--units must be within 1..16384"),
    (["--hidden", "16385"], "--hidden takes at most 4 widths, each within 1..16384"),
    (["--hidden", "8", "8", "8", "8", "8"], "--hidden takes at most 4 widths"),
    (["--scale", "1e7"], "--scale (cp per output unit) must be within (0, 1e+06]"),
    (["--members", "2", "--hidden", "4"], "--members averages nets without hidden layers"),
    (["--members", "300"], "--members 300 x --units 64 is a mean net of 19200 units"),
    (["--net-k", "1e-300"], "--net-k must be expert, mentor or a number of centipawns within 1..100000"),
    (["--loss-power", "1e6"], "--loss-power must be above 1 (the loss must be smooth) and at most 8"),
    (["--more-labels", "{labels}"], "is the training file itself: its rows would count twice"),
    (["--more-labels", "{other}", "--more-labels", "{other}"], "more.epd again: its rows would count twice"),
])
def test_settings_that_cannot_work_are_refused_before_any_work(labels: Path, tmp_path: Path, flags: list[str],
                                                                says: str) -> None:
    # Issue 36: these trained the whole run and then failed (or trained on doubled rows, or on a loss of 0).
    _torch()
    other = tmp_path / "more.epd"
    other.write_text(labels.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "run"
    argv = [f.format(labels=labels, other=other) for f in flags]
    done = run_mimic("train-pnet", labels, "--out", out, "--epochs", "1", *argv)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing trained, nothing written


def test_a_diverging_run_stops_at_its_first_epoch_without_a_checkpoint(labels: Path, tmp_path: Path) -> None:
    _torch()
    from dataclasses import replace

    from evolve.nets.pnet_data import load_pnet_data
    from evolve.nets.pnet_train import PNetSettings, TrainingDiverged, build_model, train

    out = tmp_path / "lr"
    done = run_mimic("train-pnet", labels, "--out", out, "--units", "8", "--epochs", "3", "--lr", "1e30")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "the training diverged at epoch 1 (a weight reached" in done.stderr and "lower --lr" in done.stderr
    assert not (out / "checkpoint.npz").exists() and not (out / "pnet.npz").exists()
    # A loss that is not a number (a target of NaN stands for whatever made it so) stops at its first mini-batch.
    data = load_pnet_data(labels, k_mode="mentor")
    data = replace(data, p=np.full_like(data.p, np.nan))
    s = PNetSettings(units=8, epochs=2, batch=32)
    with pytest.raises(TrainingDiverged, match=r"at epoch 1 \(the loss of mini-batch 1 is not a finite number\)"):
        train(build_model(s), data, s, tmp_path / "nan.npz")
    assert not (tmp_path / "nan.npz").exists()


def test_resume_removes_the_temporary_files_of_a_killed_writer(labels: Path, tmp_path: Path) -> None:
    # Issue 36: a kill between writing a checkpoint's temporary file and moving it into place left an orphan that
    # no resume removed. Their names carry the host and the writer's process id: a dead writer's are removed, a
    # live writer's (another process writing now) are not.
    _torch()
    import socket
    import subprocess
    import sys

    from evolve.nets.pnet_run import train_pnet

    def stop_after_two(line: str) -> None:
        if line.startswith("epoch 2:"):
            raise Interrupted

    out = tmp_path / "cut"
    with pytest.raises(Interrupted):
        train_pnet(_settings(labels, out), report=stop_after_two)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname().replace(".", "_")
    orphan = out / f".checkpoint.npz.{host}-{int(dead.stdout)}.k3j9x2ab.tmp.npz"
    live = out / f".checkpoint.npz.{host}-{os.getppid()}.q8w7e6rt.tmp.npz"
    for p in (orphan, live):
        p.write_bytes(b"half a checkpoint")
    train_pnet(_settings(labels, out), resume=True)
    assert not orphan.exists() and live.exists()
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [live.name]


def test_a_checkpoint_whose_curve_holds_nan_is_refused(labels: Path, tmp_path: Path) -> None:
    _torch()
    import json

    from evolve.nets.pnet_run import train_pnet
    from organisms.net import read_net_file, write_net_file

    out = tmp_path / "run"
    train_pnet(_settings(labels, out, epochs=2))
    arrays, header = read_net_file(out / "checkpoint.npz")
    header = json.loads(json.dumps(header))
    header["curve"][1]["train_loss"] = float("nan")
    write_net_file(out / "checkpoint.npz", arrays, header)
    with pytest.raises(NetFileError, match=r"curve\[1\] must be epoch 2's record of finite numbers \(train_loss"):
        train_pnet(_settings(labels, out, epochs=2), resume=True)

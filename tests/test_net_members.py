"""A mean of Giraffe-style nets played as one net: ``organisms.net.average_nets`` and ``train-net --members``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evolve.cli import main
from organisms.giraffe import giraffe_matrix
from organisms.net import GROUPS, NetEvaluator, average_nets, expected_shapes, make_header
from search.runtime.errors import SettingsError
from tests.conftest import random_positions

REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "results" / "paper-builtin" / "labels.epd"


def _random_net(seed: int, units: tuple[int, int, int], hidden: int, scale: float, linear: bool) -> NetEvaluator:
    rng = np.random.default_rng(seed)
    arrays = {name: rng.normal(0.0, 0.3, shape).astype(np.float32)
              for name, shape in expected_shapes(units, hidden, linear).items()}
    return NetEvaluator(arrays, make_header(units, hidden, scale, linear=linear))


def test_the_mean_net_scores_its_members_mean() -> None:
    """Two nets of different widths, scales and paths (one with the linear path): the mean net's centipawns on 60
    random positions are the members' mean to float32 rounding, and its played (rounded) score is within 1 cp of the
    mean of theirs (each rounding moves a score at most 0.5 cp: the mean's own 0.5, the members' mean 0.5)."""
    a = _random_net(1, (19, 44, 26), 64, 100.0, False)
    b = _random_net(2, (5, 7, 3), 11, 60.0, True)
    mean = average_nets([a, b])
    arrays, scale = mean
    assert scale == 80.0  # the members' mean scale
    units = (19 + 5, 44 + 7, 26 + 3)
    net = NetEvaluator(arrays, make_header(units, 64 + 11, scale, linear=True))
    boards = random_positions(5, 60)
    x = giraffe_matrix(boards, use_cache=False)
    want = (a.centipawns(x) + b.centipawns(x)) / 2
    assert np.abs(want).max() > 100  # the random nets say something: the check below is not about zeros
    np.testing.assert_allclose(net.centipawns(x), want, rtol=1e-4, atol=0.05)
    spread = [abs(a.evaluate(bd) - b.evaluate(bd)) for bd in boards]
    assert np.median(spread) > 10  # the members disagree: their mean is neither of them
    for board in boards:
        assert abs(net.evaluate(board) - (a.evaluate(board) + b.evaluate(board)) / 2) <= 1.0 + 1e-6
    # Each member's hidden units see only its own first-layer units: the block of w_hidden joining member 1's
    # units to member 2's hidden units is zero, in each group.
    starts = np.cumsum([0, *units[:-1]])
    for g in range(len(GROUPS)):
        assert not arrays["w_hidden"][starts[g]:starts[g] + a.units[g], 64:].any()
        assert not arrays["w_hidden"][starts[g] + a.units[g]:starts[g] + units[g], :64].any()
    with pytest.raises(ValueError, match="no nets"):
        average_nets([])


def _torch() -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed (the optional extra 'nets': "
                                                "pip install torch==2.13.0)")
    torch.set_num_threads(1)


def test_members_train_alike_and_play_as_their_mean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``train-net --members 2``: two nets trained alike (seeds 1 and 2, one split) in member-1/ and member-2/, their
    mean in net.npz; member 1 is the net a single run with seed 1 makes, to the bit."""
    _torch()
    base = ["train-net", str(LABELS), "--limit", "120", "--epochs", "2", "--seed", "1", "--no-progress",
            "--units", "4", "6", "3", "--hidden", "8"]
    ens = tmp_path / "ens"
    assert main([*base, "--out", str(ens), "--members", "2"]) == 0
    assert "the mean of 2 nets" in capsys.readouterr().out
    assert main([*base, "--out", str(tmp_path / "one")]) == 0
    one, m1, m2 = (NetEvaluator.load(tmp_path / p / "net.npz") for p in ("one", "ens/member-1", "ens/member-2"))
    assert all(np.array_equal(one.arrays[k], m1.arrays[k]) for k in one.arrays)
    assert not np.array_equal(m1.arrays["w_global"], m2.arrays["w_global"])  # seed 2 starts elsewhere
    mean = NetEvaluator.load(ens / "net.npz")
    assert (mean.units, mean.hidden) == ((8, 12, 6), 16)
    assert mean.header["members"] == ["member-1/net.npz", "member-2/net.npz"]
    assert m2.header["training"]["model_seed"] == 2 and m2.header["training"]["seed"] == 1  # one split
    # The mean's evaluation of a row is the mean of the members' (one scale), and |x - y| is convex, so its held-out
    # error is at most the members' mean error (float32 rounding aside).
    errors = mean.header["errors"]
    assert errors["held_mae"] <= np.mean(errors["members_held_mae"]) + 1e-3
    assert "**An ensemble**: the mean of 2 nets" in (ens / "summary.md").read_text(encoding="utf-8")
    assert main([*base, "--out", str(ens), "--members", "2"]) == 2  # a run is there: --resume
    assert "--resume" in capsys.readouterr().err
    assert main([*base, "--out", str(ens), "--members", "2", "--resume"]) == 0  # the members read back
    np.testing.assert_array_equal(NetEvaluator.load(ens / "net.npz").w2, mean.w2)


def test_members_refuse_td_leaf() -> None:
    from evolve.nets.giraffe_run import NetRunSettings
    from evolve.nets.tdleaf import TDSettings

    with pytest.raises(SettingsError, match="TD-Leaf trains one net"):
        NetRunSettings(labels="x.epd", out="o", members=2, td=TDSettings(iterations=1))
    with pytest.raises(SettingsError, match="at least 1"):
        NetRunSettings(labels="x.epd", out="o", members=0)

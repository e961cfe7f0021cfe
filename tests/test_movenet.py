"""The move-probability net (organisms.movenet, evolve.nets.movenet) and the search that uses it (@search=prob-net)."""

from __future__ import annotations

import doctest
import io
import math
from collections.abc import Sequence
from pathlib import Path

import chess
import numpy as np
import pytest

import organisms.movenet
from evolve.cli import main
from evolve.nets.movenet import MoveNetData, MoveTrainSettings, load_move_data, move_metrics, subset, train_move_net
from evolve.players import PLAYERS
from organisms.movenet import (
    N_MOVE_FEATURES,
    MoveNet,
    make_header,
    move_indices,
    save_move_net,
)
from organisms.net import NetFileError, write_net_file
from search.base import MATE, Limit, MovePolicy
from search.players.player import EnginePlayer, make_player
from search.players.spec import SpecError
from search.prob import ProbEngine
from search.uci import UciFrontEnd

from .test_engine import MATES

LABELS = Path(__file__).resolve().parents[1] / "results" / "paper-builtin" / "labels.epd"


def _torch() -> object:
    torch = pytest.importorskip("torch", reason="torch is not installed (the optional extra 'nets': "
                                                "pip install torch==2.13.0)")
    torch.set_num_threads(1)
    return torch


def _random_net(path: Path, hidden: int = 8, seed: int = 1) -> Path:
    rng = np.random.default_rng(seed)
    arrays = {"w_in": rng.normal(0, 0.5, (N_MOVE_FEATURES, hidden)).astype(np.float32),
              "b_in": rng.normal(0, 0.1, hidden).astype(np.float32),
              "w_out": rng.normal(0, 0.5, (hidden, 1)).astype(np.float32), "b_out": np.zeros(1, np.float32)}
    save_move_net(path, arrays, make_header(hidden))
    return path


def test_doctests() -> None:
    failures, tried = doctest.testmod(organisms.movenet)
    assert tried >= 1 and failures == 0


def test_move_features_by_hand() -> None:
    # Offsets: to 0, from 384, capture 768, see 804, promotion 808, to-att 813, from-att 815, check 817.
    # b7-b8=Q+: pawn to b8 (57), from b7 (384 + 49), captures nothing (768), SEE > 0 (the queen gained: 805),
    # promotion to a queen (808 + 4), b8 and b7 not attacked by the king on e8 (813, 815), check along rank 8 (818).
    white = chess.Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    expected = [57, 433, 768, 805, 812, 813, 815, 818]
    assert move_indices(white, [chess.Move.from_uci("b7b8q")]).tolist() == [expected]
    # Black's mirror image: b2-b1=Q+ is the same move from Black's side (squares mirrored rank-wise).
    black = chess.Board("4k3/8/8/8/8/8/1p6/4K3 b - - 0 1")
    assert move_indices(black, [chess.Move.from_uci("b2b1q")]).tolist() == [expected]
    # e5xd6 en passant: pawn to d6 (43), from e5 (384 + 36), takes a pawn (769), SEE +100 (805), no promotion
    # (808), d6 and e5 not attacked (813, 815), no check (817).
    ep = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    assert move_indices(ep, [chess.Move.from_uci("e5d6")]).tolist() == [[43, 420, 769, 805, 808, 813, 815, 817]]
    # A knight moving into a pawn's attack, from a square the opponent attacks: Nf3-e5 with ...d6 and ...Bb7.
    kn = chess.Board("4k3/1b6/3p4/8/8/5N2/8/4K3 w - - 0 1")  # the bishop on b7 attacks f3, the pawn d6 hits e5
    assert move_indices(kn, [chess.Move.from_uci("f3e5")]).tolist() == [
        [64 + 36, 384 + 64 + 21, 768 + 6, 804, 808, 814, 816, 817]]


def test_scores_and_weights_follow_the_arrays(tmp_path: Path) -> None:
    net = MoveNet.load(_random_net(tmp_path / "m.npz"))
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    moves = list(board.legal_moves)
    idx = move_indices(board, moves)
    # By hand from the arrays: the sum of the active rows, ReLU, the output layer.
    h = np.maximum(net.arrays["w_in"][idx].sum(axis=1) + net.arrays["b_in"], 0)
    by_hand = h @ net.arrays["w_out"][:, 0] + net.arrays["b_out"][0]
    np.testing.assert_allclose(net.scores(idx), by_hand, rtol=1e-5, atol=1e-5)
    w = np.array(net.move_weights(board, moves))
    assert w.max() == pytest.approx(1.0) and np.all(w > 0)
    np.testing.assert_allclose(net.probabilities(board, moves), np.exp(by_hand) / np.exp(by_hand).sum(), rtol=1e-4)
    assert isinstance(net, MovePolicy)
    # Temperature 2 halves every log-weight: the weights are the square roots of temperature 1's.
    hot = MoveNet.load(tmp_path / "m.npz", temperature=2.0)
    np.testing.assert_allclose(hot.move_weights(board, moves), np.sqrt(w), rtol=1e-5)
    with pytest.raises(ValueError, match="temperature must be positive"):
        MoveNet.load(tmp_path / "m.npz", temperature=0.0)


def test_bad_move_net_files_are_refused(tmp_path: Path) -> None:
    good = _random_net(tmp_path / "good.npz")
    arrays = dict(np.load(good, allow_pickle=False))
    arrays.pop("header")
    with pytest.raises(NetFileError, match=r"net\.npz: not a mimic-net move-probability file .*giraffe-eval"):
        MoveNet.load(Path(__file__).parent / "data" / "material_net.npz")
    write_net_file(tmp_path / "old.npz", arrays, {**make_header(8), "feature_version": "moves-v0"})
    with pytest.raises(NetFileError, match=r"old\.npz: trained on move features 'moves-v0'.*mimic train-moves"):
        MoveNet.load(tmp_path / "old.npz")
    write_net_file(tmp_path / "wide.npz", arrays, make_header(9))
    with pytest.raises(NetFileError, match=r"wide\.npz: w_in has shape \(819, 8\), .* needs \(819, 9\)"):
        MoveNet.load(tmp_path / "wide.npz")
    np.save(tmp_path / "pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "pickled.npy").rename(tmp_path / "pickled.npz")
    with pytest.raises(NetFileError, match=r"pickled\.npz: not a net file"):
        MoveNet.load(tmp_path / "pickled.npz")
    # Through a spec: the error names the file, and nothing is built.
    with pytest.raises(SpecError, match=r"wide\.npz: w_in has shape"):
        make_player(f"material@search=prob-net:{tmp_path / 'wide.npz'}", PLAYERS)
    with pytest.raises(SpecError, match=r"missing\.npz: cannot read the net"):
        make_player(f"material@search=prob-net:{tmp_path / 'missing.npz'}", PLAYERS)


def test_the_spec_names_the_net(tmp_path: Path) -> None:
    path = _random_net(tmp_path / "m.npz")
    s = PLAYERS.parse(f"expert@search=prob-net:{path}@nodes=500")
    assert s.search == f"prob-net:{path}" and s.search_name == "prob-net" and s.limit == Limit(nodes=500)
    assert PLAYERS.parse(str(s)) == s
    player = make_player(s, PLAYERS)
    assert isinstance(player, EnginePlayer) and isinstance(player.engine, ProbEngine)
    assert player.engine.probabilities == "net" and isinstance(player.engine.policy, MoveNet)
    report = player.play(chess.Board(), Limit(depth=9))
    assert report.move in chess.Board().legal_moves and report.nodes <= 500
    hot = make_player(f"expert@search=prob-net:{path}?t=2.5@nodes=500", PLAYERS)
    assert isinstance(hot, EnginePlayer) and isinstance(hot.engine, ProbEngine)
    assert isinstance(hot.engine.policy, MoveNet) and hot.engine.policy.temperature == 2.5
    for bad, message in (("expert@search=prob-net", "needs its net"), ("expert@search=prob:x.npz", "takes no file"),
                         ("expert@search=depth:x.npz", "takes no file"),
                         ("expert@search=prob-net:x.npz?t=0", "temperature t must be a positive number, got '0'"),
                         ("expert@search=prob-net:x.npz?t=hot", "positive number, got 'hot'"),
                         ("expert@search=prob-net:x.npz?T=2", "unknown option 'T'"),
                         ("expert@search=prob-net:?t=2", "no net file")):
        with pytest.raises(SpecError, match=message):
            PLAYERS.parse(bad)
    assert PLAYERS.policy("expert@search=prob") is None


# The engine tests' six mates (in 1, 2 and 3 moves). test_prob's eight WAC mates in 2 add only more mates in 2 here,
# at 12 of this file's CPU seconds (two of them, WAC.001 and WAC.099, take 9 s with a random net); test_prob runs all
# fourteen with the heuristic and uniform probabilities.
@pytest.mark.parametrize(("fen", "move", "mate"), MATES)
def test_prob_net_search_finds_forced_mates(tmp_path: Path, fen: str, move: str, mate: int) -> None:
    # A net of random weights still searches every move with some probability: the mates are found.
    net = MoveNet.load(_random_net(tmp_path / "m.npz"))
    board = chess.Board(fen)
    from organisms import Material

    result = ProbEngine(Material(), hash_mb=4, probabilities="net", policy=net).search(
        board, Limit(mate=mate, nodes=200_000))
    assert result.move == chess.Move.from_uci(move)
    assert result.mate == mate and result.score == MATE - (2 * mate - 1)
    assert board.fen() == fen


class _Counting:
    """A move policy that counts its calls (the net underneath answers)."""

    def __init__(self, net: MoveNet) -> None:
        self.net, self.calls = net, 0

    def move_weights(self, board: chess.Board, moves: Sequence[chess.Move]) -> list[float]:
        self.calls += 1
        return self.net.move_weights(board, moves)


def test_the_policy_cache_changes_nothing_but_the_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from organisms import Expert

    net = MoveNet.load(_random_net(tmp_path / "m.npz"))
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    cached = _Counting(net)
    a = ProbEngine(Expert(), probabilities="net", policy=cached).search(board, Limit(depth=6))
    # The same search with every weight asked of the policy: the cache is bypassed.
    monkeypatch.setattr(ProbEngine, "_policy_weights", lambda self, b, moves, key: self.policy.move_weights(b, moves))
    direct = _Counting(net)
    b = ProbEngine(Expert(), probabilities="net", policy=direct).search(board, Limit(depth=6))
    assert (a.move, a.score, a.nodes, a.pv) == (b.move, b.score, b.nodes, b.pv)
    # Iterations 2..6 expand the nodes of the earlier ones again: those come from the cache.
    assert 0 < cached.calls < 0.8 * direct.calls


def test_uci_plays_with_a_move_net(tmp_path: Path) -> None:
    path = _random_net(tmp_path / "m.npz")
    out = io.StringIO()
    front = UciFrontEnd(PLAYERS, f"material@search=prob-net:{path}@depth=3", out=out)
    assert isinstance(front.engine, ProbEngine) and front.engine.probabilities == "net"
    front.run(["position startpos moves e2e4", "go depth 9"])
    best = [line for line in out.getvalue().splitlines() if line.startswith("bestmove ")]
    board = chess.Board()
    board.push_uci("e2e4")
    assert len(best) == 1 and chess.Move.from_uci(best[0].split()[1]) in board.legal_moves
    front.handle("setoption name Eval value material@search=prob")
    assert front.engine.probabilities == "heuristic"


def test_metrics_by_hand() -> None:
    # Position A: 3 moves, all scored 0, the mentor played the 2nd: top-1 1/3 (a three-way tie), top-3 1,
    # log-likelihood log(1/3). Position B: 4 moves scored 2, 1, 1, 0, the mentor played the 3rd (score 1): one
    # move above it and a tie of two: top-1 0, top-3 1 (ranks 2 or 3), log-likelihood 1 - log(e^2 + 2e + 1).
    data = MoveNetData(np.zeros((7, 8), np.int16), np.array([0, 3, 7]), np.array([1, 2]), np.ones(7, np.float32))
    m = move_metrics(np.array([0, 0, 0, 2, 1, 1, 0], dtype=np.float64), data)
    assert m["top1"] == pytest.approx((1 / 3 + 0) / 2)
    assert m["top3"] == pytest.approx(1.0)
    ll_b = 1 - math.log(math.e ** 2 + 2 * math.e + 1)
    assert m["log_likelihood"] == pytest.approx((math.log(1 / 3) + ll_b) / 2)
    # Entropy: A is uniform over 3 moves, log 3; B's probabilities are e^2, e, e, 1 over their sum.
    z = math.e ** 2 + 2 * math.e + 1
    h_b = -sum(w / z * math.log(w / z) for w in (math.e ** 2, math.e, math.e, 1.0))
    assert m["entropy"] == pytest.approx((math.log(3) + h_b) / 2)
    # Top-3 with three moves above the mentor's: 0.
    one = MoveNetData(np.zeros((4, 8), np.int16), np.array([0, 4]), np.array([3]), np.ones(4, np.float32))
    assert move_metrics(np.array([3.0, 2.0, 1.0, 0.0]), one)["top3"] == 0.0


def test_data_from_a_label_file_and_its_subset() -> None:
    data = load_move_data(LABELS, limit=200)
    # Every kept position: its mentor move is a legal move, and its rows are its legal moves' features.
    assert data.total == 200 and data.n + data.skipped == 200 and data.n > 150
    lines = [line for line in LABELS.read_text().splitlines() if line.strip()][:200]
    from mentor.labels import parse_label

    kept = [parse_label(t) for t in lines]
    kept = [lab for lab in kept if lab.pv and lab.pv[0] in lab.board.legal_moves and lab.board.legal_moves.count() > 1]
    assert len(kept) == data.n
    for i in (0, 17, data.n - 1):
        moves = list(kept[i].board.legal_moves)
        rows = data.idx[data.start[i]:data.start[i + 1]]
        assert rows.tolist() == move_indices(kept[i].board, moves).tolist()
        assert moves[data.best[i]] == kept[i].pv[0]
    sub = subset(data, np.array([17, 0]))
    assert sub.n == 2 and sub.best.tolist() == [data.best[17], data.best[0]]
    assert sub.idx[: sub.start[1]].tolist() == data.idx[data.start[17]:data.start[18]].tolist()


def test_a_tiny_training_beats_the_uniform_distribution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _torch()
    # The test file: 200 labels after the 1,200 trained on (the whole 5,000-label file was 7 of the test's 12 s).
    test = tmp_path / "test.epd"
    test.write_text("".join(LABELS.read_text().splitlines(keepends=True)[1200:1400]))
    o = train_move_net(str(LABELS), str(tmp_path / "run"), MoveTrainSettings(epochs=4, limit=1200, held_out=0.25),
                       test=str(test))
    assert o.metrics[f"test ({test})"]["net"]["positions"] == 199  # one of the 200 has a single legal move
    held = o.metrics["held-out"]
    # About 300 held-out positions with some 35 legal moves: the uniform log-likelihood is about -3.5 nats.
    assert held["net"]["log_likelihood"] > held["uniform"]["log_likelihood"] + 0.2
    assert held["net"]["top1"] > 2 * held["uniform"]["top1"]
    assert [int(r[0]) for r in o.curve] == [1, 2, 3, 4]
    net = MoveNet.load(o.path)
    assert net.header["metrics"]["held-out"]["net"]["top1"] == pytest.approx(held["net"]["top1"])
    assert (tmp_path / "run" / "curve.png").stat().st_size > 0
    assert "| held-out" in (tmp_path / "run" / "summary.md").read_text()
    # The command line, and a spec that plays with what it wrote.
    assert main(["train-moves", str(LABELS), "--out", str(tmp_path / "cli"), "--epochs", "1", "--limit", "300"]) == 0
    assert "movenet.npz" in capsys.readouterr().out
    player = make_player(f"material@search=prob-net:{tmp_path / 'cli' / 'movenet.npz'}@nodes=300", PLAYERS)
    assert player.play(chess.Board(), Limit()).move in chess.Board().legal_moves


def test_numpy_scores_equal_torch_on_300_positions() -> None:
    # 300 positions, 9,777 moves (1,000 positions took 3 times as long to read).
    torch = _torch()
    from evolve.nets.movenet import build_model, model_arrays

    data = load_move_data(LABELS, limit=320)
    assert data.n >= 300
    model = build_model(16, seed=3)
    with torch.no_grad():  # type: ignore[attr-defined]
        for p in model.parameters():  # away from the initial values, so that every layer matters
            p.add_(0.2 * torch.randn_like(p))  # type: ignore[attr-defined]
        model.emb.weight[N_MOVE_FEATURES].zero_()
        rows = data.idx[: data.start[300]].astype(np.int64)
        theirs = model(torch.from_numpy(rows)).numpy()  # type: ignore[attr-defined]
    ours = MoveNet(model_arrays(model), make_header(16)).scores(rows)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)

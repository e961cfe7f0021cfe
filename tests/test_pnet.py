"""The perspective net (organisms/pnet.py, issue 26): its inputs, the incremental accumulators against fresh ones,
colour symmetry, a hand-derived score, the file contract, the engine's incremental-evaluator hook and the pnet:
player."""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.players import PLAYERS
from organisms.material import Material
from organisms.net import NetFileError, write_net_file
from organisms.pnet import PNet, expected_shapes, feature_index, make_header, pnet_inputs, random_pnet, save_pnet
from search import Engine, Limit
from search.base import IncrementalEvaluator
from search.prob import make_engine
from tests.conftest import random_positions, run_mimic

SPECIAL = "r3k2r/8/8/3pP3/8/8/1p4P1/R3K2R w KQkq d6 0 1"
"""White may castle both ways and take en passant (e5xd6); Black's replies include castling both ways and
promotions on a1 (a capture) and b1."""


def _check(net: PNet, board: chess.Board) -> None:
    fresh = net.accumulator(board)
    assert np.array_equal(net._stack[-1], fresh), board.fen()  # integers: equal to the last bit
    assert net.evaluate_current(board) == net.evaluate(board)


def test_incremental_accumulators_equal_fresh_ones_along_random_games() -> None:
    net = PNet(*random_pnet(16, seed=1, psqt=True))  # the PSQT sums ride in the accumulator: checked with it
    rng = random.Random(7)
    plies = 0
    for _ in range(4):  # four random games, 320 plies in all, checked after every push and every pop
        board = chess.Board()
        net.refresh(board)
        for _ in range(80):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            net.push(board, move)
            board.push(move)
            plies += 1
            _check(net, board)
            if rng.random() < 0.3:  # unmake and remake: pop must restore the accumulators before the move
                board.pop()
                net.pop()
                _check(net, board)
                net.push(board, move)
                board.push(move)
        while board.move_stack:
            board.pop()
            net.pop()
            _check(net, board)
    assert plies >= 300


def test_castling_en_passant_promotions_and_null_moves_update_exactly() -> None:
    net = PNet(*random_pnet(16, seed=2, psqt=True))
    board = chess.Board(SPECIAL)
    net.refresh(board)
    kinds = set()
    for move in list(board.legal_moves):
        kinds |= {"castle"} if board.is_castling(move) else {"ep"} if board.is_en_passant(move) else set()
        net.push(board, move)
        board.push(move)
        _check(net, board)
        for reply in [*board.legal_moves, chess.Move.null()]:
            kinds |= {"promotion"} if reply.promotion else {"castle"} if board.is_castling(reply) else set()
            net.push(board, reply)
            board.push(reply)
            _check(net, board)
            board.pop()
            net.pop()
        board.pop()
        net.pop()
        _check(net, board)
    assert kinds == {"castle", "ep", "promotion"}
    chess960 = chess.Board("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", chess960=True)  # castling as king takes rook
    net.refresh(chess960)
    castles = [m for m in chess960.legal_moves if chess960.is_castling(m)]
    assert castles == [chess.Move.from_uci("e1b1")]  # g-side passes g1, which Black's rook g8 attacks
    for move in castles:
        net.push(chess960, move)
        chess960.push(move)
        _check(net, chess960)
        chess960.pop()
        net.pop()


def test_a_position_and_its_colour_mirror_score_the_same() -> None:
    nets = [PNet(*random_pnet(8, seed=3)), PNet(*random_pnet(8, seed=4, hidden=(4, 3))),
            PNet(*random_pnet(8, seed=5, psqt=True)), PNet(*random_pnet(8, seed=6, hidden=(4,), psqt=True))]
    rng = random.Random(11)
    board = chess.Board()
    for _ in range(60):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        mirror = board.mirror()
        assert pnet_inputs(mirror) == pnet_inputs(board)
        for net in nets:
            assert net.evaluate(mirror) == net.evaluate(board)


def test_inputs_follow_each_sides_view() -> None:
    # White's queen d1 is "our queen on d1" (256 + 3) for White and "their queen on d8" (384 + 256 + 59) for
    # Black, whose view flips the board vertically; Black's queen d8 is the same two inputs the other way round.
    assert feature_index(chess.WHITE, chess.WHITE, chess.QUEEN, chess.D1) == 259
    assert feature_index(chess.BLACK, chess.WHITE, chess.QUEEN, chess.D1) == 699
    assert feature_index(chess.BLACK, chess.BLACK, chess.QUEEN, chess.D8) == 259
    stm, other = pnet_inputs(chess.Board())
    assert stm == other and len(stm) == 32  # the start position looks the same from both sides


def _one_unit_net(weight: float, psqt: dict[int, float] | None = None) -> PNet:
    """N = 1: the input "our queen on d1" has first-layer weight ``weight``, bias 0.2; output weights +1 for the
    side to move's unit, -1 for the other's, bias 0.1; 100 cp per output unit; ``psqt``: PSQT weights by input."""
    arrays = {n: np.zeros(s, dtype=np.float32) for n, s in expected_shapes(1, (), psqt is not None).items()}
    arrays["w_in"][feature_index(chess.WHITE, chess.WHITE, chess.QUEEN, chess.D1)] = weight
    arrays["b_in"][:] = 0.2
    arrays["w_out"][:, 0] = [1.0, -1.0]
    arrays["b_out"][:] = 0.1
    for i, w in (psqt or {}).items():
        arrays["w_psqt"][i] = w
    return PNet(arrays, make_header(1, (), scale=100.0, psqt=psqt is not None))


def test_a_hand_derived_score() -> None:
    # Start position without Black's queen. White's unit sees its own queen on d1: 0.2 + 0.4 = 0.6; Black's unit
    # sees no queen of its own: 0.2. White to move: (0.6 - 0.2 + 0.1) x 100 = 50 cp; Black to move, Black's unit
    # first: (0.2 - 0.6 + 0.1) x 100 = -30 cp. (Quantised: 0.4 x 255 = 102 and 0.2 x 255 = 51 exactly, so
    # (153 - 51) x 1024 + 0.1 x 255 x 1024 = 130560, x 100 / (255 x 1024) = 50.0.)
    fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {} KQkq - 0 1"
    net = _one_unit_net(0.4)
    assert net.evaluate(chess.Board(fen.format("w"))) == 50
    assert net.evaluate(chess.Board(fen.format("b"))) == -30
    # Weight 2: White's unit is 2.2, clamped to 1 by the clipped ReLU: (1 - 0.2 + 0.1) x 100 = 90 cp.
    assert _one_unit_net(2.0).evaluate(chess.Board(fen.format("w"))) == 90


def test_a_hand_derived_score_with_the_psqt_path() -> None:
    # The same position, the same clipped unit (weight 2: 90 cp for White to move, (0.2 - 1 + 0.1) x 100 = -70 cp
    # for Black), plus PSQT weights: "our queen on d1" (input 259) 9 and "their queen on d8" (input 699) -4.
    # White's perspective sees its queen as 259 (+9), Black's as 699 (-4); Black has no queen. The path adds
    # (side to move's sum - the other's) / 2: White to move (9 - -4) / 2 = 6.5 units = 650 cp, outside the clip:
    # 90 + 650 = 740; Black to move (-4 - 9) / 2 = -6.5: -70 - 650 = -720.
    fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {} KQkq - 0 1"
    ours, theirs = feature_index(chess.WHITE, chess.WHITE, chess.QUEEN, chess.D1), 384 + 256 + 59
    assert (ours, feature_index(chess.BLACK, chess.WHITE, chess.QUEEN, chess.D1)) == (259, theirs)
    net = _one_unit_net(2.0, {ours: 9.0, theirs: -4.0})
    assert net.evaluate(chess.Board(fen.format("w"))) == 740
    assert net.evaluate(chess.Board(fen.format("b"))) == -720
    # The start position: each side's queen is 259 from its own view and 699 from the other's, so both sums are
    # 9 - 4 = 5 and the path adds nothing; what is left is the clipped part: both units see their own queen on d1,
    # min(0.2 + 2, 1) = 1 each, so 1 - 1 + 0.1 = 0.1 units = 10 cp.
    assert net.evaluate(chess.Board()) == 10


def test_the_average_of_nets_scores_their_mean() -> None:
    """average_pnets: one net whose score is the mean of its members' (ensembles of issue 26). Three random nets of
    different widths and scales, one without the PSQT path. Bound (by hand): the accumulators are the same integers
    in the mean and in its members (the first layers are copied), so only the output layer's rounding differs: each
    output weight is rounded to 1/QA_OUT of an output unit and meets a clipped input of at most 1 (QA / QA), the
    bias to 1/(QA * QA_OUT), each of a perspective's at most 32 PSQT weights to 1/(QA * QA_OUT), halved; so a net of
    N units and scale S is within (2N + 1) * S / (2 * QA_OUT) + 32 * S / (2 * QA * QA_OUT) + 1/2 cp (the last half:
    rounding the score) of its float output, and the mean within its own bound plus the members' mean bound."""
    from organisms.pnet import QA, QA_OUT, average_pnets

    nets = [PNet(*random_pnet(units, seed, scale=scale, psqt=psqt)) for units, seed, scale, psqt in
            ((8, 1, 400.0, True), (16, 2, 250.0, True), (4, 3, 600.0, False))]
    arrays, scale = average_pnets(nets)
    assert scale == pytest.approx((400 + 250 + 600) / 3)
    mean_net = PNet(arrays, make_header(28, (), scale, True))

    def bound(n: int, s: float) -> float:
        return (2 * n + 1) * s / (2 * QA_OUT) + 32 * s / (2 * QA * QA_OUT) + 0.5

    limit = bound(28, scale) + sum(bound(n.units, n.scale) for n in nets) / 3
    spread = []
    for board in random_positions(4, 120):
        scores = [n.evaluate(board) for n in nets]
        assert abs(mean_net.evaluate(board) - np.mean(scores)) <= limit
        spread.append(max(scores) - min(scores))
    assert np.median(spread) > 10 * limit  # the members disagree far beyond the bound: the mean is not trivial
    mean_net.refresh(chess.Board())
    assert mean_net.evaluate_current(chess.Board()) == mean_net.evaluate(chess.Board())
    with pytest.raises(ValueError, match="hidden layers"):
        average_pnets([nets[0], PNet(*random_pnet(8, 4, hidden=(4,)))])


def test_the_file_round_trip_and_the_player(tmp_path: Path) -> None:
    arrays, header = random_pnet(8, seed=5, hidden=(4,), psqt=True, training={"positions": 0})
    path = tmp_path / "p.npz"
    save_pnet(path, arrays, header)
    net = PLAYERS(f"pnet:{path}")
    assert isinstance(net, PNet) and isinstance(net, IncrementalEvaluator)
    assert net.header == json.loads(json.dumps(header)) and net.header["training"] == {"positions": 0}
    for name, a in arrays.items():
        assert np.array_equal(net.arrays[name], a)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert net.evaluate(board) == PNet(arrays, header).evaluate(board)
    assert "pnet:PATH" in PLAYERS.help() and PLAYERS.parse(f"pnet:{path}@depth=2").limit == Limit(depth=2)


def _hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Damaged pnet files, each with the words its one-line error must contain."""
    arrays, header = random_pnet(4, seed=6)
    out: dict[str, tuple[Path, str]] = {}

    def write(name: str, a: dict[str, np.ndarray], h: dict[str, object], words: str) -> None:
        path = tmp_path / f"{name}.npz"
        write_net_file(path, a, h)
        out[name] = (path, words)

    write("shape", {**arrays, "w_in": np.zeros((767, 4), np.float32)}, header, r"w_in has shape \(767, 4\)")
    write("nan", {**arrays, "b_in": np.array([0, np.nan, 0, 0], np.float32)}, header, "b_in must hold finite")
    write("huge", {**arrays, "w_out": np.full((8, 1), 1e30, np.float32)}, header, "w_out holds 1e\\+30")
    write("noscale", arrays, {k: v for k, v in header.items() if k != "scale"}, "the header has no scale")
    write("version", arrays, {**header, "feature_version": "pnet-v0"}, "trained on inputs 'pnet-v0'")
    write("units", arrays, {**header, "units": 2.5}, "units is 2.5")
    write("psqt", arrays, {**header, "psqt": "yes"}, "psqt is 'yes', expected true or false")
    write("nopsqt", arrays, {**header, "psqt": True}, "missing arrays w_psqt")
    # Issue 36: the keys that name the inputs and activations were not checked. Each value other than what
    # make_header writes (768 inputs, clipped-relu, a linear output, perspective-768), or its absence, is refused.
    for key, value in (("inputs", 769), ("inputs", 41024), ("inputs", 768.0), ("activation", "relu"),
                       ("output", "sigmoid"), ("feature_set", "other")):
        write(f"{key}-{value}", arrays, {**header, key: value}, f"the header's {key} is {value!r}, but a pnet net's")
    for key in ("inputs", "activation", "output", "feature_set"):
        write(f"no-{key}", arrays, {k: v for k, v in header.items() if k != key}, f"the header has no {key}")
    pickled = tmp_path / "object.npz"
    np.savez(pickled, header=np.array(json.dumps(header)), w_in=np.array([{"a": 1}], dtype=object),
             **{k: v for k, v in arrays.items() if k != "w_in"})
    out["object"] = (pickled, "holds Python objects")
    return out


def test_hostile_files_are_refused_in_one_line(tmp_path: Path) -> None:
    for name, (path, words) in _hostile(tmp_path).items():
        with pytest.raises(NetFileError, match=words):
            PNet.load(path)
        if name in ("object", "huge"):  # through the command line: one line, exit 2, nothing played
            run = run_mimic("match", f"pnet:{path}", "material", "--games", "2", "--depth", "1")
            assert run.returncode == 2, run.stderr
            assert run.stderr.count("\n") == 1 and str(path) in run.stderr and "Traceback" not in run.stderr


class _Checked(PNet):
    """A pnet that checks, at every incremental evaluation the engine asks for, that it equals a fresh one."""

    calls = 0

    def evaluate_current(self, board: chess.Board) -> int:
        v = super().evaluate_current(board)
        assert v == self.evaluate(board), board.fen()
        _Checked.calls += 1
        return v


def test_the_engine_tells_the_net_every_move_it_makes() -> None:
    net = _Checked(*random_pnet(8, seed=8))
    # Both of today's trees (null moves, TT moves, quiescence; the compiled ones keep their own accumulators), from a
    # position with specials.
    for search in ("python", "prob-python"):
        engine = make_engine(net, search)
        for fen in (SPECIAL, chess.STARTING_FEN):
            assert engine.search(chess.Board(fen), Limit(nodes=600)).move is not None
    assert _Checked.calls > 300
    plain = Engine(Material())  # an evaluator without the hook: the board's own push, nothing in between
    plain.search(chess.Board(), Limit(depth=1))
    assert plain._push == plain._board.push and plain._static == plain.evaluator.evaluate


def test_pnet_plays_a_match(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    save_pnet(path, *random_pnet(8, seed=9))
    pgn = tmp_path / "m.pgn"
    run = run_mimic("match", f"pnet:{path}", "material", "--games", "2", "--depth", "1", "--max-plies", "40",
                    "--pgn", pgn)
    assert run.returncode == 0, run.stderr
    with open(pgn) as fh:
        games = [g for g in iter(lambda: chess.pgn.read_game(fh), None)]
    assert len(games) == 2 and all(not g.errors and g.end().ply() > 0 for g in games)
    assert all(f"pnet:{path}" in (g.headers["White"], g.headers["Black"]) for g in games)

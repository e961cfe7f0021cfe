"""DeepChess: the 773 bits and the numpy comparator (organisms/comparator.py), the comparison alpha-beta
(search/compare.py), the cmp: player, the training data and networks (evolve/nets/deepchess_data.py,
evolve/nets/deepchess.py, evolve/nets/deepchess_run.py).
Torch tests skip, with the reason, where torch is missing."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.nets.deepchess import CmpSettings as TrainSettings
from evolve.nets.deepchess import CmpShape
from evolve.nets.deepchess_data import DataSettings, extract_positions, game_positions, load_positions
from evolve.players import PLAYERS
from organisms import Expert, Material
from organisms.comparator import (
    N_BITS,
    ComparatorNet,
    NetFileError,
    board_bits,
    expected_shapes,
    make_header,
    mirror_bits,
)
from search.base import Comparator, Limit
from search.compare import CompareEngine, EvalComparator
from search.engine import Engine
from search.players.spec import SpecError
from search.prob import make_engine
from search.uci import UciFrontEnd
from tests.conftest import run_mimic

DATA = Path(__file__).parent / "data"
MATERIAL_CMP = DATA / "material_cmp.npz"
MATERIAL_NET = DATA / "material_net.npz"


def _torch() -> object:
    torch = pytest.importorskip("torch", reason="torch is not installed (the optional extra 'nets': "
                                                "pip install torch==2.13.0)")
    torch.set_num_threads(1)
    return torch


def _random_boards(n: int, seed: int) -> list[chess.Board]:
    """``n`` positions of seeded random games (4 to 80 plies; White or Black to move, some with captures)."""
    rng = np.random.default_rng(seed)
    out: list[chess.Board] = []
    while len(out) < n:
        b = chess.Board()
        for _ in range(int(rng.integers(4, 80))):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(moves[int(rng.integers(len(moves)))])
        if not b.is_game_over():
            out.append(b.copy(stack=False))
    return out


def _random_net(seed: int) -> ComparatorNet:
    rng = np.random.default_rng(seed)
    pos2vec, top = (N_BITS, 24, 12), (24, 10, 2)
    arrays = {n: rng.normal(0, 0.3, s).astype(np.float32) for n, s in expected_shapes(pos2vec, top).items()}
    return ComparatorNet(arrays, make_header(pos2vec, top))


# ------------------------------------------------------------------------------------------ bits and numpy


def test_the_773_bits_of_the_start_position() -> None:
    x = board_bits(chess.Board())
    # 32 pieces + White to move + 4 castling rights.
    assert x.shape == (773,) and int(x.sum()) == 37
    assert x[0 * 384 + 0 * 64 + chess.E2] == 1  # a White pawn on e2
    assert x[1 * 384 + 5 * 64 + chess.E8] == 1  # the Black king on e8
    assert x[768] == 1 and list(x[769:773]) == [1, 1, 1, 1]
    after = board_bits(chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBN1 b Qkq - 0 1"))
    assert after[768] == 0 and list(after[769:773]) == [0, 1, 1, 1]  # Black to move; White lost O-O


def test_mirror_bits_are_the_bits_of_the_mirrored_board() -> None:
    for b in _random_boards(50, 1):
        assert np.array_equal(mirror_bits(board_bits(b)), board_bits(b.mirror()))


def test_the_shipped_material_comparator_by_hand() -> None:
    net = ComparatorNet.load(MATERIAL_CMP)  # tools/make_test_cmp.py: s(a, b) = 8 (balance(a) - balance(b))
    start = chess.Board()
    no_black_queen = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert net.score(no_black_queen, start) == pytest.approx(72.0)  # 8 x 9 pawns
    assert net.better(no_black_queen, start) and not net.better(start, no_black_queen)
    assert net.probability(no_black_queen, start) == pytest.approx(1 / (1 + math.exp(-18)))  # sigmoid(72 / 4)
    assert net.evaluate(start) == 0
    # The derived score: z = s(p, mirror p) / 4 = 8 x (9 - (-9)) / 4 = 36, times 200 / ln 10 cp for White.
    assert net.evaluate(no_black_queen) == round(200 * 36 / math.log(10)) == 3127
    assert net.evaluate(no_black_queen.mirror()) == 3127  # the mirror: Black is a queen up, Black to move
    black_to_move = no_black_queen.copy()
    black_to_move.turn = chess.BLACK
    assert net.evaluate(black_to_move) == -3127


def test_antisymmetric_and_colour_consistent_on_400_random_pairs() -> None:
    boards = _random_boards(200, 2)
    rng = np.random.default_rng(3)
    for net in (_random_net(4), ComparatorNet.load(MATERIAL_CMP)):
        strict = 0
        for _ in range(400):  # each pair is checked exactly (antisymmetry) or to float precision: 1,000 added nothing
            i, j = rng.integers(len(boards), size=2)
            a, b = boards[i], boards[j]
            assert not (net.better(a, b) and net.better(b, a))
            assert net.score(b, a) == -net.score(a, b)  # exactly, by construction (the pair in key order)
            assert net.better(a.mirror(), b.mirror()) == net.better(b, a)  # mirroring both flips the answer
            assert net.score(a.mirror(), b.mirror()) == pytest.approx(-net.score(a, b), rel=1e-5, abs=1e-5)
            strict += net.better(a, b) or net.better(b, a)
        assert strict > 200  # most pairs are ordered one way (ties: equal material, or the same position)


def test_one_position_at_a_time_equals_the_batch() -> None:
    net = _random_net(5)
    boards = _random_boards(40, 6)
    xa = np.array([board_bits(b) for b in boards[:20]])
    xb = np.array([board_bits(b) for b in boards[20:]])
    batch = net.symmetric(xa, xb)
    single = [net.score(a, b) for a, b in zip(boards[:20], boards[20:], strict=True)]
    np.testing.assert_allclose(single, batch, rtol=1e-4, atol=1e-4)


def test_bad_comparator_files_are_refused(tmp_path: Path) -> None:
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, header=np.array([{"format": "mimic-net"}], dtype=object))
    with pytest.raises(NetFileError, match=r"pickled\.npz: not a net file"):
        ComparatorNet.load(pickled)  # allow_pickle=False: an object array is never unpickled
    text = tmp_path / "text.npz"
    text.write_text("hello")
    with pytest.raises(NetFileError, match=r"text\.npz: not a net file"):
        ComparatorNet.load(text)
    with pytest.raises(NetFileError, match=r"material_net\.npz: not a mimic-net deepchess-cmp file"):
        ComparatorNet.load(MATERIAL_NET)  # an evaluation net is not a comparator
    good = ComparatorNet.load(MATERIAL_CMP)
    wrong_bits = tmp_path / "bits.npz"
    np.savez(wrong_bits, header=np.array(json.dumps({**good.header, "bits_version": "other"})), **good.arrays)
    with pytest.raises(NetFileError, match=r"bits\.npz: trained on bits 'other'"):
        ComparatorNet.load(wrong_bits)
    shapes = tmp_path / "shapes.npz"
    np.savez(shapes, header=np.array(json.dumps(good.header)), **{**good.arrays, "top_w0": np.zeros((4, 3))})
    with pytest.raises(NetFileError, match=r"shapes\.npz: top_w0 has shape \(4, 3\)"):
        ComparatorNet.load(shapes)
    nan = tmp_path / "nan.npz"
    np.savez(nan, header=np.array(json.dumps(good.header)), **{**good.arrays, "top_b0": np.array([np.nan, 0])})
    with pytest.raises(NetFileError, match=r"nan\.npz: top_b0 must hold finite floats"):
        ComparatorNet.load(nan)
    with pytest.raises(SpecError, match=r"missing\.npz: cannot read the net"):
        PLAYERS(f"cmp:{tmp_path / 'missing.npz'}")
    with pytest.raises(SpecError, match=r"not a mimic-net deepchess-cmp file"):
        PLAYERS(f"cmp:{MATERIAL_NET}")


# ------------------------------------------------------------------------------------------ the search

POSITIONS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",  # quiet opening
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # mate in one (Qxf7#)
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # back-rank mate (Rd8#)
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",  # Black to move
    "8/2k5/8/3K4/8/8/4P3/8 b - - 0 1",  # pawn endgame
    "r2qkb1r/ppp2ppp/2n1bn2/3pp3/4P3/2NP1N2/PPP1BPPP/R1BQK2R w KQkq - 0 6",  # captures to resolve
    "k7/8/8/2Q5/8/8/8/7K w - - 0 1",  # Qb6 and Qc7 stalemate: draws against positions (through the mirror)
    "7k/8/8/8/8/8/2q5/K7 b - - 0 1",  # Qb3 and every king move stalemate: Black avoids draws
)


def _plain(evaluator: object) -> Engine:
    """The ordinary search as plain minimax over the same tree (its pruning switched off)."""
    return Engine(evaluator, 4, null_move=False, lmr=False, aspiration=False,  # type: ignore[arg-type]
                  delta_pruning=False, tt_cutoffs=False)


@pytest.mark.parametrize("fen", POSITIONS)
def test_comparison_search_chooses_the_ordinary_searchs_move(fen: str) -> None:
    board = chess.Board(fen)
    for evaluator, depths in ((Material(), (1, 2, 3)), (Expert(), (1, 2))):
        for depth in depths:
            want = _plain(evaluator).search(board, Limit(depth=depth))
            got = CompareEngine(EvalComparator(evaluator), 4).search(board, Limit(depth=depth))
            # The comparator derived from the evaluator reports the evaluator's score of the PV's leaf: the
            # comparison search's value must be the ordinary one's.
            assert got.score == want.score, (fen, depth)
            if got.move != want.move:  # only a tie: the ordinary search gives the chosen move the same value
                tied = _plain(evaluator).search(board, Limit(depth=depth), root_moves=[got.move])
                assert tied.score == want.score, (fen, depth, got.move, want.move)
            assert got.move in board.legal_moves


def test_expert_depth_3_on_two_positions() -> None:
    for fen in (POSITIONS[0], POSITIONS[3]):
        board = chess.Board(fen)
        want = _plain(Expert()).search(board, Limit(depth=3))
        got = CompareEngine(EvalComparator(Expert()), 4).search(board, Limit(depth=3))
        assert (got.move, got.score) == (want.move, want.score)


def test_the_compare_and_plain_searches_by_name() -> None:
    # @search=compare: the comparison search around the evaluation itself; @search=plain: the ordinary one with the
    # comparison search's pruning off. Both must find the value of plain minimax over the same tree (_plain).
    for fen in (POSITIONS[0], POSITIONS[3]):
        board = chess.Board(fen)
        want = _plain(Expert()).search(board, Limit(depth=2))
        compare, plain = make_engine(Expert(), "compare", 4), make_engine(Expert(), "plain", 4)
        assert isinstance(compare, CompareEngine) and isinstance(compare.comparator, EvalComparator)
        assert (plain.null_move, plain.lmr, plain.delta_pruning, plain.aspiration) == (False, False, False, False)
        for engine in (compare, plain):
            assert engine.search(board, Limit(depth=2)).score == want.score, (fen, type(engine).__name__)
    # A comparator stays itself under @search=compare (no evaluator wraps it); anything else is refused.
    net = ComparatorNet.load(MATERIAL_CMP)
    assert make_engine(net, "compare").comparator is net
    with pytest.raises(TypeError, match="neither an evaluator nor a comparator"):
        make_engine(object(), "compare")  # type: ignore[arg-type]


def test_comparison_search_limits_and_the_net() -> None:
    net = ComparatorNet.load(MATERIAL_CMP)
    assert isinstance(net, Comparator)
    engine = CompareEngine(net, 4)
    # A hanging queen (Black's on d5 against the e4 pawn): a material comparator takes it at once.
    board = chess.Board("rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    r = engine.search(board, Limit(depth=2))
    assert r.move == chess.Move.from_uci("e4d5") and r.depth == 2 and r.score > 0
    r = engine.search(board, Limit(nodes=400))
    assert r.nodes <= 400 + 1 and r.move in board.legal_moves
    r = engine.search(board, Limit(movetime=0.2))
    assert r.time < 1.0 and r.move in board.legal_moves
    mate = engine.search(chess.Board(POSITIONS[2]), Limit(depth=2))
    assert mate.move == chess.Move.from_uci("d1d8") and mate.mate == 1


def test_cmp_is_one_player_kind_and_plays_uci() -> None:
    assert isinstance(PLAYERS(f"cmp:{MATERIAL_CMP}"), ComparatorNet)
    assert "cmp:PATH" in PLAYERS.help()
    out = io.StringIO()
    front = UciFrontEnd(PLAYERS, f"cmp:{MATERIAL_CMP}", out=out)
    for line in ("position startpos moves e2e4 d7d5", "go depth 2"):
        front.handle(line)
    assert front.wait(timeout=30)  # let the depth-2 search finish on its own
    front.run(["isready"])
    lines = out.getvalue().splitlines()
    assert "bestmove e4d5 ponder d8d5" in lines, lines  # the free pawn
    # The score is derived from the PV's leaf (after exd5 Qxd5 the material is level): 0 cp.
    assert any(line.startswith("info depth 2 ") and " score cp 0 " in line and " pv e4d5" in line
               for line in lines), lines


def test_cmp_plays_legal_moves_in_a_match(tmp_path: Path) -> None:
    pgn = tmp_path / "m.pgn"
    run = run_mimic("match", f"cmp:{MATERIAL_CMP}", "material", "--games", "2", "--nodes", "200", "--max-plies", "40",
                    "--pgn", str(pgn))
    assert run.returncode == 0, run.stderr
    games = []
    with open(pgn) as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            games.append(game)
    assert len(games) == 2
    for game in games:
        assert not game.errors and len(list(game.mainline_moves())) > 0
        assert "illegal" not in game.headers.get("Termination", "").lower()
        assert f"cmp:{MATERIAL_CMP}" in (game.headers["White"], game.headers["Black"])


# ------------------------------------------------------------------------------------------ data

RUY = ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 "
       "10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4")


def _pgn(result: str, n: int = 1) -> str:
    return "".join(f'[Event "t{i}"]\n[Result "{result}"]\n\n{RUY} {result}\n\n' for i in range(n))


def test_positions_of_a_game_by_hand() -> None:
    game = chess.pgn.read_game(io.StringIO(_pgn("1-0")))
    assert game is not None
    # 28 plies; from ply 10 (6. Re1) on: 18 positions, less the two before 12. cxb5 and 12... axb5: 16.
    every = game_positions(game, np.random.default_rng(0), per_game=100)
    assert len(every) == 16
    assert every[0].fullmove_number == 6 and every[0].turn == chess.WHITE
    before_cxb5 = game.board()
    for move in list(game.mainline_moves())[:22]:
        before_cxb5.push(move)
    assert all(b.board_fen() != before_cxb5.board_fen() for b in every)
    ten = game_positions(game, np.random.default_rng(0))
    assert len(ten) == 10 and {b.fen() for b in ten} <= {b.fen() for b in every}


def test_data_is_decisive_balanced_and_split_by_game(tmp_path: Path) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(_pgn("1-0", 7) + _pgn("1/2-1/2", 3) + _pgn("0-1", 5))
    out = tmp_path / "data"
    s = extract_positions([str(pgn)], out, DataSettings(validation=0.3, test=0.3, seed=1))
    assert s.games == 15 and s.decisive == 12  # the 3 draws are not used
    data = load_positions(out)
    assert data.bits.shape == (s.positions, 773)
    for part in range(3):  # each part balanced
        assert len(data.rows(part, 1)) == len(data.rows(part, -1))
    for g in np.unique(data.game):  # a game's positions are all in one part
        assert len(np.unique(data.part[data.game == g])) == 1
    assert np.isin(data.game, [7, 8, 9]).sum() == 0  # no position from a drawn game (numbers 7..9)
    side = json.loads((out / "positions.json").read_text())
    assert side["positions"] == s.positions and side["white_wins"] == side["black_wins"]
    assert side["settings"]["per_game"] == 10 and "provenance" in side


# ------------------------------------------------------------------------------------------ training (torch)


def test_numpy_inference_equals_torch_on_1000_pairs() -> None:
    torch = _torch()
    from evolve.nets.deepchess import build_model, comparator

    shape = CmpShape(pos2vec=(40, 20), top=(16,))
    model = build_model(shape, seed=7)
    rng = np.random.default_rng(8)
    xa = (rng.random((1000, N_BITS)) < 0.05).astype(np.uint8)
    xb = (rng.random((1000, N_BITS)) < 0.05).astype(np.uint8)
    with torch.no_grad():  # type: ignore[attr-defined]
        want = model(torch.from_numpy(xa.astype(np.float32)),  # type: ignore[attr-defined]
                     torch.from_numpy(xb.astype(np.float32))).numpy()  # type: ignore[attr-defined]
    np.testing.assert_allclose(comparator(model, shape).logits(xa, xb), want, rtol=1e-4, atol=1e-5)


def _material_data(folder: Path, n: int) -> None:
    """``n`` positions in the format of evolve.nets.deepchess (packed bits, result, part, game) whose result a net can
    learn from little data: a position of a short random game (4 to 19 plies) with 1 to 3 of Black's pieces (not
    the king) removed is a White win; its colour mirror, half the time, a Black win. Parts 60/20/20, balanced."""
    rng = np.random.default_rng(11)
    bits, result = [], []
    for i in range(n):
        b = chess.Board()
        for _ in range(int(rng.integers(4, 20))):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(moves[int(rng.integers(len(moves)))])
        b = b.copy(stack=False)
        black = [sq for sq in chess.SquareSet(b.occupied_co[chess.BLACK]) if b.piece_type_at(sq) != chess.KING]
        for sq in rng.choice(black, size=int(rng.integers(1, 4)), replace=False):
            b.remove_piece_at(int(sq))
        white_wins = i % 2 == 0
        bits.append(board_bits(b if white_wins else b.mirror()))
        result.append(1 if white_wins else -1)
    part = np.array([0, 0, 0, 1, 2], dtype=np.uint8)[(np.arange(n) // 2) % 5]  # each (W, B) couple in one part
    folder.mkdir()
    np.savez(folder / "positions.npz", bits=np.packbits(np.array(bits), axis=1), result=np.array(result, np.int8),
             part=part, game=np.arange(n, dtype=np.int64))


def test_a_tiny_training_run_beats_chance_and_resumes(tmp_path: Path) -> None:
    _torch()
    from evolve.nets.deepchess_run import train_cmp

    _material_data(tmp_path / "data", 1200)
    settings = TrainSettings(shape=CmpShape(pos2vec=(32,), top=(16,)), small=CmpShape(pos2vec=(8,), top=()),
                             ae_epochs=1, epochs=2, distill_epochs=1, batch=64, lr=3e-3, seed=0)
    out = tmp_path / "run"
    first = train_cmp(str(tmp_path / "data"), str(out), settings, measure_speed=False)
    assert first.seconds > 0
    with pytest.raises(FileExistsError):
        train_cmp(str(tmp_path / "data"), str(out), settings, measure_speed=False)
    longer = TrainSettings(**{**settings.__dict__, "epochs": 4, "distill_epochs": 2})  # was 6 and 3: 3.3 -> 2.6 s
    o = train_cmp(str(tmp_path / "data"), str(out), longer, resume=True, measure_speed=False)
    assert [int(r[0]) for r in o.curves.compare] == list(range(1, 5))  # 2 epochs kept, 2 more
    assert [int(r[0]) for r in o.curves.distill] == [1, 2] and len(o.curves.pretrain) == 1
    assert o.seconds > first.seconds  # the wall time is summed over the first run and the resumed one
    # 120 validation pairs: chance (0.5) exceeds 0.65 with probability below 0.1%.
    assert o.accuracy["big_validation"] > 0.85
    assert o.accuracy["small_validation"] > 0.65
    net = ComparatorNet.load(o.path)
    assert net.header["pos2vec"] == [773, 32] and net.header["accuracy"] == pytest.approx(o.accuracy)
    assert net.header["seconds"] == pytest.approx(o.seconds, abs=0.1)
    assert ComparatorNet.load(o.small_path).header["role"] == "distilled"
    assert (out / "curve.png").stat().st_size > 0 and "Pair accuracy" in (out / "summary.md").read_text()


class _Killed(Exception):
    pass


@pytest.mark.parametrize("keep_best", [False, True])
def test_a_killed_training_resumes_to_the_same_weights(tmp_path: Path, keep_best: bool) -> None:
    """A run killed mid-phase (its checkpoint one epoch behind) and resumed ends with the weights of a run never
    killed, bit for bit: the pretraining decoder and Adam's moments (and the best epoch's weights, with
    keep_best) come back from the checkpoint."""
    _torch()
    from evolve.nets.deepchess_run import train_cmp
    from organisms.net import read_net_file

    _material_data(tmp_path / "data", 300)  # bit-identity holds at any size: 300 positions (was 600)
    settings = TrainSettings(shape=CmpShape(pos2vec=(16, 8), top=(8,)), small=CmpShape(pos2vec=(8,), top=()),
                             ae_epochs=2, epochs=4, distill_epochs=3, batch=64, lr=3e-3, keep_best=keep_best,
                             seed=0)
    whole = train_cmp(str(tmp_path / "data"), str(tmp_path / "whole"), settings, measure_speed=False)

    def kill_at(prefix: str) -> Callable[[str], None]:
        def report(line: str) -> None:
            if line.startswith(prefix):
                raise _Killed(line)
        return report

    out = str(tmp_path / "killed")
    # Killed in layer 2's second pretraining epoch, in the comparator's third epoch, in distillation's second.
    for i, prefix in enumerate(("pretraining layer 2 (16 -> 8), epoch 2", "comparator epoch 3",
                                "distillation epoch 2")):
        with pytest.raises(_Killed):
            train_cmp(str(tmp_path / "data"), out, settings, resume=i > 0, report=kill_at(prefix),
                      measure_speed=False)
    resumed = train_cmp(str(tmp_path / "data"), out, settings, resume=True, measure_speed=False)
    for a, b in ((whole.path, resumed.path), (whole.small_path, resumed.small_path)):
        wa, wb = read_net_file(a)[0], read_net_file(b)[0]
        assert wa.keys() == wb.keys()
        for k in wa:
            np.testing.assert_array_equal(wa[k], wb[k], err_msg=k)
    assert resumed.curves == whole.curves


def test_keep_best_and_patience_keep_the_weights_of_the_best_validation_epoch(tmp_path: Path) -> None:
    """Training is deterministic by epoch (each epoch's pairs seeded by its number, the learning rate by its
    index), so the comparator kept from a long run at its best validation epoch E must equal, bit for bit, a run
    stopped after E epochs. A wide net on 300 positions overfits, so E comes before the last epoch. Early stopping,
    by hand from the long run's curve: a run with patience P repeats its first K epochs, K the first epoch whose
    best validation accuracy so far (the first of equals) lies P or more epochs back, then stops and keeps the best
    of those K."""
    _torch()
    from evolve.nets.deepchess_run import train_cmp
    from organisms.net import read_net_file

    _material_data(tmp_path / "data", 300)
    settings = TrainSettings(shape=CmpShape(pos2vec=(64,), top=(32,)), small=CmpShape(pos2vec=(8,), top=()),
                             ae_epochs=1, epochs=12, distill_epochs=0, batch=32, lr=1e-2, keep_best=True, seed=0)
    kept = train_cmp(str(tmp_path / "data"), str(tmp_path / "kept"), settings, measure_speed=False)
    vals = [r[3] for r in kept.curves.compare]
    e = vals.index(max(vals)) + 1
    assert e < 12 and kept.small_path is None
    assert f"kept at epoch {e}" in (tmp_path / "kept" / "summary.md").read_text()
    short = TrainSettings(**{**settings.__dict__, "epochs": e, "keep_best": False})
    stopped = train_cmp(str(tmp_path / "data"), str(tmp_path / "stopped"), short, measure_speed=False)
    wa, wb = read_net_file(kept.path)[0], read_net_file(stopped.path)[0]
    assert wa.keys() == wb.keys()
    for k in wa:
        np.testing.assert_array_equal(wa[k], wb[k], err_msg=k)
    assert kept.accuracy["big_validation"] == pytest.approx(max(vals))
    patience = 2
    k = next(t for t in range(1, 13) if t - (vals[:t].index(max(vals[:t])) + 1) >= patience)
    assert k < 12
    patient = train_cmp(str(tmp_path / "data"), str(tmp_path / "patient"),
                        TrainSettings(**{**settings.__dict__, "patience": patience}), measure_speed=False)
    assert patient.curves.compare == kept.curves.compare[:k]
    assert patient.accuracy["big_validation"] == pytest.approx(max(vals[:k]))
    assert f"stopped after {k}: 2 epochs without a better" in (tmp_path / "patient" / "summary.md").read_text()


def test_the_two_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _torch()
    from evolve.cli import main

    pgn = tmp_path / "g.pgn"
    pgn.write_text(_pgn("1-0", 6) + _pgn("0-1", 6) + "[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n\n")  # an illegal move
    assert main(["deepchess-data", str(pgn), "--out", str(tmp_path / "d"), "--validation", "0.25", "--test",
                 "0.25"]) == 0
    out, err = capsys.readouterr()
    assert "positions/s" in out and f"{pgn}:" in err  # the bad game named by file and line
    assert main(["train-cmp", str(tmp_path / "d"), "--out", str(tmp_path / "r"), "--pos2vec", "8", "--top", "4",
                 "--small-pos2vec", "4", "--small-top", "2", "--ae-epochs", "1", "--epochs", "1",
                 "--distill-epochs", "1", "--no-speed"]) == 0
    assert f"cmp:{tmp_path / 'r' / 'cmp.npz'}" in capsys.readouterr().out
    assert main(["train-cmp", str(tmp_path / "d"), "--out", str(tmp_path / "r"), "--no-speed"]) == 2  # no --resume
    assert "--resume" in capsys.readouterr().err
    # No distillation: only the comparator is written and reported.
    assert main(["train-cmp", str(tmp_path / "d"), "--out", str(tmp_path / "s"), "--pos2vec", "8", "--top", "4",
                 "--ae-epochs", "1", "--epochs", "1", "--distill-epochs", "0", "--no-speed"]) == 0
    assert "play it as cmp:" in capsys.readouterr().out
    assert (tmp_path / "s" / "cmp.npz").exists() and not (tmp_path / "s" / "cmp-small.npz").exists()
    summary = (tmp_path / "s" / "summary.md").read_text()
    assert "| comparator |" in summary and "| distilled |" not in summary and "none distilled" in summary
    draws = tmp_path / "draws.pgn"
    draws.write_text(_pgn("1/2-1/2", 2))
    assert main(["deepchess-data", str(draws), "--out", str(tmp_path / "e")]) == 2
    assert "no White-win and Black-win positions" in capsys.readouterr().err

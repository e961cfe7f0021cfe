"""The move-agreement objective (``mimic evolve GAMES.pgn --objective moves --player NAME``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from evolve.data.moves import MATE_SCORE, extract_moves, load_moves, player_matches, resolve_child, split_by_game
from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.objectives import MATE_FIXED, MoveAgreement
from mentor.target import quiet_leaf
from organisms import Organism
from organisms.features import bitboard_row, feature_names
from organisms.genome import layout_genome
from search.conventions import material_balance

from .conftest import DATA, run_mimic

GAMES = Path(__file__).parent.parent / "data" / "player-games"


def first_games(source: Path, n: int, out: Path) -> Path:
    """The first ``n`` games of a PGN file of ``data/player-games``, byte for byte, as ``out``."""
    data = source.read_bytes()
    starts = [m.start() for m in re.finditer(rb"^\[Event ", data, flags=re.M)]
    out.write_bytes(data[:starts[n]])
    return out


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MIMIC_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def tal3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The first three games of Tal.pgn, and a cache folder shared by this module's tests."""
    folder = tmp_path_factory.mktemp("tal3")
    return first_games(GAMES / "Tal.pgn", 3, folder / "tal3.pgn"), folder / "cache"


@pytest.fixture(scope="module")
def tal3_leaves(tal3: tuple[Path, Path]) -> list[tuple[list[chess.Board | None], chess.Color, int]]:
    """The reference: the games replayed one move at a time, every legal move's child resolved by
    ``quiet_leaf``. One entry per position where Tal (by his exact header) moved: the leaves (None for a
    mate), the mover, the played move's index."""
    out: list[tuple[list[chess.Board | None], chess.Color, int]] = []
    with open(tal3[0], encoding="utf-8", errors="replace") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            colors = [c for c, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
                      if game.headers[tag] == "Tal, Mihail"]
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                legal = list(board.legal_moves)
                if ply >= 10 and board.turn in colors and len(legal) > 1:
                    leaves: list[chess.Board | None] = []
                    for m in legal:
                        child = board.copy(stack=False)
                        child.push(m)
                        leaves.append(None if child.is_checkmate() else quiet_leaf(child)[0])
                    out.append((leaves, board.turn, legal.index(move)))
                board.push(move)
    return out


def loop_scores(leaves: list[chess.Board | None], mover: chess.Color, organism: Organism) -> list[int]:
    """Each move's score for the mover: ``Organism.evaluate`` of its leaf (side to move's view there),
    negated when the opponent is to move at the leaf; a mate scores MATE_SCORE."""
    out = []
    for leaf in leaves:
        if leaf is None:
            out.append(int(MATE_SCORE))
        else:
            v = organism.evaluate(leaf)
            out.append(v if leaf.turn == mover else -v)
    return out


@pytest.mark.parametrize("layout", ["paper", "rich"])
def test_vectorised_choice_equals_a_loop_over_organism_evaluate(tal3: tuple[Path, Path], tal3_leaves: list,
                                                               layout: str) -> None:
    data, feats = load_moves(tal3[0], "Tal", layout=layout, cache_dir=tal3[1])
    assert data.player_games == 3 and data.n > 50
    objective = MoveAgreement(feats, data.sign, data.fixed, data.offsets, data.played)
    genome = layout_genome(layout)
    # Two random organisms (four took twice as long: the loop evaluates every child of every position for each).
    organisms = [Organism(genome, genome.random_bits(np.random.default_rng(seed))[0]) for seed in range(2)]
    weights = np.array([o.weights for o in organisms])
    rows = np.arange(data.n)
    choices = objective.choices(weights, rows)  # (organisms, positions), indices into the children
    agree = objective.agreement(weights, rows)
    for k, organism in enumerate(organisms):
        assert len(tal3_leaves) == data.n
        same = 0
        for i, (leaves, mover, played) in enumerate(tal3_leaves):
            scores = loop_scores(leaves, mover, organism)
            assert data.played[i] - data.offsets[i] == played
            mine = int(choices[k, i] - data.offsets[i])
            # Organism.evaluate rounds to whole centipawns: the vectorised choice is a best move of the loop's
            # within that rounding, and the very same move wherever the loop's best is 1 cp clear of the rest.
            assert scores[mine] >= max(scores) - 1
            same += mine == int(np.argmax(scores))
        assert same >= 0.97 * data.n
        np.testing.assert_allclose(agree[k], np.mean(choices[k] == data.played))


QUEEN_HANGS = "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1"
"""White: Ke1, Qd1; Black: Ke8, pawns d5 and e6 (e6 guards d5). Root material, White's view: 900 - 200 = +700."""


def test_capture_resolution_sees_the_recapture() -> None:
    board = chess.Board(QUEEN_HANGS)
    # Qxd5 wins a pawn and hangs the queen to exd5; then White has no capture. The resolved child is after
    # exd5: White (the mover) to move, so sign +1, with K against K+P: -100 cp from the mover's view.
    row, sign, fixed = resolve_child(board, chess.Move.from_uci("d1d5"))
    leaf = chess.Board("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1")
    assert row == bitboard_row(leaf) and sign == 1.0 and np.isnan(fixed)
    assert sign * material_balance(leaf) == -100
    # Qd4 is safe (d5 guards c4 and e4, e6 guards d5 and f5): the child itself, Black to move, sign -1,
    # and the mover keeps +700.
    child = board.copy()
    child.push_uci("d1d4")
    row, sign, _ = resolve_child(board, chess.Move.from_uci("d1d4"))
    assert row == bitboard_row(child) and sign == -1.0 and sign * material_balance(child) == 700
    # Two captures in a row: Nb4xd5 exd5 leaves K against K+P, White to move: sign +1, -100 for the mover.
    board = chess.Board("4k3/8/4p3/3p4/1N6/8/8/4K3 w - - 0 1")
    row, sign, _ = resolve_child(board, chess.Move.from_uci("b4d5"))
    assert row == bitboard_row(chess.Board("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1")) and sign == 1.0


def test_a_material_organism_does_not_hang_its_queen(tmp_path: Path, cache: Path) -> None:
    # The player hangs the queen (1. Qxd5). A material-only organism scores Qxd5 at -pawn (after exd5, White to
    # move: -1 pawn, sign +1) and Qd4 at queen - 2 pawns (Black to move: Black's view is 2 pawns - 1 queen,
    # sign -1), so it chooses a safe queen move and disagrees with the player.
    pgn = tmp_path / "one.pgn"
    pgn.write_text(f'[Event "x"]\n[White "Me"]\n[Black "You"]\n[SetUp "1"]\n[FEN "{QUEEN_HANGS}"]\n'
                   '[Result "*"]\n\n1. Qxd5 *\n')
    data, feats = load_moves(pgn, "Me", skip_plies=0)
    assert data.n == 1
    genome = layout_genome("paper")
    values = {n: 0.0 for n in feature_names("paper")} | {"pawn": 100, "knight": 300, "bishop": 300, "rook": 500,
                                                           "queen": 900}
    w = Organism.from_weights(values, genome).weights  # every other gene's range starts at 0
    pawn, queen = w[0], w[4]
    objective = MoveAgreement(feats, data.sign, data.fixed, data.offsets, data.played)
    s, _ = objective.scores(w[None, :], np.arange(1))
    legal = list(chess.Board(QUEEN_HANGS).legal_moves)
    by_move = {m.uci(): float(s[0, i]) for i, m in enumerate(legal)}
    assert by_move["d1d5"] == pytest.approx(-pawn, abs=1e-3)  # float32 scores
    assert by_move["d1d4"] == pytest.approx(queen - 2 * pawn, abs=1e-3)
    assert objective.agreement(w[None, :], np.arange(1))[0] == 0.0
    chosen = legal[int(objective.choices(w[None, :], np.arange(1))[0, 0])]
    # Every move but Qxd5 keeps +700 in material: the choice is the first of them in legal-move order.
    assert chosen == next(m for m in legal if m.uci() != "d1d5")
    assert by_move[chosen.uci()] == pytest.approx(queen - 2 * pawn, abs=1e-3)
    # A mate in one is scored MATE_SCORE whatever the organism, and the position is left out of the rows.
    pgn.write_text('[Event "x"]\n[White "Me"]\n[Black "You"]\n[SetUp "1"]\n'
                   '[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]\n[Result "1-0"]\n\n1. Ra8# 1-0\n')
    data = extract_moves(pgn, "Me", skip_plies=0)
    assert (data.fixed == MATE_FIXED).sum() == 1 and MATE_FIXED == MATE_SCORE
    assert data.fixed[data.played[0]] == MATE_SCORE
    assert len(MoveAgreement(np.zeros((len(data.sign), 49)), data.sign, data.fixed, data.offsets,
                             data.played).rows) == 0


def _header_lines(path: Path) -> set[str]:
    text = path.read_bytes().decode("utf-8", errors="replace")
    return set(re.findall(r'^\[(?:White|Black) "([^"]*)"\]', text, flags=re.M))


def test_player_names_on_real_headers() -> None:
    tal, anand = _header_lines(GAMES / "Tal.pgn"), _header_lines(GAMES / "Anand.pgn")
    kasparov, alekhine = _header_lines(GAMES / "Kasparov.pgn"), _header_lines(GAMES / "Alekhine.pgn")
    karpov = _header_lines(GAMES / "Karpov.pgn")
    # The real lines the expectations are about are there.
    assert {"Tal, Mihail", "Tseshkovsky, Vitaly", "Tarasov, Vitaly Georgievich"} <= tal
    assert {"Anand,V", "Anand, Viswanathan", "Anand,Vignesh", "Anand,V / FRITZ7"} <= anand
    assert {"Kasparov, Gary", "Kasparov,G", "Kasparov,Georgy"} <= kasparov
    assert {"Alekhine, Alexander", "Alekhine/Reilly", "Alekhine/Monosson"} <= alekhine
    assert {"Karpov, Anatoly", "Karpov,Ana", "Karpov,An"} <= karpov
    # Surname before the comma, never a substring: "Tal" is not inside "Vitaly".
    assert player_matches("Tal, Mihail", "Tal")
    assert not player_matches("Tseshkovsky, Vitaly", "Tal") and not player_matches("Tarasov, Vitaly Georgievich", "Tal")
    assert [h for h in tal if player_matches(h, "Tal")] == ["Tal, Mihail"]
    # Spellings of one player all match the surname; case and the space after the comma do not matter.
    assert all(player_matches(h, "Karpov") for h in ("Karpov, Anatoly", "Karpov,Ana", "Karpov,An"))
    assert player_matches("Kasparov, Gary", "kasparov") and player_matches("Anand, Viswanathan", "Anand,Viswanathan")
    # Namesakes share the surname (documented): "Anand" takes Anand,Vignesh too; the exact header does not.
    assert player_matches("Anand,Vignesh", "Anand") and not player_matches("Anand,Vignesh", "Anand,V")
    assert player_matches("Kasparov,Georgy", "Kasparov") and not player_matches("Kasparov,Georgy", "Kasparov,G")
    # Consultation and engine-assisted games name several players: only the exact header matches.
    assert not player_matches("Alekhine/Reilly", "Alekhine") and not player_matches("Anand,V / FRITZ7", "Anand")
    assert player_matches("Alekhine/Reilly", "Alekhine/Reilly")
    # A consultation written with a colon (two Anand.pgn headers) names several players too.
    assert "Anand,Viswanathan:Borgialli,Mihail Harasic" in anand
    assert not player_matches("Anand,Viswanathan:Borgialli,Mihail Harasic", "Anand")
    assert not player_matches("Tal, Mihail", "") and not player_matches("Tal, Mihail", "Mihail")


def test_player_matches_doctests() -> None:
    import doctest

    import evolve.data.moves

    failures, tried = doctest.testmod(evolve.data.moves)
    assert tried >= 2 and failures == 0


def test_tal_counts_match_source_md() -> None:
    # SOURCE.md: Tal.pgn, 2,431 games, Tal White in 1,233 and Black in 1,198 (headers read as text: fast).
    text = (GAMES / "Tal.pgn").read_bytes().decode("utf-8", errors="replace")
    whites = re.findall(r'^\[White "([^"]*)"\]', text, flags=re.M)
    blacks = re.findall(r'^\[Black "([^"]*)"\]', text, flags=re.M)
    assert sum(player_matches(h, "Tal") for h in whites) == 1233
    assert sum(player_matches(h, "Tal") for h in blacks) == 1198


def test_malformed_games_are_reported_and_skipped(cache: Path) -> None:
    errors: list[str] = []
    path = DATA / "malformed.pgn"
    data = extract_moves(path, "A", skip_plies=2, on_error=errors.append)
    # Line 8: an illegal king move (Ke3); line 22: a bad FEN header. Both skipped, counted, reading goes on.
    assert data.malformed == 2 and len(errors) == 2
    assert errors[0].startswith(f"{path}:8: ") and errors[1].startswith(f"{path}:22: ")
    assert data.games == 2 and data.player_games == 1
    # "good one" has 26 plies; A (White) moves at plies 2, 4, ..., 24 (0-based, after 2 skipped): 12 positions.
    assert data.n == 12
    again = extract_moves(path, "A", skip_plies=2)  # from the cache: the same errors, with the path
    assert again.cached and again.errors == data.errors and again.n == 12


def test_likelihood_beta_is_the_fitted_optimum(tal3: tuple[Path, Path]) -> None:
    # Tal's 119 positions of the module's three games, read once for the module (Carlsen's first two games,
    # 48 positions, were read again for this test alone).
    data, feats = load_moves(tal3[0], "Tal", cache_dir=tal3[1])
    objective = MoveAgreement(feats, data.sign, data.fixed, data.offsets, data.played, loss="likelihood")
    genome = layout_genome("paper")
    w = genome.decode(genome.random_bits(np.random.default_rng(3), 2))
    rows = objective.rows
    ll, beta = objective.log_likelihood(w, rows)
    s, g = objective.scores(w, rows)
    for k in range(2):  # a brute-force scan of β: none beats the fitted one by more than a hair
        best = -np.inf
        for b in beta[k] * np.exp(np.linspace(-2, 2, 81)):
            z = s[k].astype(np.float64) * b
            logp = [z[g.played[i]] - np.logaddexp.reduce(z[g.starts[i]:g.starts[i] + g.lengths[i]])
                    for i in range(len(g.starts))]
            best = max(best, float(np.mean(logp)))
        assert ll[k] >= best - 1e-5
    np.testing.assert_allclose(objective.losses(w, rows), -ll)
    again, same_beta = objective.log_likelihood(w, rows, beta)  # at a given β (the held-out measure's way)
    np.testing.assert_allclose(again, ll, atol=1e-9)
    np.testing.assert_array_equal(same_beta, beta)
    # Scale blindness: doubling the weights halves β and keeps the likelihood and the agreement.
    ll2, beta2 = objective.log_likelihood(2 * w, rows)
    np.testing.assert_allclose(ll2, ll, atol=1e-6)
    np.testing.assert_allclose(beta2, beta / 2, rtol=1e-6)


def test_split_is_by_game(tal3: tuple[Path, Path]) -> None:
    data = extract_moves(tal3[0], "Tal", cache_dir=tal3[1] / "moves")
    train, held = split_by_game(data, 0.34, 0)  # round(3 x 0.34) = 1 game held out
    assert len(train) + len(held) == data.n and len(train) and len(held)
    assert not set(data.game[train]) & set(data.game[held]) and len(set(data.game[held])) == 1


def test_init_starts_from_the_organism_and_mutated_copies() -> None:
    genome = layout_genome("paper")
    start = genome.random_bits(np.random.default_rng(7))[0]
    objective = MoveAgreement(np.zeros((4, 49)), np.ones(4), np.full(4, np.nan), np.array([0, 2, 4]), np.array([0, 3]))
    ev = Evolution(genome, objective, np.array([0, 1]), np.array([], dtype=np.int64),
                   GASettings(population=20, generations=0, mutation=0.02), initial=start)
    ev.step()
    assert np.array_equal(ev.population[0], start)
    flips = (ev.population[1:] != start).sum(axis=1)
    assert flips.mean() > 0 and flips.max() < 0.2 * genome.total_bits  # copies, each a few bits away


def test_evolve_moves_command(tmp_path: Path) -> None:
    pgn = first_games(GAMES / "Tal.pgn", 2, tmp_path / "tal2.pgn")
    with open(pgn, "ab") as fh:  # a malformed game at the end: reported as FILE:LINE, skipped
        lines = pgn.read_bytes().count(b"\n")
        fh.write(b'\r\n[Event "bad"]\r\n[White "Tal, Mihail"]\r\n[Black "X"]\r\n[Result "*"]\r\n\r\n'
                 b'1. e4 e5 2. Ke3 *\r\n')
    env = {"MIMIC_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    common = ["evolve", str(pgn), "--objective", "moves", "--player", "Tal", "--generations", "3", "--population",
              "12", "--sample", "60", "--held-out", "0.5", "--no-progress"]
    run = run_mimic(*common, "--out", str(tmp_path / "a"), env=env)
    assert run.returncode == 0, run.stderr
    assert f"{pgn}:{lines + 2}: " in run.stderr  # the bad game's first line (after one blank line)
    assert "move agreement: training" in run.stdout
    summary = (tmp_path / "a" / "summary.md").read_text()
    assert "agreement of the GA winner" in summary and "log-likelihood of the played move" in summary
    assert "fitted on the training positions" in summary and "1 malformed games skipped" in summary
    organism = json.loads((tmp_path / "a" / "organism.json").read_text())
    assert organism["meta"]["player"] == "Tal"
    Organism.load(tmp_path / "a" / "organism.json")
    # The rich genome, the likelihood loss, starting from the paper winner (its piece-square genes at 0).
    run = run_mimic(*common, "--out", str(tmp_path / "b"), "--genome", "rich", "--moves-loss", "likelihood", "--init",
                    str(tmp_path / "a" / "organism.json"), env=env)
    assert run.returncode == 0, run.stderr
    rich = Organism.load(tmp_path / "b" / "organism.json")
    summary = (tmp_path / "b" / "summary.md").read_text()
    assert rich.layout == "rich" and "nats" in summary
    assert "| genome | rich |" in summary and "pst_knight_d4_mg" in summary
    assert (tmp_path / "b" / "pst.png").stat().st_size > 10_000  # the heat maps of a rich run
    bad = run_mimic(*common, "--out", str(tmp_path / "c"), "--player", "Nobody", env=env)
    assert bad.returncode == 2 and "no positions where 'Nobody' moved" in bad.stderr


def test_init_file_is_validated_and_reencoded(tmp_path: Path) -> None:
    from evolve.ga.run import initial_chromosome

    paper_binary, paper, rich = layout_genome("paper", "binary"), layout_genome("paper"), layout_genome("rich")
    organism = Organism(paper_binary, paper_binary.random_bits(np.random.default_rng(1))[0])
    organism.save(tmp_path / "o.json")
    # Another encoding: the same values, re-encoded into the run's (Gray) genome.
    np.testing.assert_allclose(paper.decode(initial_chromosome(tmp_path / "o.json", paper)[None])[0],
                               organism.weights)
    # A paper organism starts a rich run with its 368 piece-square genes at 0 (their ranges hold 0).
    w = rich.decode(initial_chromosome(tmp_path / "o.json", rich)[None])[0]
    np.testing.assert_allclose(w[:49], organism.weights)
    assert np.abs(w[49:]).max() < 2.0  # 0 to within half a grid step (120 / 63 cp a step)
    # A rich organism does not fit a paper run; a malformed file is refused with its name.
    Organism(rich, rich.random_bits(np.random.default_rng(2))[0]).save(tmp_path / "r.json")
    with pytest.raises(ValueError, match=r"r\.json"):
        initial_chromosome(tmp_path / "r.json", paper)
    (tmp_path / "bad.json").write_text('{"format": "mimic-organism", "genes": 3}')
    with pytest.raises(ValueError, match=r"bad\.json"):
        initial_chromosome(tmp_path / "bad.json", paper)

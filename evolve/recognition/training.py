"""Training (``mimic recognize train``): one clone per player, evolved from the player's games, and a shared organism.

The games (:mod:`evolve.recognition.gameset`), deduplicated, are split, seeded, into training / validation / test
*by game* (both sides of a game are in the same part, so no game's positions are in two parts), and the split is
written to ``DIR/split.json``; with ``test_games`` (``--test-games``) the games of those files are the test games
and the others are split into training and validation only (:func:`game_parts`). With ``max_games`` each player
keeps at most that many training game sides (a seeded choice), by default as many as the player with the fewest
has: equal training data per player; with ``max_held`` at most that many validation and test sides each (a seeded
choice, for large game sets).

One organism per player is evolved by the move-agreement objective of :class:`evolve.ga.objectives.MoveAgreement`
on the player's training sides (the validation sides are its held-out positions), the players in parallel
(:func:`search.runtime.workers.parallel_map`). A *shared* organism is evolved the same way on all players'
training sides together: a baseline that knows every player's strength and nobody's style. Each clone's
normalisation (:mod:`evolve.recognition.measures`) is measured on the validation sides and written with the
clones to ``DIR/recognize.json``. The GA is deterministic in its inputs, so each evolved organism is cached
(``$MIMIC_CACHE/clones``, keyed by its positions, rows, genome and GA settings): a second run reads it back.
Then, unless no feature family is asked for, every kept side's style features are computed
(:mod:`evolve.recognition.vectors`) and the classifier (:mod:`evolve.recognition.classifier`) is fitted on the
training sides, its strength picked on the validation sides, and written to ``DIR/classifier.npz``.

May import numpy, :mod:`organisms`, :mod:`search.runtime`, :mod:`evolve.ga` and the recognition modules below it
(gameset, positions, measures, and the style features and classifier: vectors, profile, classifier).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evolve.ga.evolution import Evolution, GASettings
from evolve.ga.objectives import MoveAgreement
from evolve.recognition.caches import cache_folder
from evolve.recognition.classifier import CLASSIFIER, fit_classifier, save_classifier
from evolve.recognition.families import feature_names
from evolve.recognition.gameset import GameSet, GameSetError, Progress, parse_aliases, read_game_set
from evolve.recognition.measures import position_measures, side_means
from evolve.recognition.positions import Positions, extract_positions, subset
from evolve.recognition.settings import RecognizeSettings
from evolve.recognition.vectors import side_vectors
from organisms import Organism
from organisms.feature_cache import load_keyed_npz, save_keyed_npz
from organisms.genome import layout_genome
from search.runtime.atomic import write_json_atomic
from search.runtime.provenance import provenance
from search.runtime.workers import parallel_map

MANIFEST = "recognize.json"
SPLIT = "split.json"
SHARED = "shared"
"""The shared organism's name in the manifest and its file ``DIR/shared.json``."""

CLONES = "clones"
"""The stage of evolving the organisms; its units are the organisms (one a player, and the shared one)."""


PARTS = ("train", "validation", "test")


def split_games(n: int, validation: float, test: float, seed: int) -> np.ndarray:
    """Each game's part (0 train, 1 validation, 2 test), seeded: a random permutation, the first
    ``round(n · test)`` games to test, the next ``round(n · validation)`` to validation."""
    perm = np.random.default_rng([seed, 0x5EC09]).permutation(n)
    k_test, k_val = round(n * test), round(n * validation)
    part = np.zeros(n, dtype=np.int64)
    part[perm[:k_test]] = 2
    part[perm[k_test:k_test + k_val]] = 1
    return part


def game_parts(gs: GameSet, n_files: int, validation: float, test: float, seed: int) -> np.ndarray:
    """Each game's part (0 train, 1 validation, 2 test): the games of the first ``n_files`` files split by
    :func:`split_games`, the games of the files after them (``--test-games``) all test games. A game in both counts
    once, where it was read first (a training file)."""
    files = np.array(gs.files, dtype=np.int64)
    mine = np.flatnonzero(files < n_files)
    part = np.full(len(gs.games), 2, dtype=np.int64)
    part[mine] = split_games(len(mine), validation, test, seed)
    return part


@dataclass
class Trained:
    """What :func:`train` made: the manifest (also in ``DIR/recognize.json``), the game set, the split and
    the positions of every kept side (training sides beyond ``max_games`` are not kept)."""

    manifest: dict[str, Any]
    games: GameSet
    part: np.ndarray  # per game
    sides: dict[str, dict[str, list[int]]]  # player -> part -> indices into games.sides
    positions: Positions  # of the sides in `order`
    order: list[int]  # the sides extracted, indices into games.sides; positions.side indexes this list
    weights: np.ndarray  # (players, genes) the clones'
    betas: np.ndarray
    shared_weights: np.ndarray | None
    shared_beta: float
    vectors: np.ndarray | None = None  # (sides in `order`, features): the style features, when a classifier was fitted
    vector_names: list[str] = field(default_factory=list)


def _train_one(pos: Positions, train_rows: np.ndarray, held_rows: np.ndarray, layout: str, encoding: str,
               ga: GASettings, loss: str) -> tuple[np.ndarray, float, float, float, float, float]:
    """One clone (runs in a worker): (bits, training loss, held-out loss, β fitted on the training
    positions, training agreement, held-out agreement)."""
    genome = layout_genome(layout, encoding)
    objective = MoveAgreement(pos.features, pos.sign, pos.fixed, pos.offsets, pos.played, loss=loss)
    ev = Evolution(genome, objective, train_rows, held_rows, ga)
    ev.run()
    bits, train_loss, held_loss = ev.winner()
    w = genome.decode(bits[None, :])
    rows = np.intersect1d(train_rows, objective.rows)
    beta = float(objective.log_likelihood(w, rows)[1][0])
    held = np.intersect1d(held_rows, objective.rows)
    agree_held = float(objective.agreement(w, held)[0]) if len(held) else float("nan")
    return bits, train_loss, held_loss, beta, float(objective.agreement(w, rows)[0]), agree_held


def _train_job(job: tuple[Positions, np.ndarray, np.ndarray, str, str, GASettings, str]
               ) -> tuple[np.ndarray, float, float, float, float, float]:
    """:func:`_train_one` of one job's arguments (the work of one task)."""
    return _train_one(*job)


def _clone_key(job: tuple[Positions, np.ndarray, np.ndarray, str, str, GASettings, str]) -> str:
    """The cache key of one clone (:func:`_train_one` is deterministic in its arguments): its positions' arrays,
    the training and held-out rows, the genome layout and encoding, the GA settings (the seed among them), the
    loss."""
    pos, train_rows, held_rows, layout, encoding, ga, loss = job
    digest = hashlib.blake2b(digest_size=20)
    for a in (pos.features, pos.sign, pos.fixed, pos.offsets, pos.played, train_rows, held_rows):
        digest.update(np.ascontiguousarray(a).tobytes())
        digest.update(f"|{a.dtype}{a.shape}".encode())
    digest.update(f"|{layout}|{encoding}|{sorted(asdict(ga).items())}|{loss}|clone-v1".encode())
    return digest.hexdigest()


def _load_clone(folder: Path, key: str) -> tuple[np.ndarray, float, float, float, float, float] | None:
    """A clone :func:`_train_one` made before with the same key (``folder``: ``$MIMIC_CACHE/clones``), or
    ``None``."""
    got = load_keyed_npz(folder / f"clone-{key}.npz", ("bits", "figures"), key)
    if got is None or got["figures"].shape != (5,) or got["bits"].ndim != 1:
        return None
    f = [float(x) for x in got["figures"]]
    return got["bits"], f[0], f[1], f[2], f[3], f[4]


def train(settings: RecognizeSettings, command: str, on_error: Callable[[str], None] | None = None,
          cache_dir: str | Path | None = None, on_progress: Progress | None = None) -> Trained:
    """Read, split, extract and evolve one clone per player (and the shared organism); write DIR (see the
    module docstring). Raises :class:`~evolve.recognition.gameset.GameSetError` naming a player without games.
    ``cache_dir``: the position features' folder, recognition's caches beside it
    (:mod:`evolve.recognition.caches`). ``on_progress`` (stage, done, total) is called as work completes, stage by
    stage: ``games`` (files read), ``positions`` (chunks of game sides resolved), ``features`` (one unit),
    ``clones`` (organisms evolved)."""
    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    out = Path(settings.out)
    aliases = parse_aliases(settings.aliases)
    players = list(settings.players)
    if settings.features:
        settings.style().check()
    gs = read_game_set(settings.games + settings.test_games, players, aliases, exclude=settings.exclude,
                       on_error=on_error, on_progress=on_progress, cache=cache_folder("games", cache_dir))
    missing = [p for p in players if not any(s.player == p for s in gs.sides)]
    if missing:
        raise GameSetError(f"no games of player{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                         f"in {', '.join(settings.games + settings.test_games)}")
    part = game_parts(gs, len(settings.games), settings.validation, settings.test, settings.ga.seed)
    sides: dict[str, dict[str, list[int]]] = {p: {k: [] for k in PARTS} for p in players}
    for i, s in enumerate(gs.sides):
        assert s.player is not None
        sides[s.player][PARTS[part[s.game]]].append(i)
    for p in players:
        if not sides[p]["train"]:
            raise GameSetError(f"player {p!r} has no training games (of {sum(len(v) for v in sides[p].values())} "
                             "game sides; more games or a smaller --test/--validation)")
    counts = [len(sides[p]["train"]) for p in players]
    cap = min(counts) if settings.max_games is None else (settings.max_games or max(counts))
    rng = np.random.default_rng([settings.ga.seed, 0xCA9])
    for p in players:
        kept = sides[p]["train"]
        if len(kept) > cap:
            sides[p]["train"] = sorted(rng.choice(kept, size=cap, replace=False).tolist())
    if settings.max_held is not None:
        held_rng = np.random.default_rng([settings.ga.seed, 0x4E1D])
        for p in players:
            for k in ("validation", "test"):
                if len(sides[p][k]) > settings.max_held:
                    sides[p][k] = sorted(held_rng.choice(sides[p][k], size=settings.max_held, replace=False).tolist())
    order = sorted({i for p in players for k in PARTS for i in sides[p][k]})
    where = {side: j for j, side in enumerate(order)}
    pos = extract_positions(gs, order, settings.skip_plies, settings.genome, settings.jobs, cache_dir,
                            on_progress=on_progress)
    seconds["games, resolved children and features"] = time.perf_counter() - t0

    def rows_of(side_ids: Sequence[int]) -> np.ndarray:
        return np.flatnonzero(np.isin(pos.side, [where[i] for i in side_ids]))

    t0 = time.perf_counter()
    jobs_in: list[tuple[str, Positions, np.ndarray, np.ndarray]] = []
    for p in players:
        rows = rows_of(sides[p]["train"] + sides[p]["validation"])
        sub = subset(pos, rows)
        train_rows = np.flatnonzero(np.isin(rows, rows_of(sides[p]["train"])))
        held_rows = np.flatnonzero(np.isin(rows, rows_of(sides[p]["validation"])))
        if not len(train_rows):
            raise GameSetError(f"player {p!r}: no training positions (games shorter than --skip-plies?)")
        jobs_in.append((p, sub, train_rows, held_rows))
    if settings.shared:
        all_train = [i for p in players for i in sides[p]["train"]]
        all_val = [i for p in players for i in sides[p]["validation"]]
        rows = rows_of(all_train + all_val)
        sub = subset(pos, rows)
        jobs_in.append((SHARED, sub, np.flatnonzero(np.isin(rows, rows_of(all_train))),
                        np.flatnonzero(np.isin(rows, rows_of(all_val)))))
    args = [(sub, tr, he, settings.genome, settings.encoding, settings.ga, settings.moves_loss)
            for _, sub, tr, he in jobs_in]
    folder = cache_folder("clones", cache_dir)
    keys = [_clone_key(job) for job in args]
    got = [_load_clone(folder, key) for key in keys]
    todo = [j for j, g in enumerate(got) if g is None]
    if on_progress is not None:
        on_progress(CLONES, len(args) - len(todo), len(args))
    for j, result in zip(todo, parallel_map(_train_job, [args[j] for j in todo], settings.jobs), strict=True):
        got[j] = result
        save_keyed_npz(folder / f"clone-{keys[j]}.npz", {"bits": result[0], "figures": np.array(result[1:])},
                       ("bits", "figures"), keys[j])
        if on_progress is not None:
            on_progress(CLONES, sum(g is not None for g in got), len(args))
    results = [g for g in got if g is not None]
    seconds["evolution (all organisms)"] = time.perf_counter() - t0

    genome = layout_genome(settings.genome, settings.encoding)
    out.mkdir(parents=True, exist_ok=True)
    entries: dict[str, dict[str, Any]] = {}
    weights = np.zeros((len(players), len(genome.names)))
    betas = np.zeros(len(players))
    shared_w: np.ndarray | None = None
    shared_beta = float("nan")
    for (name, _, tr, he), (bits, train_loss, held_loss, beta, a_train, a_held) in zip(jobs_in, results,
                                                                                          strict=True):
        file = f"{SHARED}.json" if name == SHARED else f"clone-{_file_name(name)}.json"
        organism = Organism(genome, bits, meta={"player": name, "objective": "moves", "moves_loss": settings.moves_loss,
                                                "train_error": train_loss, "held_out_error": held_loss,
                                                "seed": settings.ga.seed, "command": command})
        organism.save(out / file)
        entry = {"organism": file, "train_loss": train_loss, "held_out_loss": held_loss, "beta": beta,
                 "train_agreement": a_train, "validation_agreement": a_held,
                 "train_positions": len(tr), "validation_positions": len(he)}
        if name == SHARED:
            shared_w, shared_beta = organism.weights, beta
            entries[name] = entry
        else:
            i = players.index(name)
            weights[i], betas[i] = organism.weights, beta
            entries[name] = {**entry, "aliases": aliases.get(name, []),
                             **{f"{k}_sides": len(sides[name][k]) for k in PARTS},
                             "train_sides_before_cap": counts[i]}

    # The normalisation: each clone's mean measure on each player's validation sides, averaged over players.
    vals, rows = position_measures(weights, betas, pos, settings.score)
    side_of = pos.side[rows]
    val_groups = [[where[i] for i in sides[p]["validation"]] or [where[i] for i in sides[p]["train"]]
                  for p in players]
    cross = side_means(vals, side_of, val_groups)  # (clones, players)
    normal = np.nanmean(cross, axis=1)
    for i, p in enumerate(players):
        entries[p]["normalisation"] = float(normal[i])
        entries[p]["validation_measure_by_player"] = {q: float(cross[i, j]) for j, q in enumerate(players)}
    no_validation = [p for p in players if not sides[p]["validation"]]
    classifier, vectors = None, None
    if settings.features:
        t0 = time.perf_counter()
        classifier, vectors = _fit_classifier(settings, gs, order, pos, weights, betas, sides, out, cache_dir,
                                              on_progress)
        seconds["style features and classifier"] = time.perf_counter() - t0

    manifest = {"format": "mimic-recognize", "version": 1, "command": command, "provenance": provenance(),
                "settings": {**settings.recorded(), "ga": asdict(settings.ga), "max_games_applied": cap},
                "players": players, "clones": entries, "split": SPLIT, "classifier": classifier,
                "games": {"files": list(settings.games), "test_files": list(settings.test_games),
                          "read": gs.read, "unique": len(gs.games),
                          "duplicates": gs.duplicates, "ambiguous_sides": gs.ambiguous, "malformed": gs.malformed,
                          "parts": {k: int((part == j).sum()) for j, k in enumerate(PARTS)}},
                "positions": int(pos.n), "seconds": seconds,
                "notes": ([f"no validation game sides for {', '.join(no_validation)}: their training sides stand in "
                           "for them in the normalisation"] if no_validation else [])}
    write_json_atomic(out / MANIFEST, manifest)
    split = {"seed": settings.ga.seed, "validation": settings.validation, "test": settings.test,
             "test_games": list(settings.test_games),
             "games": [{"key": gs.keys[g], "source": gs.sources[g], "part": PARTS[part[g]]}
                       for g in range(len(gs.games))],
             "sides": {p: {k: [{"game": gs.keys[gs.sides[i].game], "color": "white" if gs.sides[i].color else "black",
                                "header": gs.sides[i].header, "source": gs.sources[gs.sides[i].game]}
                               for i in sides[p][k]] for k in PARTS} for p in players}}
    write_json_atomic(out / SPLIT, split)
    return Trained(manifest, gs, part, sides, pos, order, weights, betas, shared_w, shared_beta, vectors,
                   feature_names(players, settings.style(run=False)) if settings.features else [])


def _fit_classifier(settings: RecognizeSettings, gs: GameSet, order: list[int], pos: Positions, weights: np.ndarray,
                    betas: np.ndarray, sides: dict[str, dict[str, list[int]]], out: Path,
                    cache_dir: str | Path | None, on_progress: Progress | None) -> tuple[dict[str, Any], np.ndarray]:
    """The style features of every kept side, the classifier fitted on the training sides and its strength picked
    on the validation sides (:mod:`evolve.recognition.classifier`), written to ``DIR/classifier.npz``; its entry
    in the manifest and the features (sides in ``order``, features)."""
    players = list(settings.players)
    style = settings.style()
    x = side_vectors(gs, order, style, pos, weights, betas, settings.jobs, cache_folder("style", cache_dir),
                     on_progress)
    where = {side: j for j, side in enumerate(order)}

    def part(k: str) -> tuple[np.ndarray, np.ndarray]:
        rows = [(where[i], c) for c, p in enumerate(players) for i in sides[p][k]]
        return x[[r for r, _ in rows]].reshape(len(rows), x.shape[1]), np.array([c for _, c in rows], dtype=np.int64)

    clf = fit_classifier(*part("train"), *part("validation"), players, feature_names(players, style), style,
                         on_progress)
    save_classifier(out / CLASSIFIER, clf)
    return {"file": CLASSIFIER, "features": list(style.families), "C": clf.header["C"],
            "validation": clf.header["validation"], "profile_engine": style.param("profile_engine")}, x


def _file_name(name: str) -> str:
    """A player's name as a file name: letters, digits, ``-`` and ``_`` kept, the rest ``_``.

    >>> _file_name("Anand, V")
    'Anand__V'
    """
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)

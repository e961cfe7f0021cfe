"""The ``mimic`` command line: the one place that wires every package together."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evolve.players import PLAYERS
from search.players.spec import PlayerSpec, SpecError
from search.runtime.errors import MimicError

if TYPE_CHECKING:
    from evolve.ga.evolution import GASettings
    from search.games.game import Adjudication, TimeControl
    from search.games.match import MatchSummary
    from search.games.openings import Opening
    from search.games.roundrobin import RoundRobinSummary


def _cmd_uci(args: argparse.Namespace) -> int:
    from evolve.players import make_evaluator
    from search import uci

    try:
        hash_mb = int(args.hash)
    except ValueError:
        hash_mb = 0
    if not 1 <= hash_mb <= uci.MAX_HASH_MB:
        print(f"mimic uci: --hash must be a whole number of MiB within 1..{uci.MAX_HASH_MB}, got {args.hash!r}",
              file=sys.stderr)
        return 2
    _check_book(PLAYERS.parse(args.eval))
    return uci.main(make_evaluator, args.eval, hash_mb=hash_mb)


def _check_book(spec: PlayerSpec) -> None:
    """Raise :class:`SpecError` when the book of ``spec`` cannot be opened (nothing to check without one)."""
    import sqlite3

    from search.book.tree import Book

    if spec.book is None:
        return
    try:
        Book(spec.book.path, readonly=True).close()
    except (OSError, ValueError, sqlite3.Error) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpecError(f"{spec.text!r}: cannot open the book {spec.book.path}: {why}") from exc


def _open_learning(args: argparse.Namespace, prog: str) -> bool:
    """Create the ``--learn`` book when it is missing (a player may read it from the first game); False
    after an error line."""
    import sqlite3

    from search.book.tree import Book

    if args.learn is None:
        return True
    try:
        with Book(args.learn) as book:
            print(f"learning into {args.learn}: {book.game_count()} games, {book.edge_count()} edges so far")
    except (OSError, ValueError, sqlite3.Error) as exc:
        print(f"{prog}: cannot open the book {args.learn}: {exc}", file=sys.stderr)
        return False
    return True


def _learned(args: argparse.Namespace) -> None:
    """The ``--learn`` book's totals after a run (nothing without ``--learn``)."""
    from search.book.tree import Book

    if args.learn is not None:
        with Book(args.learn, readonly=True) as book:
            print(f"book {args.learn}: {book.game_count()} games, {book.edge_count()} edges")


def _cmd_book(args: argparse.Namespace) -> int:
    import sqlite3
    import time

    from search.book.importer import ImportCounts, import_games
    from search.book.tree import Book

    prog = "mimic book import"
    missing = [f for f in args.games if not Path(f).is_file()]
    if missing:
        print(f"{prog}: no such file: {missing[0]}", file=sys.stderr)
        return 2
    last = [0.0]

    def progress(c: ImportCounts) -> None:
        now = time.perf_counter()
        if args.no_progress or now - last[0] < 2.0:
            return
        last[0] = now
        print(f"  {c.file}: {c.read.read} games read, {c.added.games} added, {c.added.edges} edges "
              f"({c.edges_per_second:,.0f} edges/s)", flush=True)

    try:
        book = Book(args.out)
    except (OSError, ValueError, sqlite3.Error) as exc:
        print(f"{prog}: cannot open the book {args.out}: {exc}", file=sys.stderr)
        return 2
    with book:
        before = book.game_count()
        print(f"{args.out}: {before} games in the book; importing {len(args.games)} file(s)"
              + (f", the first {args.max_plies} plies of each game" if args.max_plies else ""), flush=True)
        c = import_games(book, args.games, batch=args.batch, max_plies=args.max_plies, jobs=args.jobs,
                         on_error=lambda msg: print(f"warning: {msg}", file=sys.stderr), on_batch=progress)
        edges = book.edge_count()
    r, a = c.read, c.added
    print(f"games: {r.read} read, {a.games} added, {a.duplicates} skipped as duplicates (already in the book or "
          f"read twice), {r.malformed} malformed (skipped, reported above), {r.unfinished} without a result")
    print(f"edges: {a.edges} visits counted, {a.new} new edges, {a.updated} edges updated; the book holds "
          f"{edges} edges of {before + a.games} games")
    print(f"{c.seconds:.1f} s, {c.edges_per_second:,.0f} edges/s ({a.edges} edges), "
          f"{Path(args.out).stat().st_size:,} bytes")
    return 0


def _cmd_label(args: argparse.Namespace) -> int:
    import shlex

    from mentor.labeller import LabelRun, MentorConfig, find_stockfish, label_samples
    from mentor.samplers import SamplerOptions, SourceError, collect
    from mentor.uci_client import EngineError

    mentor = args.mentor
    if mentor == "stockfish":
        path = find_stockfish()
        if path is None:
            print("mimic label: Stockfish is not installed (apt-get install stockfish), "
                  "or use --mentor builtin", file=sys.stderr)
            return 2
        command: tuple[str, ...] = (path,)
    elif mentor == "builtin":
        command = ()
    else:
        command = (mentor,)
    kind = "builtin" if mentor == "builtin" else "uci"
    depth = args.depth
    if depth is None and args.nodes is None:
        depth = 2 if kind == "builtin" else 10
    if any("=" not in o for o in args.option):
        print("mimic label: --option takes NAME=VALUE", file=sys.stderr)
        return 2
    options = tuple((name, value) for name, _, value in (o.partition("=") for o in args.option))
    try:
        config = MentorConfig(kind, command=command, depth=depth, nodes=args.nodes, hash_mb=args.hash,
                              timeout=args.timeout, options=options)
    except ValueError as exc:
        print(f"mimic label: {exc}", file=sys.stderr)
        return 2
    sampler = SamplerOptions(min_plies=args.min_plies, max_plies=args.max_plies, skip_check=args.no_check,
                             skip_plies=args.skip_plies, per_game=args.per_game, random_move=args.random_move,
                             quiet=args.quiet)
    errors: list[str] = []

    def warn(msg: str) -> None:
        errors.append(msg)
        print(f"warning: {msg}", file=sys.stderr)

    try:
        samples, stats = collect(args.source, args.positions, args.seed, sampler, warn)
    except (SourceError, OSError) as exc:
        print(f"mimic label: {_os_error(exc) if isinstance(exc, OSError) else exc}", file=sys.stderr)
        return 2
    argv = " ".join(shlex.quote(a) for a in sys.argv[1:]) if args.argv is None else args.argv
    run = LabelRun(f"mimic {argv}", tuple(args.source), args.positions, args.seed, args.jobs, args.resume,
                   args.cap, sampler)
    try:
        summary = label_samples(samples, config, args.out, jobs=args.jobs, resume=args.resume, run=run,
                                cap=args.cap, progress=not args.no_progress, sampling=stats.as_dict())
    except FileExistsError as exc:
        print(f"mimic label: {_os_error(exc)}", file=sys.stderr)
        return 2
    except EngineError as exc:
        who = " ".join(command)
        print(f"mimic label: {exc}" if who in str(exc) else f"mimic label: mentor {who}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic label: {_os_error(exc)} (labels written so far are kept; rerun with --resume)",
              file=sys.stderr)
        return 2
    for line in summary.lines():
        print(line)
    for msg in summary.failures[:10]:
        print(f"failed: {msg}", file=sys.stderr)
    return 0 if summary.failed == 0 else 1


def _ga_settings(args: argparse.Namespace) -> GASettings:
    """The GA's settings: those given on the command line, the rest the genome's defaults (the paper's
    for ``--genome paper``, :data:`evolve.ga.evolution.RICH_DEFAULTS` over them for ``--genome rich``)."""
    from dataclasses import fields, replace

    from evolve.ga.evolution import GASettings, rich_defaults

    base = rich_defaults(GASettings()) if args.genome == "rich" else GASettings()
    given = {f.name: getattr(args, f.name) for f in fields(GASettings) if getattr(args, f.name, None) is not None}
    return replace(base, **given)


def _command_line() -> str:
    import shlex

    return "mimic " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _cmd_evolve(args: argparse.Namespace) -> int:
    from evolve.ga.run import RunSettings, evolve, format_outcome

    try:
        settings = RunSettings(labels=args.labels, out=args.out, ga=_ga_settings(args), objective=args.objective,
                               target=args.target, cap=args.cap, held_out=args.held_out, lam=args.lam,
                               checkpoint_every=args.checkpoint_every, jobs=args.jobs, encoding=args.encoding,
                               genome=args.genome, polish=args.polish, player=args.player,
                               skip_plies=args.skip_plies, moves_loss=args.moves_loss, agreement=args.agreement,
                               init=args.init)
    except ValueError as exc:
        print(f"mimic evolve: {exc}", file=sys.stderr)
        return 2
    try:
        outcome = evolve(settings, _command_line(), resume=args.resume, progress=not args.no_progress,
                         report=lambda line: print(f"warning: {line}", file=sys.stderr))
    except ValueError as exc:
        print(f"mimic evolve: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # FileExistsError: a checkpoint is there and --resume was not given
        print(f"mimic evolve: {_os_error(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, FileExistsError) else 1
    for line in format_outcome(outcome):
        print(line)
    print(f"results in {args.out}/ (summary.md, organism.json, logbook.csv, curve.png)")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from evolve.data.dataset import load_dataset
    from evolve.ga.fit import exact_fit
    from organisms import Organism
    from organisms.genome import layout_genome

    try:
        ds = load_dataset(args.labels, args.target, args.cap, args.held_out, args.seed, n_jobs=args.jobs,
                          layout=args.genome)
    except ValueError as exc:
        print(f"mimic fit: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic fit: {_os_error(exc, args.labels)}", file=sys.stderr)
        return 2
    genome = layout_genome(args.genome)
    if args.out and Path(args.out).is_dir():
        print(f"mimic fit: {args.out}: is a directory (--out names the organism file to write)", file=sys.stderr)
        return 2
    print(ds.describe())
    for line in ds.malformed_report():
        print(f"warning: {line}", file=sys.stderr)
    for loss in args.loss:
        fit = exact_fit(ds.features, ds.y, ds.train, ds.held, genome, loss)
        nearest = Organism.from_weights(fit.weights, genome)
        q_train = float(abs(ds.features[ds.train] @ nearest.weights - ds.y[ds.train]).mean())
        q_held = float(abs(ds.features[ds.held] @ nearest.weights - ds.y[ds.held]).mean())
        print(f"{loss.upper()} fit ({fit.method}, {fit.seconds:.2f} s): mean absolute error {fit.train_mae:.2f} cp "
              f"training, "
              f"{fit.held_mae:.2f} cp held out; nearest organism {q_train:.2f} / {q_held:.2f}")
        if args.out:
            path = args.out if len(args.loss) == 1 else args.out.replace(".json", f"-{loss}.json")
            nearest.meta = {"fit": loss, "labels": args.labels, "train_error": fit.train_mae,
                            "held_out_error": fit.held_mae, "command": _command_line(),
                            "exact_weights": dict(zip(genome.names, fit.weights.tolist(), strict=True))}
            try:
                nearest.save(path)
            except OSError as exc:
                print(f"mimic fit: cannot write the organism: {_os_error(exc, path)}", file=sys.stderr)
                return 1
            print(f"  nearest organism written to {path}")
    return 0


def _cmd_deepchess_data(args: argparse.Namespace) -> int:
    from evolve.nets.deepchess_data import DataSettings, extract_positions

    settings = DataSettings(per_game=args.per_game, skip_moves=args.skip_moves, validation=args.validation,
                            test=args.test, seed=args.seed)
    try:
        summary = extract_positions(args.games, args.out, settings, jobs=args.jobs, command=_command_line())
    except ValueError as exc:
        print(f"mimic deepchess-data: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic deepchess-data: {_os_error(exc)}", file=sys.stderr)
        return 1
    for line in summary.errors[:5]:
        print(f"warning: {line}", file=sys.stderr)
    print(f"{summary.positions} balanced positions ({', '.join(f'{v} {k}' for k, v in summary.per_part.items())}) "
          f"from {summary.decisive} decisive of {summary.games} games in {summary.seconds:.1f} s "
          f"({summary.rate:.0f} positions/s); written to {args.out}/positions.npz and positions.json")
    return 0


def _cmd_train_cmp(args: argparse.Namespace) -> int:
    from evolve.nets.deepchess import CmpShape, TrainSettings
    from evolve.nets.deepchess_run import train_cmp

    settings = TrainSettings(shape=CmpShape(pos2vec=tuple(args.pos2vec), top=tuple(args.top)),
                             small=CmpShape(pos2vec=tuple(args.small_pos2vec), top=tuple(args.small_top)),
                             ae_epochs=args.ae_epochs, epochs=args.epochs, distill_epochs=args.distill_epochs,
                             batch=args.batch, lr=args.lr, decay=args.decay, pairs=args.pairs,
                             mirror=not args.no_mirror, keep_best=args.keep_best, seed=args.seed)
    try:
        outcome = train_cmp(args.data, args.out, settings, _command_line(), resume=args.resume, report=print,
                            measure_speed=not args.no_speed)
    except (ValueError, RuntimeError) as exc:
        print(f"mimic train-cmp: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic train-cmp: {_os_error(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, FileExistsError) else 1
    a = outcome.accuracy
    print(f"pair accuracy: comparator {a['big_validation']:.3f} validation, {a['big_test']:.3f} test"
          + (f"; distilled {a['small_validation']:.3f} validation, {a['small_test']:.3f} test"
             if outcome.small_path else ""))
    if outcome.small_path:
        print(f"results in {args.out}/ (cmp.npz, cmp-small.npz, summary.md, curve.png); play them as "
              f"cmp:{outcome.path} or cmp:{outcome.small_path}")
    else:
        print(f"results in {args.out}/ (cmp.npz, summary.md, curve.png); play it as cmp:{outcome.path}")
    return 0


def _cmd_train_moves(args: argparse.Namespace) -> int:
    from evolve.nets.movenet import MoveTrainSettings, train_move_net

    settings = MoveTrainSettings(hidden=args.hidden, epochs=args.epochs, batch=args.batch, lr=args.lr,
                                 held_out=args.held_out, limit=args.limit, jobs=args.jobs, seed=args.seed)
    try:
        outcome = train_move_net(args.labels, args.out, settings, _command_line(), test=args.test, report=print)
    except (ValueError, RuntimeError) as exc:
        print(f"mimic train-moves: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic train-moves: {_os_error(exc)}", file=sys.stderr)
        return 1
    m = outcome.metrics["held-out"]
    print("held-out top-1: " + ", ".join(f"{k} {v['top1']:.3f}" for k, v in m.items()))
    print(f"results in {args.out}/ (movenet.npz, summary.md, curve.png); search with it as "
          f"SPEC@search=prob-net:{outcome.path}")
    return 0


def _cmd_train_net(args: argparse.Namespace) -> int:
    from evolve.nets.giraffe import NetShape, SupervisedSettings
    from evolve.nets.giraffe_run import NetRunSettings, train_net
    from evolve.nets.tdleaf import TDSettings

    try:
        settings = NetRunSettings(
            labels=args.labels, out=args.out,
            shape=NetShape(units=tuple(args.units), hidden=args.hidden),
            supervised=SupervisedSettings(epochs=args.epochs, batch=args.batch, lr=args.lr, seed=args.seed),
            td=TDSettings(iterations=args.td_iterations, games=args.td_games, plies=args.td_plies,
                          nodes=args.td_nodes, lam=args.td_lambda, lr=args.td_lr, cap=args.cap, seed=args.seed),
            target=args.target, cap=args.cap, held_out=args.held_out, seed=args.seed, jobs=args.jobs,
            openings=args.openings, limit=args.limit)
        outcome = train_net(settings, _command_line(), resume=args.resume, progress=not args.no_progress,
                            report=print)
    except (ValueError, RuntimeError) as exc:
        print(f"mimic train-net: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic train-net: {_os_error(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, FileExistsError) else 1
    print(f"held-out error {outcome.held_mae:.1f} cp (predicting the training median: "
          f"{outcome.baselines['median']:.1f} cp); training {outcome.train_mae:.1f} cp")
    print(f"results in {args.out}/ (net.npz, summary.md, curve.png); play it as net:{outcome.path}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from evolve.demo import run_demo

    return run_demo(args.out, jobs=args.jobs, positions=args.positions, progress=not args.no_progress,
                    match_games=args.match_games)


def _openings(args: argparse.Namespace, prog: str) -> list[Opening] | None:
    """The openings of ``--openings`` (default: the shipped set), warnings printed; ``None`` after an error line."""
    from search.games.openings import default_openings_path, load_openings

    errors: list[str] = []
    openings_path = args.openings or default_openings_path()
    try:
        openings = load_openings(openings_path, errors.append)
    except OSError as exc:
        print(f"{prog}: cannot read the openings: {_os_error(exc, openings_path)}", file=sys.stderr)
        return None
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    for msg in errors:
        print(f"warning: {msg}", file=sys.stderr)
    if not openings:
        print(f"{prog}: no usable openings", file=sys.stderr)
        return None
    return openings


def _time_control(args: argparse.Namespace, prog: str) -> TimeControl | None:
    """The ``TimeControl`` of ``--tc``/``--depth``/``--nodes``/``--movetime`` (default 0.1 s a move);
    ``None`` after an error line."""
    from search.games.game import TimeControl

    try:
        if args.tc:
            return TimeControl.parse(args.tc)
        if args.depth or args.nodes or args.movetime:
            return TimeControl(depth=args.depth, nodes=args.nodes, movetime=args.movetime)
        return TimeControl(movetime=0.1)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None


def _adjudication(args: argparse.Namespace) -> Adjudication:
    from search.games.game import Adjudication

    return Adjudication(resign_moves=args.resign_moves, resign_score=args.resign_score,
                        draw_movenumber=args.draw_movenumber, draw_moves=args.draw_moves,
                        draw_score=args.draw_score, max_plies=args.max_plies)


def _cmd_match(args: argparse.Namespace) -> int:
    from evolve.players import make_evaluator
    from search.games.match import MatchSettings, run_match
    from search.games.pgnlog import PgnWriteError

    if not _open_learning(args, "mimic match"):
        return 2
    for spec in (args.a, args.b):
        s = PLAYERS.parse(spec)
        if not s.is_external:
            make_evaluator(s)  # fail now, not in a worker, on a bad organism file
        _check_book(s)
    openings = _openings(args, "mimic match")
    if openings is None:
        return 2
    tc = _time_control(args, "mimic match")
    if tc is None:
        return 2
    sprt = None
    if args.sprt:
        try:
            elo0, elo1, alpha, beta = (float(x) for x in args.sprt.split(","))
        except ValueError:
            print("mimic match: --sprt takes elo0,elo1,alpha,beta", file=sys.stderr)
            return 2
        sprt = (elo0, elo1, alpha, beta)
    settings = MatchSettings(args.a, args.b, games=args.games, jobs=args.jobs, openings=openings, tc=tc,
                             adjudication=_adjudication(args), sprt=sprt, event=args.event, hash_mb=args.hash,
                             learn=args.learn)

    def show(g: object, summary: object) -> None:
        from search.games.game import GameResult
        from search.games.match import MatchSummary

        assert isinstance(g, GameResult) and isinstance(summary, MatchSummary)
        e = summary.elo
        print(f"game {summary.n:4d}/{args.games} round {g.round:>6s}: {g.white} - {g.black} {g.result} "
              f"({g.reason}, {g.plies} plies)   {summary.wins}-{summary.losses}-{summary.draws} "
              f"[{e.score:.3f}]", flush=True)

    from search.runtime.provenance import describe

    print(f"{args.a} vs {args.b}: {args.games} games, time control {tc.pgn()}, {len(openings)} openings, "
          f"{args.jobs} workers; {describe()}")
    try:
        summary = run_match(settings, make_evaluator, args.pgn, args.resume, on_game=show,
                            on_repair=lambda msg: print(f"warning: {msg}", file=sys.stderr))
    except FileExistsError as exc:
        print(f"mimic match: {exc}", file=sys.stderr)
        return 2
    except PgnWriteError as exc:
        print(f"mimic match: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"mimic match: cannot write the PGN: {_os_error(exc, args.pgn)}", file=sys.stderr)
        return 2
    for line in summary.lines():
        print(line)
    if summary.stopped_early:
        print(f"stopped early by the SPRT after {summary.n} games")
    print(_games_line(summary))
    _learned(args)
    return 0


def _games_line(summary: MatchSummary | RoundRobinSummary) -> str:
    """The closing line of a match or round robin: the games this run played, its wall time and their rate (the
    games resumed from the PGN said apart, so a resumed run's rate counts only what it played)."""
    played = summary.n - summary.resumed
    line = f"{played} games in {summary.seconds:.0f} s ({3600 * played / max(summary.seconds, 1e-9):.0f} games/hour)"
    return line + (f", {summary.resumed} more resumed from the PGN: {summary.n} in all" if summary.resumed else "")


def _cmd_games(args: argparse.Namespace) -> int:
    played = _play_games(args, "mimic games")
    if isinstance(played, int):
        return played
    summary, sidecar = played
    for line in summary.lines():
        print(line)
    print(f"{_games_line(summary)}; settings in {sidecar}")
    _learned(args)
    return 0


def _play_games(args: argparse.Namespace, prog: str, gauntlet: bool = False,
                check: Callable[[tuple[str, ...]], str | None] | None = None) -> tuple[RoundRobinSummary, Path] | int:
    """The round robin (or gauntlet) of ``mimic games`` and ``mimic tournament``: check the specs, play the
    games the PGN lacks, keep the sidecar ``OUT.json``; the summary and the sidecar's path, or an exit code
    after an error line. ``check`` sees the players' names before any game and may refuse them (its text)."""
    import json
    import random
    import shutil
    from dataclasses import asdict

    from evolve.players import make_evaluator
    from search.games.pgnlog import PgnWriteError
    from search.games.roundrobin import RoundRobinSettings, default_name, run_round_robin
    from search.runtime.provenance import describe, provenance

    if len(args.players) < 2:
        print(f"{prog}: a round robin needs at least two player specs", file=sys.stderr)
        return 2
    if not _open_learning(args, prog):
        return 2
    specs = []
    for text in args.players:
        try:
            spec = PLAYERS.parse(text)
            if not spec.is_external:
                make_evaluator(spec)  # fail now, not in a worker, on a bad organism file
            _check_book(spec)
        except SpecError as exc:
            print(f"{prog}: bad player spec: {exc}", file=sys.stderr)
            return 2
        if spec.is_external and spec.arg is not None and shutil.which(spec.arg) is None:
            print(f"{prog}: bad player spec {text!r}: no executable {spec.arg}", file=sys.stderr)
            return 2
        specs.append(spec)
    names = ([n.strip() for n in args.names.split(",")] if args.names is not None
             else [default_name(s) for s in specs])
    openings = _openings(args, prog)
    if openings is None:
        return 2
    if args.seed is not None:
        random.Random(args.seed).shuffle(openings)
    tc = _time_control(args, prog)
    if tc is None:
        return 2
    try:
        settings = RoundRobinSettings(players=tuple(s.text for s in specs), names=tuple(names), games=args.games,
                                      jobs=args.jobs, openings=openings, tc=tc, adjudication=_adjudication(args),
                                      event=args.event, hash_mb=args.hash, learn=args.learn, gauntlet=gauntlet)
    except ValueError as exc:
        hint = "; give distinct names with --names" if args.names is None and "name" in str(exc) else ""
        print(f"{prog}: {exc}{hint}", file=sys.stderr)
        return 2
    why = check(settings.names) if check is not None else None
    if why is not None:
        print(f"{prog}: {why}", file=sys.stderr)
        return 2
    # What identifies the game set: a resumed run must play the same players under the same rules.
    identity = {"players": dict(zip(settings.names, settings.players, strict=True)),
                "time_control": tc.pgn(), "adjudication": asdict(settings.adjudication),
                "openings": {"file": str(args.openings) if args.openings else "shipped", "seed": args.seed,
                             "count": len(openings), "first": openings[0].name},
                "event": settings.event, **({"gauntlet": True} if gauntlet else {})}
    sidecar = Path(f"{args.out}.json")
    runs: list[dict[str, object]] = []
    if args.resume and sidecar.exists():
        try:
            old = json.loads(sidecar.read_text())
        except (OSError, ValueError) as exc:
            print(f"{prog}: cannot read {sidecar}: {exc}", file=sys.stderr)
            return 2
        differ = [k for k, v in identity.items() if old.get(k) != v]
        if differ:
            print(f"{prog}: --resume with other {', '.join(differ)} than the games in {args.out} "
                  f"(see {sidecar}); choose another --out", file=sys.stderr)
            return 2
        runs = list(old.get("runs", []))
    runs.append({**provenance(), "games_per_pairing": args.games, "jobs": args.jobs, "hash_mb": args.hash})

    def write_sidecar(played: int | None) -> None:
        record = {**identity, "games_per_pairing": args.games, "games_in_pgn": played,
                  "round": "P.K.C: pairing P (players' order" + ("; a gauntlet: the first player against each "
                           "other" if gauntlet else "") + "), opening K of the pairing, C=1 when the pairing's "
                           "first player has White", "runs": runs}
        tmp = sidecar.with_name(f".{sidecar.name}.tmp")
        tmp.write_text(json.dumps(record, indent=2) + "\n")
        tmp.replace(sidecar)

    pairs = len(settings.pairings)
    total = pairs * args.games

    def show(g: object, summary: object) -> None:
        from search.games.game import GameResult

        assert isinstance(g, GameResult)
        n = getattr(summary, "n", 0)
        print(f"game {n:5d}/{total} round {g.round:>8s}: {g.white} - {g.black} {g.result} "
              f"({g.reason}, {g.plies} plies)", flush=True)

    print(f"{len(specs)} players, {pairs} pairings x {args.games} games, time control {tc.pgn()}, "
          f"{len(openings)} openings, {args.jobs} workers; {describe()}")
    for name, text in zip(settings.names, settings.players, strict=True):
        print(f"  {name}: {text}")
    try:
        if Path(args.out).exists() and Path(args.out).stat().st_size > 0 and not args.resume:
            raise FileExistsError(f"{args.out} exists; pass --resume to continue it, or choose another --out")
        write_sidecar(None)
        summary = run_round_robin(settings, make_evaluator, args.out, args.resume, on_game=show,
                                  on_repair=lambda msg: print(f"warning: {msg}", file=sys.stderr))
        write_sidecar(summary.n)
    except FileExistsError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except PgnWriteError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{prog}: cannot write {_os_error(exc, args.out)}", file=sys.stderr)
        return 2
    return summary, sidecar


def _cmd_tournament(args: argparse.Namespace) -> int:
    from evolve.tournament import nominal_checks, nominal_lines, parse_anchor, rate_games, write_outputs
    from search.games.ratings import RatingError

    prog = "mimic tournament"
    try:
        anchor = parse_anchor(args.anchor) if args.anchor is not None else None
        nominal = [parse_anchor(text, "--nominal") for text in args.nominal]
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2

    def check(names: tuple[str, ...]) -> str | None:
        for option, name in ([("--anchor", anchor[0])] if anchor else []) + [("--nominal", n) for n, _ in nominal]:
            if name not in names:
                return f"{option} {name!r} is not a player's name (names: {', '.join(names)})"
        return None

    played = _play_games(args, prog, gauntlet=args.gauntlet, check=check)
    if isinstance(played, int):
        return played
    summary, sidecar = played
    print(f"{_games_line(summary)}; settings in {sidecar}")
    try:
        ratings = rate_games(summary, anchor=anchor, prior_draws=args.prior_draws, bootstrap=args.bootstrap,
                             seed=args.bootstrap_seed)
    except RatingError as exc:
        print(f"{prog}: no ratings from the games in {args.out}: {exc}", file=sys.stderr)
        return 1
    try:
        written = write_outputs(Path(args.out), ratings, summary, command=_command_line(), nominal=nominal)
    except OSError as exc:
        print(f"{prog}: cannot write {_os_error(exc)}", file=sys.stderr)
        return 1
    for line in [*ratings.table_lines(), *nominal_lines(ratings, nominal_checks(ratings, nominal)), "",
                 "Crosstable (points/games of the row's player against the column's):", *ratings.crosstable_lines()]:
        print(line)
    print("written: " + ", ".join(str(p) for p in written))
    _learned(args)
    return 0


def _cmd_suite(args: argparse.Namespace) -> int:
    from evolve.players import make_evaluator
    from search.games.suite import SuiteCsv, SuiteRow, run_suite, summarize
    from search.players.player import PlayerError, make_player

    spec = PLAYERS.parse(args.engine)
    try:
        make_player(spec, make_evaluator).close()  # fail now, not in a worker, on an engine that cannot start
    except PlayerError as exc:
        print(f"mimic suite: {args.engine}: {exc}", file=sys.stderr)
        return 2
    if args.resume and not args.csv:
        print("mimic suite: --resume needs --csv (the rows already solved are read from it)", file=sys.stderr)
        return 2
    try:  # before any output or CSV: a suite that cannot be read is one line and nothing else
        with open(args.epd, "rb"):
            pass
    except OSError as exc:
        print(f"mimic suite: cannot read the suite: {_os_error(exc, args.epd)}", file=sys.stderr)
        return 2
    errors: list[str] = []
    try:
        out = SuiteCsv(args.csv, resume=args.resume) if args.csv else None
    except (FileExistsError, ValueError) as exc:
        print(f"mimic suite: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mimic suite: cannot write the CSV: {_os_error(exc, args.csv)}", file=sys.stderr)
        return 2
    from search.runtime.provenance import describe

    print(f"{args.epd}: {args.engine} at {args.movetime:g} s/position; {describe()}", flush=True)
    if out is not None and out.done:
        print(f"resuming: {len(out.done)} positions already in {args.csv}", flush=True)

    def row(r: SuiteRow) -> None:
        if out is not None:
            try:
                out.append(r)
            except OSError as exc:
                raise SuiteWriteError(exc) from exc
        if args.verbose:
            print(r, flush=True)

    try:
        rows = run_suite(args.epd, args.engine, args.movetime, make_evaluator, jobs=args.jobs, limit=args.limit,
                         on_error=errors.append, on_row=row, skip=out.keys() if out is not None else ())
    except SuiteWriteError as exc:
        print(f"mimic suite: cannot write the CSV: {_os_error(exc.error, args.csv)}; --resume continues",
              file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"mimic suite: cannot read the suite: {_os_error(exc, args.epd)}", file=sys.stderr)
        return 2
    except PlayerError as exc:
        print(f"mimic suite: {args.engine}: {exc}", file=sys.stderr)
        return 1
    finally:
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
    for msg in errors:
        print(f"warning: {msg}", file=sys.stderr)
    s = summarize((out.done if out is not None else []) + rows)
    print(f"{args.epd}: {args.engine} at {args.movetime:g} s/position: {s.line()}"
          + (f" ({len(errors)} malformed lines skipped)" if errors else ""))
    return 0


def _max_games(text: str) -> int | None:
    if text == "equal":
        return None
    if text == "all":
        return 0
    return _positive_int(text)


def _train_settings(args: argparse.Namespace, out: str) -> object:
    from evolve.recognition.training import TrainSettings

    players = tuple(p.strip() for p in args.players.split(",") if p.strip())
    return TrainSettings(games=tuple(args.games), players=players, out=out, ga=_ga_settings(args),
                         aliases=tuple(args.alias), exclude=tuple(args.exclude), max_games=args.max_games,
                         max_held=args.max_held, validation=args.validation, test=args.test,
                         skip_plies=args.skip_plies, genome=args.genome, encoding=args.encoding,
                         moves_loss=args.moves_loss, score=args.score, shared=not args.no_shared, jobs=args.jobs)


def _cmd_recognize(args: argparse.Namespace) -> int:
    import evolve.recognition as rec

    name = f"mimic recognize {args.action}"

    def warn(msg: str) -> None:
        print(f"warning: {msg}", file=sys.stderr)

    try:
        if args.action == "classify":
            manifest = rec.load_clones(args.dir)[0]
            players = manifest["players"]
            queries = rec.classify(args.dir, args.query, k=args.k, jobs=args.jobs, on_error=warn,
                                   held_out=args.held_out, norm=args.norm)
            against = ("all players' validation game sides" if args.norm == "validation" else
                       "the query file's players (--norm query)")
            print(f"{len(queries)} queries of {args.query} ({'all' if args.k is None else args.k} game sides each), "
                  f"{len(players)} players; score: {manifest['settings']['score']} minus each clone's average on "
                  f"{against} (higher is more like the player)")
            for i, q in enumerate(queries, 1):
                who = q.header + (f" (= {q.player})" if q.player and q.player != q.header else "")
                if not q.positions:
                    print(f"{i:4d}. {who}: no positions (shorter than --skip-plies); {q.sides[0]}")
                    continue
                ranked = ", ".join(f"{p} {q.scores[p]:+.4f}" for p in q.ranking)
                print(f"{i:4d}. {who} [{q.positions} positions; {q.sides[0]}"
                      + (f" +{len(q.sides) - 1}" if len(q.sides) > 1 else "") + f"]: {ranked}")
            if args.csv:
                rec.write_csv(args.csv, queries, players, args.k)
                print(f"per-query scores in {args.csv}")
            known = [q for q in queries if q.player and q.positions]
            if known:
                top1 = sum(q.predicted == q.player for q in known) / len(known)
                top3 = sum(q.player in q.ranking[:3] for q in known) / len(known)
                print(f"top-1 accuracy on the {len(known)} queries whose header names a trained player: {top1:.1%} "
                      f"(top-3 {top3:.1%})")
            return 0
        settings = _train_settings(args, args.out)
        if args.action == "train":
            trained = rec.train(settings, _command_line(), on_error=warn)  # type: ignore[arg-type]
            for p in trained.manifest["players"]:
                c = trained.manifest["clones"][p]
                print(f"{p}: {c['train_sides']} training / {c['validation_sides']} validation / {c['test_sides']} "
                      f"test game sides, {c['train_positions']} training positions; agreement "
                      f"{c['train_agreement']:.1%} training, {c['validation_agreement']:.1%} validation")
            g = trained.manifest["games"]
            print(f"{g['unique']} games ({g['duplicates']} duplicates counted once, {g['malformed']} malformed "
                  f"skipped); clones in {args.out}/ ({rec.MANIFEST}, {rec.SPLIT})")
            return 0
        exp = rec.ExperimentSettings(train=settings, mentor=args.mentor,  # type: ignore[arg-type]
                                     cp_positions=args.cp_positions)
        results = rec.experiment(exp, _command_line(), on_error=warn)
        for k, row in results["k"].items():
            if not row["queries"]:
                print(f"k = {k}: no queries (no player has {k} test game sides)")
                continue
            print(f"k = {k}: {row['queries']} queries, top-1 clones {row['clones'][0]:.1%} (top-3 "
                  f"{row['clones'][1]:.1%}), shared organism {row.get('shared', (float('nan'),))[0]:.1%}, "
                  f"centipawn loss {row['cp_loss'][0]:.1%}, chance {row['chance'][0]:.1%}")
        print(f"results in {args.out}/ (summary.md, confusion.png, accuracy.png, queries-k*.csv)")
        return 0
    except ValueError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{name}: {_os_error(exc)}", file=sys.stderr)
        return 2


def _k(text: str) -> int | None:
    return None if text == "all" else _positive_int(text)


def _add_recognize_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("recognize", help="clone players from their games and tell who played a game",
                       description="Player recognition: train one move-agreement organism per player (train), "
                                   "rank the players for each game side of a PGN file (classify), or train and "
                                   "measure on held-out games beside baselines (experiment).")
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action in ("train", "experiment"):
        a = acts.add_parser(action, help="train the clones" if action == "train" else
                            "train, classify the held-out test game sides at k = 1, 4, 16, all, with baselines")
        a.add_argument("games", nargs="+", metavar="GAMES.pgn", help="PGN files (a game in two files counts once)")
        a.add_argument("--players", required=True, metavar="A,B,...",
                       help="the players: a header equal to a name, or whose surname (before the comma) is it")
        a.add_argument("--out", required=True, metavar="DIR", help="folder for the clones (results/NAME)")
        a.add_argument("--alias", action="append", default=[], metavar="NAME=Header text",
                       help="a header that also names the player NAME (repeatable)")
        a.add_argument("--exclude", action="append", default=[], metavar="Header text",
                       help="a header that names no player, e.g. a namesake sharing a surname (repeatable)")
        a.add_argument("--max-games", type=_max_games, default=None, metavar="N|equal|all",
                       help="training game sides kept per player (default equal: as many as the player with the "
                            "fewest has; all: no cap)")
        a.add_argument("--max-held", type=_positive_int, default=None, metavar="N",
                       help="validation and test game sides kept per player, each (default all): bounds the work "
                            "on a large game set")
        a.add_argument("--validation", type=float, default=0.2, help="share of the games for validation (default 0.2)")
        a.add_argument("--test", type=float, default=0.2, help="share of the games held out for testing (default 0.2)")
        a.add_argument("--skip-plies", type=_non_negative_int, default=10, metavar="N",
                       help="leave out each game's first N plies (default 10)")
        a.add_argument("--moves-loss", choices=("agreement", "likelihood"), default="agreement",
                       help="what each clone's GA minimises (default agreement)")
        a.add_argument("--score", choices=("likelihood", "agreement"), default="likelihood",
                       help="what classification compares: the mean log-likelihood of the played moves (default) "
                            "or the agreement rate, minus the clone's average on all players' validation games")
        a.add_argument("--no-shared", action="store_true", help="do not train the shared organism (a baseline)")
        a.add_argument("--jobs", type=_jobs, default=1, help="worker processes (default 1; -1: every core)")
        _add_backend_arguments(a)
        a.add_argument("--genome", choices=("paper", "rich"), default="paper", help="genome layout (default paper)")
        if action == "experiment":
            a.add_argument("--mentor", default="expert@depth=1", metavar="SPEC",
                           help="centipawn-loss baseline's mentor: one of our evaluators with @depth=N "
                                "(default expert@depth=1)")
            a.add_argument("--cp-positions", type=_positive_int, default=None, metavar="N",
                           help="centipawn-loss baseline: at most N positions a game side (default all)")
        _add_ga_arguments(a, data=False)
        a.set_defaults(func=_cmd_recognize)
    a = acts.add_parser("classify", help="rank the trained players for each game side of a PGN file")
    a.add_argument("dir", metavar="DIR", help="a folder made by recognize train")
    a.add_argument("query", metavar="QUERY.pgn")
    a.add_argument("--k", type=_k, default=1, metavar="N|all",
                   help="game sides a query: groups of N sides with the same player, in file order (default 1)")
    a.add_argument("--csv", default=None, metavar="FILE",
                   help="one row per query: player, predicted, one score column per player")
    a.add_argument("--norm", choices=("validation", "query"), default="validation",
                   help="subtract each clone's average on the trained players' validation sides (default) or on the "
                        "query file's players (for queries from another population: other openings, another era)")
    a.add_argument("--held-out", action="store_true",
                   help="only the games DIR's split did not train or validate on (its test games, and new ones)")
    a.add_argument("--jobs", type=_jobs, default=1, help="worker processes (default 1)")
    _add_backend_arguments(a)
    a.set_defaults(func=_cmd_recognize)


class SuiteWriteError(MimicError):
    """A row could not be appended to the suite CSV (wraps the ``OSError``)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _os_error(exc: OSError, path: object = None) -> str:
    """One line for a failed file operation: the file, then the reason (``strerror``)."""
    name = exc.filename if exc.filename is not None else path
    reason = exc.strerror or str(exc)
    return f"{name}: {reason}" if name is not None and str(name) not in reason else reason


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from exc
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from exc
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from exc
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number at least 0, got {text}")
    return value


def _jobs(text: str) -> int:
    """Worker processes: a positive count, or -1 for every core."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from exc
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (or -1 for every core), got {value}")
    return value


def _add_backend_arguments(p: argparse.ArgumentParser) -> None:
    """Where a parallel command's work runs: this machine's processes or a Dask cluster."""
    p.add_argument("--backend", choices=("local", "dask"), default=None,
                   help="where parallel work runs: local processes (default) or a Dask cluster (needs the "
                        "'cluster' extra; --jobs is then the cluster's thread count); default $MIMIC_BACKEND")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="the Dask scheduler, e.g. tcp://10.0.0.1:8786 (implies --backend dask); "
                        "default $MIMIC_SCHEDULER")


def _spec(text: str) -> str:
    try:
        PLAYERS.parse(text)
    except SpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return text


_SPEC_HELP = "player specs (SPEC, A, B):\n" + PLAYERS.help()


def _add_game_arguments(p: argparse.ArgumentParser, event: str) -> None:
    """The options every game-playing command shares: workers, openings, limits, adjudication, hash, event."""
    p.add_argument("--jobs", type=_jobs, default=1, help="games played at once (worker processes; -1: every core)")
    _add_backend_arguments(p)
    p.add_argument("--openings", default=None, help="EPD or PGN file of openings (default: the shipped balanced set)")
    tc = p.add_mutually_exclusive_group()
    tc.add_argument("--tc", default=None, help="clock: [moves/]seconds[+increment], e.g. 10+0.1")
    tc.add_argument("--movetime", type=float, default=None, help="seconds per move")
    tc.add_argument("--nodes", type=int, default=None, help="nodes per move")
    tc.add_argument("--depth", type=int, default=None, help="plies per move")
    g = p.add_argument_group("adjudication (cutechess-style; 0 disables)")
    g.add_argument("--resign-moves", type=int, default=4)
    g.add_argument("--resign-score", type=int, default=800, help="centipawns")
    g.add_argument("--draw-movenumber", type=int, default=40)
    g.add_argument("--draw-moves", type=int, default=8)
    g.add_argument("--draw-score", type=int, default=10, help="centipawns")
    g.add_argument("--max-plies", type=int, default=400)
    p.add_argument("--hash", type=int, default=16, help="our engines' hash, MiB")
    p.add_argument("--event", default=event)
    p.add_argument("--learn", default=None, metavar="BOOK.sqlite",
                   help="add every finished game to this experience book (created when missing), from the game's "
                        "start position; a player with +book: or deepred: on the same file learns as it plays")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mimic",
        description="Evolve chess evaluation functions by imitating a mentor engine.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("uci", help="run our alpha-beta engine as a UCI engine on stdin/stdout",
                       epilog=_SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Run our alpha-beta engine as a UCI engine on stdin/stdout.")
    p.add_argument("--eval", default="material", type=_spec, metavar="SPEC",
                   help="evaluator player spec, e.g. material or material@depth=4 (default: material)")
    p.add_argument("--hash", default="16", metavar="MB", help="transposition table size, 1-4096 (default 16)")
    p.set_defaults(func=_cmd_uci)

    p = sub.add_parser("label", help="sample positions and label them with a mentor at a fixed depth",
                       description="Sample positions and label them with a mentor engine at a fixed depth, "
                                   "writing an EPD label file as it goes (ce, acd, pv, c9).")
    p.add_argument("--mentor", default="stockfish", metavar="stockfish|builtin|PATH",
                   help="the mentor: Debian's Stockfish (default), our engine with the built-in expert, "
                        "or any UCI engine executable")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, default=None,
                       help="fixed search depth (default 10 for UCI engines, 2 for builtin)")
    limit.add_argument("--nodes", type=int, default=None, help="fixed node count instead of a depth")
    p.add_argument("--positions", type=int, default=1000, help="positions to sample (default 1000)")
    p.add_argument("--source", action="append", default=None, metavar="random|FILE.pgn|FILE.epd",
                   help="where positions come from; repeat to mix sources (split evenly). Default random")
    p.add_argument("--out", required=True, help="label file to write (EPD)")
    p.add_argument("--jobs", type=_jobs, default=1, help="parallel mentor processes (default 1; -1: every core)")
    _add_backend_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--resume", action="store_true", help="continue an existing label file, skipping "
                   "positions already labelled")
    p.add_argument("--hash", type=int, default=16, metavar="MB", help="mentor hash size (default 16)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds per position before a mentor is restarted (default 120)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="UCI option for the mentor")
    p.add_argument("--cap", type=int, default=1500, help="scores beyond this many cp are flagged (default 1500)")
    g = p.add_argument_group("random playouts")
    g.add_argument("--min-plies", type=int, default=8)
    g.add_argument("--max-plies", type=int, default=100)
    g.add_argument("--no-check", action="store_true", help="drop positions where the side to move is in check")
    g = p.add_argument_group("PGN games")
    g.add_argument("--skip-plies", type=int, default=10, help="skip the first N plies of each game (default 10)")
    g.add_argument("--per-game", type=int, default=3, help="positions taken per game (default 3)")
    g.add_argument("--random-move", action="store_true", help="play one random legal move from each position")
    g.add_argument("--quiet", action="store_true", help="keep only quiet positions (no check, no winning capture)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_label, argv=None)

    p = sub.add_parser("evolve", help="evolve an organism against a label file, or a player's games (DEAP GA)",
                       description="Evolve an organism that reproduces the mentor's scores of a label file "
                                   "(--objective mentor or result), or a player's moves in a PGN file (--objective "
                                   "moves --player NAME), and write results (organism.json, logbook.csv, curve.png, "
                                   "summary.md).")
    p.add_argument("labels", help="EPD label file (from mimic label); for --objective moves, a PGN file of games")
    p.add_argument("--out", required=True, help="results folder, e.g. results/NAME")
    _add_ga_arguments(p)
    p.add_argument("--objective", choices=("mentor", "result", "moves"), default="mentor",
                   help="mentor: mean |eval - mentor score| (default); result: sigma(eval/K) against game results; "
                        "moves: agreement with a player's moves (a 1-ply choice over capture-resolved children)")
    m = p.add_argument_group("moves objective", "The positions where --player moved in the PGN file's games.")
    m.add_argument("--player", default=None, metavar="NAME",
                   help="the player: a White/Black header equal to NAME, or whose surname (before the comma) is NAME "
                        "(never a substring; consultation games, 'A/B', only when equal)")
    m.add_argument("--skip-plies", type=_non_negative_int, default=10, metavar="N",
                   help="leave out each game's first N plies (book moves; default 10: from ply 11 on)")
    m.add_argument("--moves-loss", choices=("agreement", "likelihood"), default="agreement",
                   help="what the GA minimises: agreement (1 - the share of positions where the organism chooses the "
                        "played move; default, the paper's) or likelihood (the mean negative log-likelihood of the "
                        "played move under softmax(beta * score), beta fitted per organism); both are reported")
    m.add_argument("--agreement", choices=("count", "squared"), default="count",
                   help="agreement loss: 1 - rate (count, default) or 1 - rate^2 (the paper's squared count; it "
                        "matters only with --selection roulette)")
    p.add_argument("--init", default=None, metavar="ORGANISM.json",
                   help="start from this organism file (its chromosome and population-1 mutated copies) instead of "
                        "random chromosomes")
    p.add_argument("--lambda", dest="lam", type=float, default=60.0,
                   help="result objective: weight exp(-n/lambda), n = plies to the game's end (default 60)")
    p.add_argument("--checkpoint-every", type=_positive_int, default=10, metavar="N",
                   help="generations between checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_evolve)

    _add_recognize_parser(sub)

    p = sub.add_parser("fit", help="the exact-fit ceiling: the same linear model solved by LP or least squares",
                       description="Solve the organism's linear model exactly on a label file (bounded L1 by "
                                   "linear programming, bounded L2 by least squares) and report its errors.")
    p.add_argument("labels")
    p.add_argument("--loss", choices=("l1", "l2"), action="append", default=None, help="l1 (default) or l2; repeatable")
    _add_data_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the held-out split (default 0)")
    p.add_argument("--out", default=None, help="write the nearest organism to this JSON file")
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser("train-net", help="train a Giraffe-style evaluation net: from labels, then TD-Leaf self-play",
                       description="Train a Giraffe-style evaluation net (363 Giraffe features, a per-group first "
                                   "layer, a hidden layer, one output in centipawns) on a label file's mentor "
                                   "scores, then optionally by TD-Leaf(lambda) self-play with our engine; writes "
                                   "net.npz (play it as net:OUT/net.npz), summary.md and curve.png. Needs torch: "
                                   "pip install torch==2.13.0.")
    p.add_argument("labels", help="EPD label file (from mimic label)")
    p.add_argument("--out", required=True, help="results folder, e.g. results/NAME")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights, the split and self-play (default 0)")
    p.add_argument("--limit", type=_positive_int, default=None, help="only the first N label lines")
    g = p.add_argument_group("net")
    g.add_argument("--units", type=_positive_int, nargs=3, default=[19, 44, 26], metavar=("GLOBAL", "PIECE", "SQUARE"),
                   help="first-layer units per feature group (default 19 44 26: Giraffe's 1.0x, 0.2x, 0.2x)")
    g.add_argument("--hidden", type=_positive_int, default=64, help="hidden units (default 64, Giraffe's)")
    g = p.add_argument_group("supervised bootstrap")
    g.add_argument("--epochs", type=_non_negative_int, default=20, help="epochs (default 20)")
    g.add_argument("--batch", type=_positive_int, default=64, help="minibatch (default 64)")
    g.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 0.001)")
    g = p.add_argument_group("TD-Leaf self-play (off unless --td-iterations)")
    g.add_argument("--td-iterations", type=_non_negative_int, default=0, help="iterations (default 0: none)")
    g.add_argument("--td-games", type=_positive_int, default=8, help="games per iteration (default 8)")
    g.add_argument("--td-plies", type=_positive_int, default=12, help="half-moves per game (default 12, Giraffe's)")
    g.add_argument("--td-nodes", type=_positive_int, default=300, help="nodes per search (default 300)")
    g.add_argument("--td-lambda", type=float, default=0.7, help="lambda (default 0.7, Giraffe's)")
    g.add_argument("--td-lr", type=float, default=1e-3, help="SGD learning rate (default 0.001)")
    g.add_argument("--openings", default=None,
                   help="start positions: an EPD file, or a PGN game set (a random point of a random game); "
                        "default: the shipped balanced openings")
    _add_data_arguments(p, genome=False)
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoints")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_train_net)

    p = sub.add_parser("deepchess-data", help="DeepChess training positions from the decisive games of PGN files",
                       description="Draw DeepChess training positions from PGN games with a decisive result: up to "
                                   "--per-game random positions a game, none from the first --skip-moves moves and "
                                   "none whose next move is a capture, labelled with the result; draws unused; games "
                                   "split into training/validation/test (seeded), each part balanced between "
                                   "White and Black wins. Writes OUT/positions.npz (773 bits a position, packed) and "
                                   "OUT/positions.json (provenance).")
    p.add_argument("games", nargs="+", help="PGN files")
    p.add_argument("--out", required=True, help="folder to write positions.npz and positions.json into")
    p.add_argument("--per-game", type=_positive_int, default=10, help="positions a game at most (default 10)")
    p.add_argument("--skip-moves", type=_non_negative_int, default=5,
                   help="moves at the start of a game never drawn (default 5)")
    p.add_argument("--validation", type=float, default=0.1, help="share of games for validation (default 0.1)")
    p.add_argument("--test", type=float, default=0.1, help="share of games for test (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draws and the split (default 0)")
    p.add_argument("--jobs", type=_jobs, default=1, help="files read at once (worker processes; -1: every core)")
    p.set_defaults(func=_cmd_deepchess_data)

    p = sub.add_parser("train-cmp", help="train a DeepChess comparator (Pos2Vec + siamese) and a distilled one",
                       description="Train a DeepChess-style comparator on positions from mimic deepchess-data: "
                                   "Pos2Vec pretrained layer-wise as autoencoders, the siamese comparator on fresh "
                                   "random (White-win, Black-win) pairs every epoch, then a smaller comparator "
                                   "distilled from it. Writes cmp.npz and cmp-small.npz (play them as "
                                   "cmp:OUT/cmp.npz), summary.md and curve.png; resumable per epoch. Needs torch: "
                                   "pip install torch==2.13.0.")
    p.add_argument("data", help="folder (or positions.npz) written by mimic deepchess-data")
    p.add_argument("--out", required=True, help="results folder, e.g. results/NAME")
    g = p.add_argument_group("nets")
    g.add_argument("--pos2vec", type=_positive_int, nargs="+", default=[100, 100, 100],
                   help="Pos2Vec widths after the 773 bits (default 100 100 100; the paper's 600 400 200 100)")
    g.add_argument("--top", type=_positive_int, nargs="+", default=[100, 50],
                   help="hidden widths of the comparator's top (default 100 50; the paper's 400 200 100)")
    g.add_argument("--small-pos2vec", type=_positive_int, nargs="+", default=[64, 32],
                   help="Pos2Vec widths of the distilled comparator (default 64 32)")
    g.add_argument("--small-top", type=_positive_int, nargs="+", default=[32],
                   help="hidden widths of the distilled comparator's top (default 32)")
    g = p.add_argument_group("training")
    g.add_argument("--ae-epochs", type=_non_negative_int, default=3, help="pretraining epochs a layer (default 3)")
    g.add_argument("--epochs", type=_non_negative_int, default=20, help="comparator epochs (default 20)")
    g.add_argument("--keep-best", action="store_true",
                   help="keep the comparator epoch with the best validation pair accuracy (default: the last); "
                        "distillation starts from it")
    g.add_argument("--distill-epochs", type=_non_negative_int, default=10,
                   help="distillation epochs (default 10; 0: no distilled comparator)")
    g.add_argument("--pairs", type=_positive_int, default=None,
                   help="pairs an epoch, each in both orders (default: as many as the smaller class)")
    g.add_argument("--batch", type=_positive_int, default=256, help="minibatch (default 256)")
    g.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 0.001)")
    g.add_argument("--decay", type=float, default=0.98, help="learning rate factor an epoch (default 0.98)")
    g.add_argument("--no-mirror", action="store_true",
                   help="train on the positions only, not also on their colour mirrors")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and of every draw (default 0)")
    p.add_argument("--no-speed", action="store_true", help="skip the search-speed measurement")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    p.set_defaults(func=_cmd_train_cmp)

    p = sub.add_parser("train-moves", help="train a move-probability net for the probability-limited search",
                       description="Train a move-probability net (Giraffe's optional source of move probabilities) "
                                   "on the mentor's best moves (the first PV move of every label): softmax over "
                                   "the legal moves, cross-entropy. Writes movenet.npz (search with it as "
                                   "SPEC@search=prob-net:OUT/movenet.npz), summary.md (top-1, top-3 and "
                                   "log-likelihood of the mentor's move for the net, the static heuristic and "
                                   "the uniform distribution) and curve.png. Needs torch: pip install "
                                   "torch==2.13.0.")
    p.add_argument("labels", help="label file (EPD with pv), e.g. results/x/labels.epd")
    p.add_argument("--out", required=True, help="results folder, e.g. results/NAME")
    p.add_argument("--test", default=None, help="another label file to measure on (e.g. positions of other games)")
    p.add_argument("--hidden", type=_positive_int, default=32, help="hidden units (default 32)")
    p.add_argument("--epochs", type=_positive_int, default=8, help="epochs (default 8)")
    p.add_argument("--batch", type=_positive_int, default=256, help="positions a minibatch (default 256)")
    p.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate (default 0.003)")
    p.add_argument("--held-out", type=float, default=0.1, help="share of positions held out (default 0.1)")
    p.add_argument("--limit", type=_positive_int, default=None, help="only the first N label lines")
    p.add_argument("--jobs", type=_jobs, default=1, help="worker processes for the features (default 1; -1: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights, the split and the order (default 0)")
    p.set_defaults(func=_cmd_train_moves)

    p = sub.add_parser("match", help="a match between two players, with Elo statistics",
                       epilog=_SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Play a match between two player specs: paired openings (each played twice, "
                                   "colours swapped), parallel games, adjudication, PGN, Elo with a 95% interval, "
                                   "LOS, pentanomial pairs and an optional SPRT.")
    p.add_argument("a", type=_spec, metavar="A", help="player spec, e.g. organism:results/x/organism.json")
    p.add_argument("b", type=_spec, metavar="B", help="player spec, e.g. uci:/usr/games/stockfish?Skill%%20Level=0")
    p.add_argument("--games", type=_positive_int, default=20)
    p.add_argument("--pgn", default=None, help="write every game here (appended as games finish)")
    p.add_argument("--resume", action="store_true", help="continue a match whose games are in --pgn")
    p.add_argument("--sprt", default=None, metavar="ELO0,ELO1,ALPHA,BETA", help="stop early on a decision")
    _add_game_arguments(p, "mimic match")
    p.set_defaults(func=_cmd_match)

    p = sub.add_parser("games", help="a game set: a round robin between player specs, one PGN",
                       epilog=_SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Play a round robin between player specs (every pairing plays each opening "
                                   "twice, colours swapped, as in match) and write every game to one PGN whose "
                                   "White/Black headers hold the players' names; settings and provenance go to "
                                   "OUT.json beside it. Resumable: rerun with --resume (and more --games) to play "
                                   "only the games the PGN lacks.")
    p.add_argument("players", nargs="+", metavar="SPEC", help="player specs (at least two)")
    p.add_argument("--out", required=True, help="the PGN to write (appended as games finish)")
    p.add_argument("--names", default=None, metavar="A,B,...",
                   help="header names, one per SPEC, comma-separated (default: readable names from the specs)")
    p.add_argument("--games", type=_positive_int, default=2, help="games per pairing (default 2)")
    p.add_argument("--seed", type=int, default=None, help="shuffle the openings with this seed (default: file order)")
    p.add_argument("--resume", action="store_true", help="continue a game set whose games are in --out")
    _add_game_arguments(p, "mimic games")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser("tournament", help="a round robin or gauntlet with jointly fitted Elo ratings",
                       epilog=_SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Play a round robin (or, with --gauntlet, the first player against each other) "
                                   "between player specs at one time control, as mimic games does (one PGN, "
                                   "resumable with --resume), then fit every player's Elo jointly from all games "
                                   "(Bradley-Terry maximum likelihood, a draw half a win and half a loss, as Ordo) "
                                   "with 95% bootstrap intervals, and write summary.md, ratings.json and "
                                   "ratings.png beside the PGN.")
    p.add_argument("players", nargs="+", metavar="SPEC", help="player specs (at least two)")
    p.add_argument("--out", required=True, help="the PGN to write (appended as games finish); the summary, "
                                                "ratings.json and ratings.png go to its folder")
    p.add_argument("--names", default=None, metavar="A,B,...",
                   help="header names, one per SPEC, comma-separated (default: readable names from the specs)")
    p.add_argument("--games", type=_positive_int, default=2, help="games per pairing (default 2)")
    p.add_argument("--gauntlet", action="store_true", help="only the first player's pairings")
    p.add_argument("--anchor", default=None, metavar="NAME=ELO",
                   help="fix this player's rating (its header name); default: the ratings' mean is 0")
    p.add_argument("--nominal", action="append", default=[], metavar="NAME=ELO",
                   help="a player's nominal rating (e.g. a second anchor engine's UCI_Elo), checked against its "
                        "fitted 95%% interval in summary.md; repeatable")
    p.add_argument("--prior-draws", type=_non_negative_float, default=0.2, metavar="D",
                   help="virtual draws added to every pair that met (default 0.2), so that a perfect score has a "
                        "finite rating; 0: the plain maximum likelihood")
    p.add_argument("--bootstrap", type=_non_negative_int, default=1000,
                   help="bootstrap resamples of the games for the 95%% intervals (default 1000; 0: none)")
    p.add_argument("--bootstrap-seed", type=int, default=0, help="seed of the resampling (default 0)")
    p.add_argument("--seed", type=int, default=None, help="shuffle the openings with this seed (default: file order)")
    p.add_argument("--resume", action="store_true", help="continue a tournament whose games are in --out")
    _add_game_arguments(p, "mimic tournament")
    p.set_defaults(func=_cmd_tournament)

    p = sub.add_parser("book", help="DeepRed's experience tree: import games into a book (SQLite)",
                       description="The experience book (SQLite, one table of edges per colour, W/D/L from the "
                                   "mover's view) that the +book: layer and the deepred: player choose from.")
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = acts.add_parser("import", help="add every game of PGN files to a book",
                        description="Add every game of the PGN files to the book, each as its path from its start "
                                    "position. Resumable: a game already in the book (same seven-tag roster, start "
                                    "and moves) is skipped, so a killed import run again, or the same files "
                                    "imported twice, count every game once.")
    a.add_argument("games", nargs="+", metavar="GAMES.pgn")
    a.add_argument("--out", required=True, metavar="BOOK.sqlite", help="the book (created when missing)")
    a.add_argument("--max-plies", type=_positive_int, default=None, metavar="N",
                   help="only the first N plies of each game (default: the whole game)")
    a.add_argument("--batch", type=_positive_int, default=1000, metavar="N",
                   help="games per transaction (default 1000): a kill loses at most this many")
    a.add_argument("--jobs", type=_jobs, default=1,
                   help="files read at once in worker processes (default 1; -1: every core); same book either way")
    a.add_argument("--no-progress", action="store_true")
    a.set_defaults(func=_cmd_book)

    p = sub.add_parser("suite", help="solve a test suite (bm/am; STS points)",
                       epilog=_SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Solve the positions of an EPD test suite: counts bm/am successes, scores STS "
                                   "c0 points, and writes a per-position CSV.")
    p.add_argument("epd")
    p.add_argument("--engine", required=True, type=_spec, metavar="SPEC")
    p.add_argument("--movetime", type=float, default=1.0, help="seconds per position (default 1)")
    p.add_argument("--jobs", type=_jobs, default=1, help="worker processes (-1: every core)")
    _add_backend_arguments(p)
    p.add_argument("--limit", type=_positive_int, default=None, help="only the first N positions")
    p.add_argument("--csv", default=None, help="per-position results, written as each position is solved")
    p.add_argument("--resume", action="store_true", help="skip the positions already in --csv and append")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=_cmd_suite)

    p = sub.add_parser("demo", help="the main job on embedded defaults: label, evolve, report",
                       description="Label random positions with the built-in mentor, evolve an organism with the "
                                   "paper's settings, and write results/demo/. Needs nothing installed.")
    p.add_argument("--out", default="results/demo")
    p.add_argument("--positions", type=int, default=2000)
    p.add_argument("--match-games", type=int, default=10, help="games of the closing match (default 10)")
    p.add_argument("--jobs", type=_jobs, default=-1, help="parallel workers (default: all cores)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_demo)
    return parser


def _add_data_arguments(p: argparse.ArgumentParser, genome: bool = True) -> None:
    p.add_argument("--target", choices=("leaf", "root"), default="leaf",
                   help="score the quiet leaf of the mentor's PV (default) or the labelled position itself")
    p.add_argument("--cap", type=int, default=1500, help="leave out labels with |score| above this (cp)")
    p.add_argument("--held-out", type=float, default=0.2, help="share never sampled for fitness (default 0.2)")
    p.add_argument("--jobs", type=_jobs, default=1, help="feature extraction workers (default 1; -1: every core)")
    _add_backend_arguments(p)
    if not genome:
        return
    p.add_argument("--genome", choices=("paper", "rich"), default="paper",
                   help="the genome layout: paper (49 genes, default) or rich (417: those plus signed "
                        "middle-game and endgame piece-square genes, files mirrored)")


def _add_ga_arguments(p: argparse.ArgumentParser, data: bool = True) -> None:
    g = p.add_argument_group("genetic algorithm",
                             "Defaults: the paper's; with --genome rich, the rich genome's where they differ "
                             "(shown as 'rich: ...'; see README). A flag given always wins.")
    g.add_argument("--population", type=int, default=None, help="organisms per generation (default 100)")
    g.add_argument("--generations", type=int, default=None, help="generations (default 300; rich: 3000)")
    g.add_argument("--crossover", type=float, default=None, help="crossover probability per pair (default 0.75)")
    g.add_argument("--crossover-kind", choices=("one-point", "two-point", "uniform"), default=None,
                   help="default two-point; rich: uniform")
    g.add_argument("--mutation-kind", choices=("bit", "gaussian", "uniform"), default=None,
                   help="bit: flip each bit with probability --mutation (default); gaussian: move each gene with "
                        "probability --mutation by a Gaussian step of --mutation-sigma x its range (rich); "
                        "uniform: give each gene with probability --mutation a random other value")
    g.add_argument("--mutation", type=float, default=None,
                   help="mutation probability, per bit (default 0.005) or per gene (rich: 0.01)")
    g.add_argument("--mutation-sigma", type=float, default=None,
                   help="gaussian gene mutation: step's standard deviation as a share of the gene's range "
                        "(default 0.1)")
    g.add_argument("--mutation-sigma-final", type=float, default=None,
                   help="gaussian gene mutation: shrink the step's sigma geometrically from --mutation-sigma to "
                        "this by the last generation (default: no shrinking; rich: 0.005)")
    g.add_argument("--sample", type=int, default=None,
                   help="training positions drawn afresh each generation (default 1000)")
    g.add_argument("--selection", choices=("tournament", "roulette"), default=None, help="default tournament")
    g.add_argument("--tournament", type=int, default=None, help="tournament size (default 3)")
    g.add_argument("--elite", type=int, default=None,
                   help="best organisms copied unchanged to the next generation (default 2)")
    g.add_argument("--hall-of-fame", type=int, default=None, help="default 10")
    if data:  # the memetic polish is mimic evolve's
        g.add_argument("--polish", type=_non_negative_int, default=0,
                       help="memetic option, off by default: after the GA, up to P passes of GreKo's coordinate "
                            "descent from the GA's winner on the training rows; reported beside the pure GA's "
                            "winner (organism.json stays the pure GA's; the polished one is organism-polished.json)")
    g.add_argument("--encoding", choices=("gray", "binary"), default="gray",
                   help="how a gene's bits are read: reflected Gray code (default; the GA ends nearer the exact "
                        "fit) or plain binary (the paper's reading)")
    g.add_argument("--seed", type=int, default=None, help="seed of the run and of the held-out split (default 0)")
    if data:
        _add_data_arguments(p)


def _format_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    """Library warnings on the console as one line: ``warning: FILE:LINE: reason``."""
    return f"warning: {message}\n"


def _enter_backend(args: argparse.Namespace, stack: contextlib.ExitStack) -> bool:
    """Enter the backend that ``--backend``/``--scheduler`` (or the environment) choose for the command;
    on a Dask cluster, ``args.jobs`` becomes the cluster's thread count. False (after a one-line
    message) when the backend cannot run."""
    from search.runtime.workers import BackendError, cluster_threads, resolve_backend, use_backend

    try:
        backend, scheduler = resolve_backend(args.backend, args.scheduler)
        stack.enter_context(use_backend(backend, scheduler))
    except BackendError as exc:
        print(f"mimic {args.command}: {exc}", file=sys.stderr)
        return False
    if backend == "dask":
        threads = cluster_threads()
        print(f"mimic {args.command}: parallel work on the Dask cluster at {scheduler} ({threads} worker threads)",
              file=sys.stderr)
        args.jobs = max(threads, 1)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    warnings.formatwarning = _format_warning
    args = build_parser().parse_args(argv)
    if getattr(args, "source", "unset") is None:
        args.source = ["random"]
    if getattr(args, "loss", "unset") is None:
        args.loss = ["l1"]
    try:
        with contextlib.ExitStack() as stack:
            if hasattr(args, "backend") and not _enter_backend(args, stack):
                return 2
            return int(args.func(args))
    except SpecError as exc:
        print(f"mimic: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file a command did not foresee (its own handlers name the file's role)
        print(f"mimic {args.command}: {_os_error(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

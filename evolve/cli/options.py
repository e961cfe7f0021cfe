"""The options several ``mimic`` commands share, each declared once as an argparse parent parser.

:class:`Parents` makes a fresh parent per command (an argparse parent's actions are shared with its children, so
one command's ``set_defaults`` must not reach another's). Defaults are read from the settings dataclasses that
own them (:class:`~evolve.ga.evolution.GASettings`, :class:`~evolve.ga.run.RunSettings`,
:class:`~search.games.game.Adjudication`, ...), imported only when a command that uses them is built.
May import :mod:`evolve.cli.common` and, inside functions, the libraries whose settings it shows.
"""

from __future__ import annotations

import argparse
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from evolve.cli.common import (
    default,
    jobs,
    non_negative_float,
    non_negative_int,
    positive_float,
    probability,
    scheduler,
    seed_value,
)

if TYPE_CHECKING:
    from evolve.ga.evolution import GASettings


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def player_spec(text: str) -> str:
    """An argparse type: ``text`` if it parses as a player spec (see :data:`evolve.players.PLAYERS`)."""
    from evolve.players import PLAYERS
    from search.players.spec import SpecError

    try:
        PLAYERS.parse(text)
    except SpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return text


def genome_layout(text: str) -> str:
    """An argparse type: ``text`` if it names a layout or has the form of a user layout's spec (the file is loaded
    later, by the command, so its errors are one ``mimic CMD:`` line)."""
    from organisms.userlayout import LayoutError, check_spec

    try:
        return check_spec(text)
    except LayoutError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def spec_help() -> str:
    """The epilog of a command that takes player specs: every kind the registry knows."""
    from evolve.players import PLAYERS

    return "player specs (SPEC, A, B):\n" + PLAYERS.help()


class Parents:
    """Factories of the shared parent parsers; each call makes a fresh one."""

    @staticmethod
    def jobs() -> argparse.ArgumentParser:
        """``--jobs``: worker processes (a command changes its default with ``set_defaults``)."""
        p = _parent()
        p.add_argument("--jobs", type=jobs, default=1,
                       help="worker processes (games, files, positions or organisms handled at once; "
                            "-1: every core)")
        return p

    @staticmethod
    def backend() -> argparse.ArgumentParser:
        """``--backend``/``--scheduler``: where a parallel command's work runs (this machine or a Dask cluster)."""
        p = _parent()
        p.add_argument("--backend", choices=("local", "dask"), default=None,
                       help="where parallel work runs: local processes or a Dask cluster (needs the 'cluster' "
                            "extra; --jobs is then the cluster's thread count); when not given, $MIMIC_BACKEND, "
                            "else local")
        p.add_argument("--scheduler", type=scheduler, default=None, metavar="ADDRESS",
                       help="the Dask scheduler, e.g. tcp://10.0.0.1:8786 (implies --backend dask); when not "
                            "given, $MIMIC_SCHEDULER")
        return p

    @classmethod
    def parallel(cls) -> argparse.ArgumentParser:
        """``--jobs`` and the backend options together."""
        return argparse.ArgumentParser(add_help=False, parents=[cls.jobs(), cls.backend()])

    @staticmethod
    def progress() -> argparse.ArgumentParser:
        p = _parent()
        p.add_argument("--no-progress", action="store_true", help="no progress bar")
        return p

    @staticmethod
    def seed() -> argparse.ArgumentParser:
        """``--seed`` of a run whose every random draw (sampling, split, weights, order) follows one seed."""
        p = _parent()
        p.add_argument("--seed", type=seed_value, default=0,
                       help="seed of the run's random draws (sampling, split, weights, order)")
        return p

    @classmethod
    def data(cls, genome: bool = True) -> argparse.ArgumentParser:
        """The label-file options of ``evolve``, ``fit`` and ``train-net`` (defaults: :class:`RunSettings`)."""
        from evolve.ga.run import RunSettings
        from organisms.features import LAYOUTS

        p = argparse.ArgumentParser(add_help=False, parents=[cls.parallel()])
        p.add_argument("--target", choices=("leaf", "root"), default=default(RunSettings, "target"),
                       help="score the quiet leaf of the mentor's PV or the labelled position itself")
        p.add_argument("--cap", type=non_negative_int, default=default(RunSettings, "cap"),
                       help="leave out labels with |score| above this (cp)")
        p.add_argument("--held-out", type=probability, default=default(RunSettings, "held_out"),
                       help="share never sampled for fitness")
        if genome:
            p.add_argument("--genome", type=genome_layout, default=default(RunSettings, "genome"),
                           metavar="{" + ",".join(LAYOUTS) + ",FILE.py[:NAME],MODULE:NAME}",
                           help="the genome layout: paper (49 genes), rich (417: those plus signed middle-game "
                                "and endgame piece-square genes, files mirrored), or your own: a term file or module "
                                "binding an organisms.userterms.Layout to LAYOUT or NAME (docs/terms.md)")
        return p

    @staticmethod
    def score() -> argparse.ArgumentParser:
        """``--score``: which of a crowd's scores trains (``evolve``, ``fit``, ``train-pnet``)."""
        p = _parent()
        p.add_argument("--score", type=non_negative_int, default=0, metavar="I",
                       help="a crowd's label file (mimic label with several --mentor): 0 trains on ce, the crowd's "
                            "median score; I on the I-th mentor's (c3, in the sidecar's order)")
        return p

    @staticmethod
    def wdl() -> argparse.ArgumentParser:
        """The win-probability loss's options and the quiet-label filter of ``evolve`` and ``fit`` (defaults:
        :class:`RunSettings`; the loss itself, ``--loss``, is each command's)."""
        from evolve.ga.run import RunSettings
        from evolve.ga.wdl import LOGISTIC_SCALE, MODELS, UNKNOWN_PLY

        p = _parent()
        g = p.add_argument_group("win-probability loss (--loss wdl)",
                                 "The organism's eval through sigmoid(eval/K) against the mentor's score through a "
                                 "win-probability model, K fitted on the training rows first (see docs/evolving.md).")
        g.add_argument("--loss-power", type=positive_float, default=default(RunSettings, "loss_power"), metavar="P",
                       help="the error's power, above 1: |sigmoid(eval/K) - p|^P (nnue-pytorch uses 2.5)")
        g.add_argument("--wdl-model", choices=MODELS, default=default(RunSettings, "wdl_model"),
                       help=f"the mentor's win probability: sf15.1 (Stockfish 15.1's WDL model, python-chess's; the "
                            f"ply from the label's fmvn, {UNKNOWN_PLY} when it has none) or logistic "
                            f"(sigmoid(cp/{LOGISTIC_SCALE:.1f}), the Elo curve)")
        g.add_argument("--lambda-result", type=probability, default=default(RunSettings, "lambda_result"),
                       metavar="LAMBDA",
                       help="target = LAMBDA * mentor + (1 - LAMBDA) * game result on labels with a result (c9); "
                            "labels without one keep the mentor's alone")
        p.add_argument("--quiet-labels", action="store_true",
                       help="keep only quiet labels: the labelled position not in check and the mentor's best move "
                            "(the PV's first) not a capture or promotion; labels without a PV are left out too "
                            "(unlike mimic label --quiet, which looks at the position's captures before labelling)")
        return p

    @classmethod
    def ga(cls, data: bool = True) -> argparse.ArgumentParser:
        """The GA's options (defaults: :class:`GASettings`, the rich genome's where :data:`RICH_DEFAULTS`
        differ); with ``data``, the memetic polish and the label-file options too."""
        from evolve.ga.evolution import CROSSOVERS, MUTATIONS, RICH_DEFAULTS, SELECTIONS, GASettings
        from evolve.ga.run import RunSettings

        def shown(name: str, text: str) -> str:
            rich = f"; rich: {RICH_DEFAULTS[name]}" if name in RICH_DEFAULTS else ""
            return f"{text} (default: {default(GASettings, name)}{rich})".replace("%", "%%")

        p = argparse.ArgumentParser(add_help=False, parents=[cls.data()] if data else [])
        g = p.add_argument_group("genetic algorithm",
                                 "Defaults: the paper's; with --genome rich, the rich genome's where they differ "
                                 "(shown as 'rich: ...'; see docs/evolving.md). A flag given always wins.")
        g.add_argument("--population", type=int, default=None,
                       help=shown("population", "organisms per generation"))
        g.add_argument("--generations", type=int, default=None, help=shown("generations", "generations"))
        g.add_argument("--crossover", type=probability, default=None,
                       help=shown("crossover", "crossover probability per pair"))
        g.add_argument("--crossover-kind", choices=list(CROSSOVERS), default=None,
                       help=shown("crossover_kind", "how two chromosomes cross"))
        g.add_argument("--mutation-kind", choices=list(MUTATIONS), default=None,
                       help=shown("mutation_kind", "bit: flip each bit with probability --mutation; gaussian: move "
                                  "each gene with probability --mutation by a Gaussian step of --mutation-sigma x "
                                  "its range; uniform: give each gene with probability --mutation a random other "
                                  "value"))
        g.add_argument("--mutation", type=probability, default=None,
                       help=shown("mutation", "mutation probability, per bit (bit) or per gene (gaussian, uniform)"))
        g.add_argument("--mutation-sigma", type=positive_float, default=None,
                       help=shown("mutation_sigma", "gaussian gene mutation: step's standard deviation as a share "
                                  "of the gene's range"))
        g.add_argument("--mutation-sigma-final", type=positive_float, default=None,
                       help=shown("mutation_sigma_final", "gaussian gene mutation: shrink the step's sigma "
                                  "geometrically from --mutation-sigma to this by the last generation (None: no "
                                  "shrinking)"))
        g.add_argument("--sample", type=int, default=None,
                       help=shown("sample", "training positions drawn afresh each generation"))
        g.add_argument("--selection", choices=list(SELECTIONS), default=None,
                       help=shown("selection", "how parents are chosen"))
        g.add_argument("--tournament", type=int, default=None, help=shown("tournament", "tournament size"))
        g.add_argument("--elite", type=int, default=None,
                       help=shown("elite", "best organisms copied unchanged to the next generation"))
        g.add_argument("--hall-of-fame", type=int, default=None,
                       help=shown("hall_of_fame", "best organisms ever seen, kept aside"))
        g.add_argument("--prior", type=non_negative_float, default=None,
                       help=shown("prior", "pull toward the start (--init), added to the loss: this weight x the "
                                  "mean squared change of the genes in shares of their ranges, so genes the "
                                  "samples hardly see stay where the start put them (0: none)"))
        if data:  # the memetic polish is mimic evolve's
            g.add_argument("--polish", type=non_negative_int, default=default(RunSettings, "polish"),
                           help="memetic option, off at 0: after the GA, up to P passes of GreKo's coordinate "
                                "descent from the GA's winner on the training rows; reported beside the pure GA's "
                                "winner (organism.json stays the pure GA's; the polished one is "
                                "organism-polished.json)")
        g.add_argument("--encoding", choices=("gray", "binary"), default=default(RunSettings, "encoding"),
                       help="how a gene's bits are read: reflected Gray code (the GA ends nearer the exact fit) or "
                            "plain binary (the paper's reading)")
        g.add_argument("--seed", type=seed_value, default=None,
                       help=shown("seed", "seed of the run and of the held-out split"))
        return p


def ga_settings(args: argparse.Namespace) -> GASettings:
    """The GA's settings: those given on the command line, the rest the genome's defaults (the paper's
    for ``--genome paper``, :data:`evolve.ga.evolution.RICH_DEFAULTS` over them for ``--genome rich`` and for a user's
    layout with piece-square genes)."""
    from evolve.ga.evolution import GASettings, rich_defaults
    from organisms.features import has_pst

    base = rich_defaults(GASettings()) if has_pst(args.genome) else GASettings()
    given = {f.name: getattr(args, f.name) for f in fields(GASettings) if getattr(args, f.name, None) is not None}
    return replace(base, **given)

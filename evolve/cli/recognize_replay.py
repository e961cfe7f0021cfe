"""``mimic recognize classify --method replay``: its options and its run (kept beside ``recognize.py`` so that each
method's printing stays in one place), and the query lines and accuracy every classify method prints.
May import :mod:`evolve.recognition` and :mod:`evolve.players`."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from evolve.cli.common import non_negative_int, positive_float, warn

if TYPE_CHECKING:
    from evolve.recognition import Progress
    from evolve.recognition.replay_candidates import Candidate


def add_replay_options(a: argparse.ArgumentParser, what: str = "--method replay") -> None:
    """The options of replay for engines (``what``: when they apply, for the help texts)."""
    a.add_argument("--candidates", "--candidate", action="append", default=[], metavar="NAME=SPEC,...",
                   help=f"{what}: the candidate players, each a name (the PGN header it plays under) and a "
                        "player spec, e.g. SF=uci:/usr/games/stockfish@nodes=2000 (comma-separated; repeatable)")
    a.add_argument("--movetime", type=positive_float, default=0.1, metavar="S",
                   help=f"{what}: seconds a move at most, as in mimic games --movetime (our engine's "
                        "own @depth, @nodes or @movetime apply on top; an external engine's replace it)")
    a.add_argument("--multipv", type=non_negative_int, default=4, metavar="N",
                   help=f"{what}: MultiPV lines a UCI candidate is also asked for on each position, for "
                        "the played move's likelihood (the tie-break, and the score of a randomised candidate); "
                        "0: none")
    a.add_argument("--likelihood", action="append", default=[], metavar="NAME,...",
                   help=f"{what}: candidates scored by the played move's MultiPV likelihood rather than by "
                        "matching moves, as candidates with a randomising option (Skill Level below 20, "
                        "UCI_LimitStrength) are (comma-separated; repeatable)")


def add_ranking_option(a: argparse.ArgumentParser) -> None:
    """``--ranking``, of ``classify --method replay``."""
    from evolve.recognition.replay_scores import RANKINGS

    a.add_argument("--ranking", choices=list(RANKINGS), default="normalised",
                   help="--method replay: " + "; ".join(f"{k}: {v}" for k, v in RANKINGS.items()))


def candidates(args: argparse.Namespace) -> tuple[Candidate, ...]:
    """The candidates of ``--candidates`` (none when not given), checked (one line naming a bad one)."""
    from evolve.players import PLAYERS
    from evolve.recognition.replay_candidates import parse_candidates

    likelihood = [n.strip() for text in args.likelihood for n in text.split(",") if n.strip()]
    return tuple(parse_candidates(args.candidates, PLAYERS, likelihood, warn)) if args.candidates else ()


def classify_replay(args: argparse.Namespace, on_progress: Progress | None) -> int:
    """``recognize classify --method replay``: rank the candidates of each query by their matching share."""
    from evolve.players import PLAYERS
    from evolve.recognition.replay import classify_replay
    from evolve.recognition.replay_scores import BETA, OUTSIDE_CP, RANKINGS, SCORES
    from search.runtime.errors import SettingsError

    if not args.candidates:
        raise SettingsError("--method replay needs --candidates NAME=SPEC,...")
    chosen = candidates(args)
    names = [c.name for c in chosen]
    queries = classify_replay(args.dir, args.query, chosen, PLAYERS, k=args.k, jobs=args.jobs, on_error=warn,
                              held_out=args.held_out, movetime=args.movetime, multipv=args.multipv,
                              on_progress=on_progress, ranking=args.ranking)
    by = {s: [c.name for c in chosen if c.score == s] for s in SCORES}
    normalised = bool(queries and queries[0].offset)
    print(f"{len(queries)} queries of {args.query} ({'all' if args.k is None else args.k} game sides each), "
          f"{len(names)} candidates replayed; score: "
          + "; ".join(f"{', '.join(n)}: {SCORES[s].replace('BETA', f'{BETA:g}')}" for s, n in by.items() if n)
          + f" (then the played move's mean log-likelihood, nats, over {args.multipv} MultiPV lines of UCI "
          f"candidates, other moves {OUTSIDE_CP} cp below the last); ranked by "
          + (RANKINGS["normalised"] if normalised else RANKINGS["raw"])
          + (" (one player in the file: not normalised)" if args.ranking == "normalised" and not normalised
             else ""))

    def ranked(q: Any) -> str:
        def one(n: str) -> str:
            failed = q.failed.get(n, 0)
            if not math.isfinite(q.scores[n]) and failed:
                return f"{n} failed on {failed}"
            text = f"{n} {q.scores[n]:+.1%}" if q.offset else f"{n} {q.scores[n]:.1%}"
            return (text + (f" ({q.likelihood[n]:+.2f})" if math.isfinite(q.likelihood[n]) else "")
                    + (f" [failed on {failed}]" if failed else ""))
        return ", ".join(one(n) for n in q.ranking)

    report_queries(args, queries, names, ranked, "the skipped plies", "per-query scores (matching shares)",
                   "a candidate")
    return 0


def report_queries(args: argparse.Namespace, queries: Sequence[Any], players: Sequence[str],
                   ranked: Callable[[Any], str], skipped: str, csv_what: str, named: str) -> None:
    """What every ``recognize classify`` method prints after its first line: the queries (:func:`print_queries`),
    the CSV (``--csv``, its columns ``players``' scores; ``csv_what`` names them) and the accuracy
    (:func:`print_accuracy`)."""
    import evolve.recognition as rec

    print_queries(queries, ranked, skipped)
    if args.csv:
        rec.write_csv(args.csv, queries, players, args.k)
        print(f"{csv_what} in {args.csv}")
    print_accuracy(queries, named)


def print_queries(queries: Sequence[Any], ranked: Callable[[Any], str], skipped: str) -> None:
    """One line a query of any ``recognize classify`` method: who (the header, and the player it names), its
    positions and first side, then ``ranked(query)``; a query without positions says it is shorter than
    ``skipped``."""
    for i, q in enumerate(queries, 1):
        who = q.header + (f" (= {q.player})" if q.player and q.player != q.header else "")
        if not q.positions:
            print(f"{i:4d}. {who}: no positions (shorter than {skipped}); {q.sides[0]}")
            continue
        print(f"{i:4d}. {who} [{q.positions} positions; {q.sides[0]}"
              + (f" +{len(q.sides) - 1}" if len(q.sides) > 1 else "") + f"]: {ranked(q)}")


def print_accuracy(queries: Sequence[Any], named: str) -> None:
    """Top-1 and top-3 accuracy over the queries whose header names ``named`` (a trained player, a candidate)."""
    known = [q for q in queries if q.player and q.positions]
    if known:
        top1 = sum(q.predicted == q.player for q in known) / len(known)
        top3 = sum(q.player in q.ranking[:3] for q in known) / len(known)
        print(f"top-1 accuracy on the {len(known)} queries whose header names {named}: {top1:.1%} "
              f"(top-3 {top3:.1%})")

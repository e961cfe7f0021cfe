"""``mimic demo`` / ``make demo``: the main job on embedded defaults, needing nothing but Python.

1. Label ``positions`` (2,000) random-playout positions with the built-in mentor (our engine with the
   built-in expert, depth 2), in parallel, into ``OUT/labels.epd``.
2. Evolve an organism against them with the paper's settings (population 100, crossover 0.75,
   mutation 0.005 per bit, 300 generations, 1,000 positions per generation), its genes read as Gray
   codes (mimic's default encoding; the paper read them as plain binary).
3. Write ``OUT/`` (summary.md, organism.json, logbook.csv, curve.png) and report the figures.
4. A short match, the evolved organism against a random one (10 games, 0.1 s a move, paired
   openings), written to ``OUT/match.pgn`` and reported as a table.

Everything is seeded; a second run resumes (labels already in the file are kept, a finished evolution
is read back from its checkpoint), so nothing is recomputed. Every line goes to ``say`` (the command line prints
them); the labelling's progress to ``on_progress`` (done, total).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

from evolve.ga.evolution import GASettings, GenerationRecord
from evolve.ga.run import RunSettings, evolve, format_outcome
from evolve.players import make_evaluator
from mentor.labeller import LabelRun, MentorConfig, label_samples
from mentor.samplers import collect
from organisms.genome import DEFAULT_ENCODING
from search.games.game import TimeControl
from search.games.match import MatchSettings, run_match
from search.games.openings import default_openings_path, load_openings
from search.runtime.provenance import describe

DEMO_SEED = 0
DEMO_DEPTH = 2
MATCH_GAMES = 10
MATCH_MOVETIME = 0.1


def run_demo(say: Callable[[str], None], out: str | Path = "results/demo", jobs: int = -1, positions: int = 2000,
             match_games: int = MATCH_GAMES, on_progress: Callable[[int, int], None] | None = None,
             on_generation: Callable[[GenerationRecord, int, int], None] | None = None) -> int:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = os.cpu_count() or 1 if jobs < 1 else jobs
    labels = out / "labels.epd"
    command = f"mimic demo --out {out} --positions {positions} --jobs {jobs}"
    say(describe())
    say(f"[1/3] labelling {positions} random positions with the built-in mentor (depth {DEMO_DEPTH}, "
          f"{jobs} workers) into {labels}")
    samples, stats = collect(["random"], positions, DEMO_SEED)
    config = MentorConfig("builtin", depth=DEMO_DEPTH)
    run = LabelRun(command, ("random",), positions, DEMO_SEED, jobs, resume=True)
    summary = label_samples(samples, config, labels, jobs=jobs, resume=True, run=run, on_progress=on_progress,
                            sampling=stats.as_dict())
    for line in summary.lines():
        say("  " + line)
    say(f"[2/3] evolving with the paper's settings ({DEFAULT_ENCODING}-coded genes) into {out}/")
    settings = RunSettings(labels=str(labels), out=str(out), ga=GASettings(seed=DEMO_SEED), jobs=jobs,
                           encoding=DEFAULT_ENCODING)
    outcome = evolve(settings, command, resume=True, report=lambda line: say("  " + line), on_generation=on_generation)
    for line in format_outcome(outcome):
        say("  " + line)
    rec = outcome.records
    picks = [g for g in (0, 50, 100, 300) if g < len(rec)]
    say("  best error by generation: " + ", ".join(f"{g}: {rec[g]['best']:.1f} cp" for g in picks))
    evolved, rival = f"organism:{out / 'organism.json'}", "random:1"
    say(f"[3/3] a short match: the evolved organism against a random one ({match_games} games, "
          f"{MATCH_MOVETIME:g} s a move, {jobs} at once) into {out}/match.pgn")
    match_settings = MatchSettings(evolved, rival, games=match_games, jobs=min(jobs, match_games),
                                   openings=load_openings(default_openings_path())[: max(match_games // 2, 1)],
                                   tc=TimeControl(movetime=MATCH_MOVETIME), event="mimic demo")
    match = run_match(match_settings, make_evaluator, out / "match.pgn", resume=True)
    e = match.elo
    elo_text = f"{e.elo:+.0f} +/- {e.error:.0f}" if math.isfinite(e.error) else f"{e.elo:+} (no finite interval)"
    say("")
    say("| player | games | wins | draws | losses | score | Elo vs random:1 |")
    say("|---|---|---|---|---|---|---|")
    say(f"| evolved organism | {match.n} | {match.wins} | {match.draws} | {match.losses} | "
          f"{100 * e.score:.0f}% | {elo_text} |")
    say("")
    say(f"results: {out}/summary.md, organism.json, logbook.csv, curve.png, match.pgn")
    return 0

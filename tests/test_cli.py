"""The command line's layout (issue 22): output folders created, one MimicError line, every default shown in
--help, every command listed, and a command's module imported only when it is the one run."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evolve.cli import build_parser, main
from evolve.cli.common import HelpFormatter
from evolve.cli.table import COMMANDS

CHEAP = ["material@depth=1", "random:1@depth=1"]
"""Two players that finish a game in well under a second (one-ply searches)."""

GAME_OPTIONS = ["--games", "2", "--jobs", "1", "--max-plies", "40"]


def _results(pgn: Path) -> int:
    return pgn.read_text().count("[Result ")


def test_match_pgn_folder_is_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "new" / "deeper" / "match.pgn"
    assert main(["match", *CHEAP, *GAME_OPTIONS, "--pgn", str(pgn)]) == 0
    # --games 2: one opening played twice, colours swapped, so the PGN holds exactly two games.
    assert _results(pgn) == 2
    assert "2 games in" in capsys.readouterr().out


def test_games_out_folder_is_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "set" / "games.pgn"
    assert main(["games", *CHEAP, *GAME_OPTIONS, "--out", str(out)]) == 0
    # Two players make one pairing; --games 2 per pairing: two games.
    assert _results(out) == 2
    sidecar = json.loads((tmp_path / "set" / "games.pgn.json").read_text())  # written whole, atomically
    assert sidecar["games_in_pgn"] == 2
    assert not list((tmp_path / "set").glob(".*tmp*"))  # no temporary file left beside it


def test_tournament_out_folder_is_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t" / "round" / "games.pgn"
    assert main(["tournament", *CHEAP, *GAME_OPTIONS, "--bootstrap", "0", "--out", str(out)]) == 0
    assert _results(out) == 2
    for name in ("summary.md", "ratings.json", "ratings.png", "games.pgn.json"):
        assert (out.parent / name).is_file(), name
    assert json.loads((out.parent / "ratings.json").read_text())["pgn"] == "games.pgn"


@pytest.mark.parametrize("argv, prog", [
    (["match", "organism:/nonexistent/o.json", "material", "--games", "2"], "mimic match"),
    (["suite", "/nonexistent/s.epd", "--engine", "organism:/nonexistent/o.json"], "mimic suite"),
    (["uci", "--eval", "material+book:/nonexistent/b.sqlite"], "mimic uci"),
])
def test_mimic_error_is_one_line_and_exit_2(argv: list[str], prog: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Each names a file that cannot exist: the player spec parses, then loading its file raises a SpecError
    # (a MimicError), which main reports once.
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{prog}: "), err
    assert "/nonexistent/" in err[0]


def _sub_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) \
        -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser under ``parser`` (commands and their actions), with its path of names."""
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _sub_parsers(sub, (*path, name))
    return found


def test_every_default_is_shown_in_help() -> None:
    parsers = _sub_parsers(build_parser())
    checked = 0
    for path, parser in parsers:
        if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
            continue
        assert parser.formatter_class is HelpFormatter, path
        text = " ".join(parser.format_help().split())  # undo the line wrapping
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0:
                continue  # positionals are required; a flag is off unless given
            if action.default in (None, []) or action.default is argparse.SUPPRESS:
                assert action.help, (path, action.option_strings)  # says what happens when not given
                continue
            shown = f"(default: {action.default})"
            assert shown in text, (path, action.option_strings, shown)
            checked += 1
    # The adjudication options and --games of match, games and tournament are among them (6 + 1 each at least).
    assert checked > 3 * 7


def test_ga_options_show_the_settings_defaults() -> None:
    from evolve.ga.evolution import RICH_DEFAULTS, GASettings

    evolve = dict(_sub_parsers(build_parser()))[("evolve",)]
    text = " ".join(evolve.format_help().split())
    # Read from GASettings (paper) and RICH_DEFAULTS (rich), not retyped: 100 organisms, 300 and 3000 generations.
    assert f"organisms per generation (default: {GASettings().population})" in text
    assert f"generations (default: {GASettings().generations}; rich: {RICH_DEFAULTS['generations']})" in text


def test_main_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = "".join(capsys.readouterr().out.split())  # undo the wrapping (which may break at a hyphen)
    for name, command in COMMANDS.items():
        assert name + "".join(command.help.split()) in text, name


def _modules_after(*argv: str) -> set[str]:
    """The modules loaded by a fresh interpreter after ``main(argv)`` (its output discarded)."""
    code = ("import sys, io, contextlib\nfrom evolve.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main({list(argv)!r})\n"
            "print('\\n'.join(sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(run.stdout.split())


def test_only_the_chosen_command_is_imported() -> None:
    heavy = {"torch", "matplotlib", "deap", "evolve.ga.evolution", "evolve.nets.giraffe", "evolve.recognition"}
    command_modules = {c.module for c in COMMANDS.values()}
    listed = _modules_after("--help")
    assert not listed & (command_modules | heavy)
    suite = _modules_after("suite", "--help")
    assert "evolve.cli.suite" in suite
    assert not suite & ((command_modules - {"evolve.cli.suite"}) | heavy)


def test_suite_shows_a_progress_bar_unless_told_not_to(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    epd = tmp_path / "s.epd"
    epd.write_text('r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id "t1";\n'
                   '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "t2";\n')
    argv = ["suite", str(epd), "--engine", "material@depth=1", "--movetime", "0.05"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "solving" in err and "2/2" in err  # two positions in the file: the bar on stderr ends at 2/2
    assert main([*argv, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_recognize_progress_bars_follow_the_library_stages(capsys: pytest.CaptureFixture[str]) -> None:
    """The recognition library reports ``(stage, done, total)``; the command shows one bar a stage on stderr
    and closes it at ``done == total`` (the stages and counts here are the library's, made up by hand)."""
    from evolve.cli.recognize import StageBars, progress_callback

    bars = StageBars()
    for stage, total in (("games", 2), ("positions", 3)):
        for done in range(total + 1):
            bars(stage, done, total)
            assert (bars.bar is None) == (done == total)
    err = capsys.readouterr().err
    assert "games" in err and "2/2" in err and "positions" in err and "3/3" in err
    assert progress_callback(argparse.Namespace(no_progress=True)) is None
    assert isinstance(progress_callback(argparse.Namespace(no_progress=False)), StageBars)


def test_a_closed_standard_output_ends_the_command_quietly() -> None:
    # `mimic genes | head`: the reader has gone before mimic writes. Here no reader ever exists (the pipe's reading
    # end is closed before mimic starts), so its first write fails: the command ends as SIGPIPE ends `cat`, exit
    # 128 + 13 = 141, and says nothing on stderr.
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "evolve.cli", "genes", "--genome", "rich"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")

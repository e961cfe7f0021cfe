"""The examples of README.md and of every page of docs/ stay runnable: every ``mimic`` command they show (fenced, or
in an inline code span) uses only flags its command accepts and gives the options the command requires; the
scripts, make targets and shipped files they name exist; and ``tools/synthetic_games.py`` writes the tests' synthetic
game set, so ``recognize``'s example can be run as written. No example is run here: parsing the pages and the
parser takes well under a second."""

from __future__ import annotations

import argparse
import contextlib
import re
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import chess.pgn
import pytest

from evolve.cli import build_parser
from evolve.recognition.synthetic import NAMES, synthetic_games

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""README.md and every page of docs/, the generated command reference included (its synopses must parse too)."""

PENDING = {"export": "mimic export lands with issue40-export (the branch that adds the command)"}
"""Commands the pages show that another branch adds: their examples are skipped while the parser lacks them, and
checked like every other once it has them."""

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
INPUT_FILE = re.compile(r"\S+\.(pgn|epd|json|npz|sqlite)\b")


def _line_number(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def fenced_commands(text: str) -> list[tuple[int, str]]:
    """Each ``mimic ...`` command of the fenced code blocks, with its first line: a line ending in ``\\`` and
    the indented lines after a command (a synopsis) continue it; ``# comments`` are dropped, and so are the messages
    a command prints (``mimic fit: term ...``)."""
    commands: list[tuple[int, str]] = []
    for block in re.finditer(r"^ *```[^\n]*\n(.*?)^ *```", text, re.S | re.M):
        start = _line_number(text, block.start(1))
        current: list[str] | None = None
        for i, raw in enumerate(textwrap.dedent(block.group(1)).splitlines()):  # a block may sit in a list
            line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
            continues = current is not None and (raw[:1].isspace() or current[-1].endswith("\\"))
            if continues and current is not None:
                current.append(line.strip())
            elif line.startswith("mimic ") and not line.split()[1].endswith(":"):  # not a message (mimic CMD: ...)
                current = [line]
                commands.append((start + i, ""))
            else:
                current = None
            if current is not None:
                commands[-1] = (commands[-1][0], " ".join(current).replace("\\", " "))
    return commands


def inline_commands(text: str) -> list[tuple[int, str]]:
    """Each inline code span that starts with ``mimic`` (it may wrap over lines), leaving out quoted messages
    (``mimic label: cannot reach ...``)."""
    spans = []
    for m in re.finditer(r"`(mimic [^`]+)`", text):
        words = m.group(1).split()
        if not words[1].endswith(":"):
            spans.append((_line_number(text, m.start()), " ".join(words)))
    return spans


def _subcommand(parser: argparse.ArgumentParser, words: list[str]) -> tuple[argparse.ArgumentParser, int]:
    """The parser of the (sub)command that ``words`` (after ``mimic``) name, and how many words name it."""
    used = 0
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or used >= len(words) or words[used] not in subs[0].choices:
            return parser, used
        parser, used = subs[0].choices[words[used]], used + 1


TEXTS = {page.relative_to(ROOT).as_posix(): page.read_text(encoding="utf-8") for page in PAGES}
TEXT = "\n".join(TEXTS.values())
FENCED = [(f"{name}:{line}", command) for name, text in TEXTS.items() for line, command in fenced_commands(text)]
INLINE = [(f"{name}:{line}", command) for name, text in TEXTS.items() for line, command in inline_commands(text)]
PARSER = build_parser()


COMMANDS = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices


def _skip_if_pending(command: str) -> None:
    """Skip an example of a command another branch adds, while this parser lacks it."""
    name = command.split()[1]
    if name in PENDING and name not in COMMANDS:
        pytest.skip(PENDING[name])


def test_the_pages_have_the_examples_this_file_checks() -> None:
    # README.md's five-minute tour is four fenced commands (label, evolve, match, export), then "Learning from
    # Stockfish" four more (datagen, label, evolve, train-pnet); the hand-written pages hold the worked examples and
    # the synopses (Carlsen's two, the synthetic experiment, the two Dask ones, ...); at least 60 in all, so a change
    # in how the pages fence their code cannot leave the checks below with nothing to check.
    assert [c.split()[1] for where, c in FENCED if where.startswith("README.md:")] == [
        "label", "evolve", "match", "export", "datagen", "label", "evolve", "train-pnet"]
    assert len(FENCED) >= 60, FENCED
    assert any(c.startswith("mimic recognize experiment synthetic.pgn") for _, c in FENCED), FENCED
    assert any(c.startswith("mimic evolve carlsen-40.pgn") for _, c in FENCED), FENCED


@pytest.mark.parametrize("where, command", FENCED + INLINE, ids=lambda v: v if ".md:" in v else "")
def test_every_flag_is_accepted_by_its_command(where: str, command: str) -> None:
    _skip_if_pending(command)
    words = command.split()[1:]
    parser, used = _subcommand(PARSER, words)
    assert used >= 1, f"{where}: `{command}` names no mimic command"
    if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
        # A command with actions named without one: only a heading or a mention (`mimic recognize`, `book`).
        assert not FLAG.findall(command), f"{where}: `{command}` names no action"
        return
    known = {s for a in parser._actions for s in a.option_strings}
    unknown = [f for f in FLAG.findall(command) if f not in known]
    assert not unknown, f"{where}: mimic {' '.join(words[:used])} has no {unknown}"


@pytest.mark.parametrize("where, command", FENCED + [(n, c) for n, c in INLINE if INPUT_FILE.search(c)],
                         ids=lambda v: v if ".md:" in v else "")
def test_every_full_command_gives_the_required_options(where: str, command: str) -> None:
    # A fenced command, or an inline one that names its input file, is meant to be run: the options its
    # command requires (--out of evolve, label, recognize train/experiment, ...) must be there.
    _skip_if_pending(command)
    parser, _ = _subcommand(PARSER, command.split()[1:])
    flags = set(FLAG.findall(command))
    missing = [a.option_strings[0] for a in parser._actions
               if a.required and a.option_strings and not flags & set(a.option_strings)]
    assert not missing, f"{where}: `{command}` lacks {missing}"


def test_the_scripts_and_make_targets_named_exist() -> None:
    # `python tools/x.py`, `python benchmarks/x.py`, `bash results/x/run.sh`, `benchmarks/x.py` and `make target`
    # anywhere in the pages (inline or fenced) name a file of the checkout or a target of the Makefile.
    scripts = set(re.findall(r"(?:python3?|bash) ((?:tools|benchmarks|results)/[\w./-]+\.(?:py|sh))", TEXT))
    scripts |= set(re.findall(r"`((?:tools|benchmarks)/[\w/-]+\.py)", TEXT))  # the benchmarks listed by name
    assert {"tools/synthetic_games.py", "results/tournament/run.sh", "tools/make_command_docs.py"} <= scripts
    assert [s for s in sorted(scripts) if not (ROOT / s).is_file()] == []
    targets = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", TEXT, re.M))  # in code: a line's or a span's start
    makefile = (ROOT / "Makefile").read_text()
    assert {"demo", "test", "wheel", "sunfish", "bench-engine"} <= targets
    assert [t for t in sorted(targets) if not re.search(rf"^{re.escape(t)}:", makefile, re.M)] == []


def test_the_example_inputs_are_shipped() -> None:
    # The worked examples read these committed files as written (paths from the checkout's top).
    for path in ("results/recognition-engines/test.pgn", "results/recognition-engines/recognize.json",
                 "data/player-games/Tal.pgn", "data/player-games/Petrosian.pgn", "data/player-games/Carlsen.pgn"):
        assert (ROOT / path).is_file(), path


def test_synthetic_games_tool_writes_the_tests_games(tmp_path: Path) -> None:
    # The tool writes the generator's games (tests/data/synthetic.pgn is synthetic_games(35, plies=26)): a
    # shorter run is a prefix of a longer one because each game draws from one seeded generator in turn, so
    # 3 games from the tool must equal the first 3 of 5 generated here, written as the tests write them.
    out = tmp_path / "new" / "synthetic.pgn"  # a folder that does not exist yet
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "synthetic_games.py"), str(out), "--games", "3",
                          "--plies", "12"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    expected = synthetic_games(5, plies=12)[:3]
    assert out.read_text() == "".join(f"{g}\n\n" for g in expected)
    with out.open() as fh:
        first = chess.pgn.read_game(fh)
    assert first is not None
    # Game g has White = NAMES[g % 2]: game 0 is Alpha (White) against Beta (Black).
    assert (first.headers["White"], first.headers["Black"]) == NAMES
    assert len(list(first.mainline_moves())) == 12  # 12 plies asked; no game ends that early at 1 ply


def test_a_scheduler_address_where_another_server_answers_is_one_clear_error() -> None:
    # docs/cluster.md's Dask example, run as written on a machine where 10.0.0.1:8786 is an HTTP server (a proxy),
    # made `mimic label` die with a traceback: distributed read "HTTP/1.1 400" as a frame length of exabytes
    # (MemoryError). Here a real socket on this machine answers the same way; the backend must refuse in one line.
    pytest.importorskip("distributed", reason="needs the 'cluster' extra (dask[distributed])")
    from search.runtime.workers import BackendError, use_backend

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            with conn:
                conn.recv(1024)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        with pytest.raises(BackendError, match=rf"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:{port}: "
                                               r"the server there does not speak Dask's protocol"), \
                use_backend("dask", f"tcp://127.0.0.1:{port}", timeout=1):
            pass
    finally:
        server.close()
        thread.join(5)


def test_suite_csv_and_book_folders_are_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/playing.md's synopses run with a new folder in the output path: `mimic suite ... --csv DIR/FILE` and
    # `mimic book import ... --out DIR/BOOK.sqlite` refused ("No such file or directory") where every other command
    # creates it.
    from evolve.cli import main

    suite = tmp_path / "wac3.epd"  # WAC's first 3 positions (benchmarks/data/wac.epd), one line each
    suite.write_text("".join((ROOT / "benchmarks" / "data" / "wac.epd").read_text().splitlines(True)[:3]))
    csv_path = tmp_path / "new" / "deeper" / "wac.csv"
    assert main(["suite", str(suite), "--engine", "material@depth=1", "--csv", str(csv_path), "--no-progress"]) == 0
    assert len(csv_path.read_text().splitlines()) == 1 + 3  # a header and one row a position
    pgn = tmp_path / "two.pgn"  # two decisive games of 2 and 4 plies: 6 edge visits, 5 distinct edges (1. e4 twice)
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "0-1"]\n\n1. e4 c5 2. Nf3 d6 0-1\n\n')
    book = tmp_path / "books" / "new" / "b.sqlite"
    assert main(["book", "import", str(pgn), "--out", str(book), "--no-progress"]) == 0
    assert book.is_file()
    assert "6 visits counted, 5 new edges" in capsys.readouterr().out

"""Seeded bursts of UCI commands against ``mimic uci`` sessions, and the checks of the UCI lifecycle (issue 27).

Shared by tests/test_uci_lifecycle.py and benchmarks/uci_bursts.py. A session is either a real ``mimic uci`` process
or the in-process front end (:class:`search.uci.UciFrontEnd`) reading and writing real pipes. A burst is a random
run of ``position``, ``go`` (infinite, depth, nodes, movetime, ponder, clock), ``stop``, ``ponderhit``, ``isready``,
``ucinewgame`` and ``setoption`` lines, written at once or with random small delays, then ``stop`` and ``isready``;
it passes when every ``isready`` got its ``readyok`` and every ``go`` exactly one ``bestmove`` (counted over the
whole session, so a lost or an extra one shows), each within :data:`HANG` seconds.
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.players import PLAYERS
from organisms.movenet import N_MOVE_FEATURES, make_header, save_move_net
from search.book.importer import import_games
from search.book.tree import Book
from search.uci import UciFrontEnd

DATA = Path(__file__).parent / "data"
HANG = 3.0
"""Seconds a reply may take before the session counts as hung (a healthy one answers in milliseconds)."""
POSITIONS = [
    "position startpos",  # in the hand book: 1.d4
    "position startpos moves d2d4",  # in the hand book: 1...d5
    "position startpos moves a2a3 h7h6",  # out of the book: searched
    "position startpos moves e2e4 e7e5 g1f3 b8c6",
    "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # Rd8 mates
    "position fen k7/8/1Q6/8/8/8/8/7K b - - 0 1",  # stalemate: bestmove (none)
]


def hand_book(folder: Path) -> Path:
    """A book that knows 1.d4 (10 games, 9 won) and 1.e4 (3 won) from the start and 1...d5 after 1.d4: positions in
    and out of the book for the book layer, and the book of the DeepRed player."""
    games = [("e4 e5", "1-0")] * 3 + [("d4 d5", "1-0")] * 9 + [("d4 d5", "0-1")]
    pgn = folder / "hand.pgn"
    pgn.write_text("".join(f'[Event "hand"]\n[Round "{i}"]\n[Result "{r}"]\n\n1. {m.split()[0]} {m.split()[1]} {r}\n\n'
                           for i, (m, r) in enumerate(games)))
    path = folder / "hand.sqlite"
    if not path.exists():
        with Book(path) as book:
            import_games(book, [pgn])
    return path


def move_net(folder: Path, hidden: int = 4) -> Path:
    """A tiny move-probability net of random weights (seeded), for ``@search=prob-net``."""
    rng = np.random.default_rng(1)
    arrays = {"w_in": rng.normal(0, 0.5, (N_MOVE_FEATURES, hidden)).astype(np.float32),
              "b_in": rng.normal(0, 0.1, hidden).astype(np.float32),
              "w_out": rng.normal(0, 0.5, (hidden, 1)).astype(np.float32), "b_out": np.zeros(1, np.float32)}
    path = folder / "moves.npz"
    save_move_net(path, arrays, make_header(hidden))
    return path


def player_specs(folder: Path) -> dict[str, str]:
    """Every search kind and player layer, by name: its player spec (files made in ``folder``)."""
    book = hand_book(folder)
    return {
        "depth": "material",
        "prob": "material@search=prob",
        "prob-net": f"material@search=prob-net:{move_net(folder)}",
        "cmp": f"cmp:{DATA / 'material_cmp.npz'}",
        "net": f"net:{DATA / 'material_net.npz'}",
        "book": f"material+book:{book}",
        "deepred": f"deepred:{book}?seed=1",
    }


def burst(rng: random.Random, spec: str) -> list[tuple[float, str]]:
    """A random burst of 3 to 12 lines for a session of ``spec``: (delay before it in seconds, line); in half the
    bursts every delay is 0 (written at once)."""
    at_once = rng.random() < 0.5
    lines = []
    for _ in range(rng.randint(3, 12)):
        r = rng.random()
        if r < 0.18:
            line = rng.choice(POSITIONS)
        elif r < 0.45:
            line = rng.choice(["go infinite", f"go depth {rng.randint(1, 3)}", f"go nodes {rng.randint(50, 1500)}",
                               f"go movetime {rng.randint(1, 25)}", "go ponder", f"go ponder depth {rng.randint(1, 3)}",
                               f"go wtime {rng.randint(50, 2000)} btime {rng.randint(50, 2000)} winc 0 binc 0",
                               "go depth 2 searchmoves a2a3 h2h3"])
        elif r < 0.62:
            line = "stop"
        elif r < 0.70:
            line = "ponderhit"
        elif r < 0.85:
            line = "isready"
        elif r < 0.90:
            line = "ucinewgame"
        else:
            line = rng.choice(["setoption name Hash value " + str(rng.randint(1, 4)), "setoption name Clear Hash",
                               f"setoption name Move Overhead value {rng.randint(0, 50)}",
                               f"setoption name Eval value {spec}"])
        lines.append((0.0 if at_once else rng.uniform(0, 0.004), line))
    return lines


@dataclass
class Tally:
    """What a session's bursts showed: bursts run, bursts that hung, every ``readyok``'s latency (seconds after its
    ``isready`` was written) and the slowest ``bestmove`` after the burst's last ``stop``."""

    bursts: int = 0
    hung: list[str] = field(default_factory=list)
    ready: list[float] = field(default_factory=list)
    slowest_stop: float = 0.0

    @property
    def slowest_ready(self) -> float:
        return max(self.ready, default=0.0)


class Session:
    """One UCI session over real pipes: a ``mimic uci`` process (``command``) or the in-process front end of
    ``spec``. Counts the ``isready``/``go`` lines written and the ``readyok``/``bestmove`` lines read."""

    def __init__(self, spec: str, command: list[str] | None = None) -> None:
        self.spec = spec
        self.replies: queue.Queue[tuple[float, str]] = queue.Queue()
        self.readies: list[float] = []  # when each isready was written
        self.gos = self.bestmoves = self.readyoks = 0
        self.latencies: list[float] = []  # of each readyok, seconds
        self.proc: subprocess.Popen[str] | None = None
        self.front_thread: threading.Thread | None = None
        self._streams: list[io.TextIOBase] = []
        if command is not None:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                         bufsize=1, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self._in: io.TextIOBase = self.proc.stdin
            out: io.TextIOBase = self.proc.stdout
        else:
            r_in, w_in = os.pipe()
            r_out, w_out = os.pipe()
            front_out = open(w_out, "w", encoding="utf-8")  # noqa: SIM115
            front_in = open(r_in, encoding="utf-8")  # noqa: SIM115
            front = UciFrontEnd(PLAYERS, spec, out=front_out)
            self.front_thread = threading.Thread(target=front.run, args=(front_in,), daemon=True)
            self.front_thread.start()
            self._in = open(w_in, "w", encoding="utf-8")  # noqa: SIM115
            out = open(r_out, encoding="utf-8")  # noqa: SIM115
            self._streams = [front_out, front_in]
        self._streams += [self._in, out]
        self._reader = threading.Thread(target=self._read, args=(out,), daemon=True)
        self._reader.start()
        self.write(["uci", "isready"])
        self.settle(HANG * 5)  # the first start loads the nets and the book

    def _read(self, out: io.TextIOBase) -> None:
        for line in out:
            self.replies.put((time.perf_counter(), line.rstrip("\n")))

    def write(self, lines: list[str]) -> None:
        """Write ``lines`` at once (one write call), counting its ``isready`` and ``go`` lines."""
        now = time.perf_counter()
        for line in lines:
            if line == "isready":
                self.readies.append(now)
            self.gos += line.startswith("go")
        self._in.write("".join(line + "\n" for line in lines))
        self._in.flush()

    def _take(self, timeout: float) -> bool:
        """Read one reply (False after ``timeout`` seconds without one), returning the readyok latency seen."""
        try:
            at, line = self.replies.get(timeout=max(timeout, 0))
        except queue.Empty:
            return False
        if line == "readyok":
            self.latencies.append(at - self.readies[self.readyoks])
            self.readyoks += 1
        elif line.startswith("bestmove"):
            self.bestmoves += 1
            self.last_bestmove = at
        return True

    def settle(self, timeout: float = HANG) -> tuple[float, bool]:
        """Read until every isready and go so far is answered: (slowest readyok latency, answered in time)."""
        first = len(self.latencies)
        deadline = time.perf_counter() + timeout
        while self.readyoks < len(self.readies) or self.bestmoves < self.gos:
            if not self._take(deadline - time.perf_counter()):
                break
        slowest = max(self.latencies[first:], default=0.0)
        return slowest, self.bestmoves == self.gos and self.readyoks == len(self.readies)

    def run_burst(self, rng: random.Random, tally: Tally) -> None:
        """One burst, then ``stop`` and ``isready``; records in ``tally`` whether everything was answered."""
        lines = [*burst(rng, self.spec), (0.0, "stop"), (0.0, "isready")]
        chunk: list[str] = []
        for delay, line in lines:
            if delay > 0:
                self.write(chunk)
                chunk = []
                time.sleep(delay)
            chunk.append(line)
        self.write(chunk)
        stopped = time.perf_counter()
        first = len(self.latencies)
        _, ok = self.settle()
        tally.bursts += 1
        tally.ready += self.latencies[first:]
        if self.gos and ok and self.bestmoves:
            tally.slowest_stop = max(tally.slowest_stop, max(self.last_bestmove - stopped, 0.0))
        if not ok:
            tally.hung.append(f"{self.spec}: {' | '.join(line for _, line in lines)} -> readyok {self.readyoks}/"
                              f"{len(self.readies)}, bestmove {self.bestmoves}/{self.gos}")

    def quit(self, rng: random.Random) -> float:
        """Write a last burst cut short by ``quit``; return the seconds until the session ended (the process
        exited, or the front end's ``run`` returned), ``inf`` when it did not within :data:`HANG`."""
        lines = [line for _, line in burst(rng, self.spec)]
        cut = rng.randint(1, len(lines))
        self.write([*lines[:cut], "quit", *lines[cut:]])
        t0 = time.perf_counter()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=HANG)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return float("inf")
        else:
            assert self.front_thread is not None
            self.front_thread.join(HANG)
            if self.front_thread.is_alive():
                return float("inf")
        return time.perf_counter() - t0

    def drain(self, seconds: float = 0.05) -> bool:
        """Read what comes within ``seconds``: True when the counts still match (no late or extra reply)."""
        deadline = time.perf_counter() + seconds
        while self._take(deadline - time.perf_counter()):
            pass
        return self.bestmoves == self.gos and self.readyoks == len(self.readies)

    def close(self) -> None:
        """End the session (after :meth:`quit`): kill the process if it still runs, close the writing ends of the
        pipes (the reader then meets the end of its input), then the reading ends."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()
        writers, readers = self._streams[0::2], self._streams[1::2]  # front_out, front_in, our in, our out
        for stream in writers:
            with contextlib.suppress(OSError):
                stream.close()
        self._reader.join(HANG)
        for stream in readers:
            with contextlib.suppress(OSError):
                stream.close()

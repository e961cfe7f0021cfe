"""The client side of UCI: mimic drives a mentor engine (Stockfish, any UCI engine) to label positions.

Our own engine's server side of the protocol (mimic answering a GUI) is ``search/uci.py``. This is a lean
client for labelling: one engine process, raw pipes, a per-position timeout.

python-chess's ``chess.engine`` runs an asyncio loop, parses every ``info`` line in full (PV moves
included) and synchronises with ``isready`` around each command; for thousands of short searches that
costs about a fifth of the throughput. Here a position costs two writes (``ucinewgame`` + ``position``
+ ``go`` in one) and reading until ``bestmove``; only the last scored ``info`` line is parsed.

``ucinewgame`` before every position clears the engine's hash, so a label depends only on the
position and the depth, never on which positions the same process searched before: runs with any
``--jobs`` and resumed runs give identical labels.

The engine's option list (the ``option name …`` lines it sends after ``uci``) is read at every start: an option
asked for that the engine does not have is refused (:class:`UnknownOption`) before any search, as the engine itself
would only answer ``No such option`` and search at its defaults. A score no engine can mean (beyond every mate bound,
not a number, unparsable: :func:`search.conventions.uci_score_fault`) is that search's failure (:class:`BadScore`),
never a verdict.

May import: the standard library, ``search.conventions`` (the score bounds) and ``search.runtime`` (the exception
root).
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import dataclass

from search.conventions import uci_score_fault
from search.runtime.errors import MimicError, SettingsError


class EngineError(MimicError, RuntimeError):
    """The engine died, hung past its timeout, or spoke something we cannot parse."""


class BadScore(EngineError):
    """The engine's score for a search is beyond every mate bound, not a number or unparsable: the search failed
    (the engine is restarted and the position retried, as for a crash)."""


class UnknownOption(SettingsError):
    """A UCI option asked for that the engine does not list after ``uci``."""


DEFAULT_OPTIONS = {"Threads": "1", "Hash": "16"}
"""Options mimic sets on every engine that has them (an engine without them is left at its own)."""


@dataclass
class Analysis:
    """The engine's verdict. ``score`` centipawns, or ``mate`` in moves (side to move's view)."""

    score: int | None
    mate: int | None
    depth: int
    pv: list[str]  # UCI moves


def parse_info(line: str) -> Analysis | None:
    """The score, depth and PV of a UCI ``info`` line, or ``None`` when it carries no exact score.

    A line malformed elsewhere (``info depth x score cp 5``) is ``None`` too: the caller skips it, as it skips
    bound scores, and falls back on an earlier well-formed line. A score itself that is not a whole number
    (``cp nan``, ``cp abc``) or lies beyond every mate bound (:func:`search.conventions.uci_score_fault`) is
    :class:`BadScore`: the engine is misbehaving, and no earlier line of that search is trusted instead.

    >>> parse_info("info depth 7 score cp -31 nodes 900 pv e2e4 e7e5")
    Analysis(score=-31, mate=None, depth=7, pv=['e2e4', 'e7e5'])
    >>> parse_info("info depth x score cp 5") is None
    True
    >>> parse_info("info depth 3 score cp nan")
    Traceback (most recent call last):
    mentor.uci_client.BadScore: score cp nan is not a whole number
    """
    try:
        return _parse_info(line.split())
    except BadScore:
        raise
    except ValueError:
        return None


def _score_value(kind: str, text: str) -> int:
    """The value of ``score KIND TEXT``, checked (:class:`BadScore` when it cannot be a verdict)."""
    try:
        value = int(text)
    except ValueError:
        raise BadScore(f"score {kind} {text[:40]} is not a whole number") from None
    fault = uci_score_fault(kind, value)
    if fault is not None:
        raise BadScore(fault)
    return value


def _parse_info(tokens: list[str]) -> Analysis | None:
    if "score" not in tokens:
        return None
    score = mate = None
    depth = 0
    pv: list[str] = []
    i = 1
    while i < len(tokens):
        t = tokens[i]
        if t == "depth" and i + 1 < len(tokens):
            depth = int(tokens[i + 1])
            i += 2
        elif t == "score" and i + 2 < len(tokens):
            kind, value = tokens[i + 1], _score_value(tokens[i + 1], tokens[i + 2])
            if kind == "cp":
                score = value
            elif kind == "mate":
                mate = value
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                return None
        elif t == "pv":
            pv = tokens[i + 1:]
            break
        elif t in ("string",):
            return None
        else:
            i += 1
    if score is None and mate is None:
        return None
    return Analysis(score, mate, depth, pv)


def option_name(line: str) -> str | None:
    """The name an engine's ``option name NAME type ...`` line declares (names may hold spaces), else ``None``.

    >>> option_name("option name Skill Level type spin default 20 min -20 max 20"), option_name("uciok")
    ('Skill Level', None)
    """
    if not line.startswith("option name "):
        return None
    name = line[len("option name "):]
    return name.partition(" type ")[0].strip() or None


def parse_final_evaluation(line: str, white_to_move: bool) -> Analysis | None:
    """Stockfish's ``Final evaluation`` line (pawns, White's view) as an :class:`Analysis` in centipawns from the
    side to move's view; ``None`` for ``Final evaluation: none (in check)``.

    >>> parse_final_evaluation("Final evaluation       +0.18 (white side) [with scaled NNUE, ...]", False)
    Analysis(score=-18, mate=None, depth=0, pv=[])
    >>> parse_final_evaluation("Final evaluation: none (in check)", True) is None
    True
    """
    words = line.replace(":", " ").split()
    if len(words) < 3 or words[2] == "none":
        return None
    try:
        white_cp = round(float(words[2]) * 100)
    except (ValueError, OverflowError) as exc:  # not a number, NaN, infinite
        raise BadScore(f"cannot read the static evaluation in {line[:80]!r}") from exc
    fault = uci_score_fault("cp", white_cp)
    if fault is not None:
        raise BadScore(f"static evaluation: {fault}")
    return Analysis(white_cp if white_to_move else -white_cp, None, 0, [])


def check_option(name: str, value: str) -> None:
    """Raise ``ValueError`` for a UCI option that would not reach the engine as one ``setoption`` line.

    A line break inside a name or value would end the command early and send the rest to the engine
    as a command of its own (``Hash=16\\nquit``); so would a Unicode line or paragraph separator (U+2028,
    U+2029) to an engine that splits its input the way Python's ``str.splitlines`` does. Any character that is
    not printable (control characters, NUL, separators) is refused.
    """
    for text in (name, value):
        if not text.isprintable():
            raise SettingsError(f"UCI option {name!r}: a name or value may not contain a line break or another "
                             f"character that is not printable ({text!r})")
    if not name.strip():
        raise SettingsError("UCI option with an empty name")


class UciEngine:
    """One engine process driven over raw pipes."""

    def __init__(self, command: list[str], options: dict[str, str] | None = None,
                 timeout: float = 60.0, defaults: dict[str, str] | None = None) -> None:
        """``options`` are the user's: each must be one the engine lists (:class:`UnknownOption` at :meth:`start`);
        ``defaults`` (:data:`DEFAULT_OPTIONS` and these) are set only on an engine that has them."""
        self.command = command
        self.options = dict(options or {})
        self.defaults = {**DEFAULT_OPTIONS, **(defaults or {})}
        self.timeout = timeout
        for key, value in {**self.defaults, **self.options}.items():
            check_option(key, value)
        self.proc: subprocess.Popen[bytes] | None = None
        self._buf = b""
        self.name = ""
        """The engine's ``id name`` (empty until :meth:`start`, or when it sends none)."""

    # ------------------------------------------------------------------ process
    def start(self) -> None:
        self.close()
        try:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, bufsize=0)
        except OSError as exc:
            raise EngineError(f"cannot start {self.command[0]}: {exc.strerror or exc}") from exc
        self._buf = b""
        self._send("uci\n")
        known: dict[str, str] = {}  # lower-cased name -> the engine's spelling (UCI engines match names so)
        for line in self._lines_until("uciok", self.timeout):
            if line.startswith("id name "):
                self.name = line[8:].strip()
            name = option_name(line)
            if name is not None:
                known[name.lower()] = name
        unknown = [k for k in self.options if k.lower() not in known]
        if unknown:
            self.close()
            who = f"{self.command[0]} ({self.name})" if self.name else self.command[0]
            raise UnknownOption(f"the engine {who} has no UCI option {', '.join(map(repr, unknown))}; its options: "
                                f"{', '.join(known.values()) or 'none'}")
        wanted = {**{k: v for k, v in self.defaults.items() if k.lower() in known}, **self.options}
        chosen = {known[k.lower()]: v for k, v in wanted.items()}  # in the engine's spelling; the user's value wins
        self._send("".join(f"setoption name {k} value {v}\n" for k, v in chosen.items()) + "isready\n")
        for _ in self._lines_until("readyok", self.timeout):
            pass

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(b"quit\n")
                proc.stdin.flush()
                proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()

    # ------------------------------------------------------------------ protocol
    def _send(self, text: str) -> None:
        if self.proc is None or self.proc.stdin is None:
            raise EngineError("engine not started")
        try:
            self.proc.stdin.write(text.encode())
        except (BrokenPipeError, OSError) as exc:
            raise EngineError(f"engine closed its input: {exc}") from exc

    def _lines_until(self, token: str, timeout: float) -> list[str]:
        """Read lines until one starts with ``token`` (included); raise on EOF or timeout."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        buf = self._buf
        while True:
            nl = buf.find(b"\n")
            while nl >= 0:
                line = buf[:nl].decode(errors="replace").rstrip("\r")
                buf = buf[nl + 1:]
                lines.append(line)
                if line.startswith(token):
                    self._buf = buf
                    return lines
                nl = buf.find(b"\n")
            left = deadline - time.monotonic()
            if left <= 0:
                self._buf = buf
                raise EngineError(f"no {token!r} within {timeout:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self._buf = b""
                raise EngineError(f"engine exited (code {self.proc.poll()}) before {token!r}")
            buf += chunk

    def analyse(self, fen: str, depth: int | None = None, nodes: int | None = None,
                movetime: float | None = None, new_game: bool = True) -> Analysis:
        """Search ``fen`` to a fixed depth (or nodes, or time), from a cleared hash (``ucinewgame``) unless ``new_game``
        is false (the next position of the same game: the hash is kept, as a game's searches share it)."""
        self.send_go(fen, depth, nodes, movetime, new_game)
        return self.read_result(fen)

    def send_go(self, fen: str, depth: int | None = None, nodes: int | None = None,
                movetime: float | None = None, new_game: bool = True) -> None:
        """Start a search of ``fen`` without waiting for it (see :meth:`read_result`); ``new_game`` as in
        :meth:`analyse`."""
        if self.proc is None:
            self.start()
        if depth is not None:
            go = f"go depth {depth}"
        elif nodes is not None:
            go = f"go nodes {nodes}"
        elif movetime is not None:
            go = f"go movetime {max(1, round(movetime * 1000))}"
        else:
            raise SettingsError("a depth, nodes or movetime limit is needed")
        self._send(("ucinewgame\n" if new_game else "") + f"position fen {fen}\n{go}\n")

    def static_eval(self, fen: str) -> Analysis | None:
        """The engine's static evaluation of ``fen`` through Stockfish's ``eval`` command (not UCI: an engine
        without it is an :class:`EngineError`), as centipawns from the side to move's view with depth 0 and no
        PV; ``None`` when the engine has none for the position (Stockfish: in check).

        Stockfish prints ``Final evaluation  +0.18 (white side) ...`` in pawns of its UCI scale (the same
        normalisation as its ``score cp``), so the centipawns are the pawns times 100, negated for Black to move.
        ``isready`` after ``eval`` ends the answer, whatever the engine printed before."""
        if self.proc is None:
            self.start()
        self._send(f"position fen {fen}\neval\nisready\n")
        lines = self._lines_until("readyok", self.timeout)
        final = next((line for line in lines if line.startswith("Final evaluation")), None)
        if final is None:
            raise EngineError(f"no 'Final evaluation' line for {fen}: the engine has no eval command "
                              f"(Stockfish's) or printed none")
        return parse_final_evaluation(final, white_to_move=fen.split()[1:2] != ["b"])

    def read_result(self, fen: str = "") -> Analysis:
        """Wait for the search started by :meth:`send_go` and return its verdict."""
        if self.proc is None:
            raise EngineError("engine not started")
        lines = self._lines_until("bestmove", self.timeout)
        for line in reversed(lines):
            if line.startswith("info") and " score " in line:
                parsed = parse_info(line)
                if parsed is not None:
                    return parsed
        raise EngineError(f"no scored info line before bestmove for {fen}")

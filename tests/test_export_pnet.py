"""mimic export of a perspective net (issue 40): raw little-endian integers that the plain-Python reference reader
(tools/pnet_reference.py, reading only the exported file) turns into mimic's evaluation exactly, on 1,000 committed
positions with the shipped net (the mean of 5 nets); the layout checked byte by byte against docs/export.md with
``struct``; the integers against the net's float32 arrays times 255 or 1024, rounded half to even (derived here with
numpy from the .npz, not by the exporter); and bad inputs refused in one line naming the file, exit 2."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import chess
import numpy as np
import pytest

from organisms.pnet import PNet, random_pnet, save_pnet

from .conftest import run_mimic

ROOT = Path(__file__).resolve().parents[1]
NET = ROOT / "results/pnet/pnet.npz"
LABELS = ROOT / "results/heldout-mixed/labels.epd"
READER = ROOT / "tools" / "pnet_reference.py"


def _boards(n: int) -> list[chess.Board]:
    with LABELS.open(encoding="utf-8") as fh:
        return [chess.Board.from_epd(next(fh))[0] for _ in range(n)]


BOARDS = _boards(1000)


def _reader() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pnet_reference", READER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _export(tmp_path: Path, source: Path) -> Path:
    out = tmp_path / f"{source.stem}.bin"
    done = run_mimic("export", source, "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def test_the_reference_reader_reproduces_mimic_on_1000_positions(tmp_path: Path) -> None:
    out = _export(tmp_path, NET)
    reference = _reader().ReferenceNet.load(str(out))
    net = PNet.load(NET)
    want = [net.evaluate(b) for b in BOARDS]
    got = [reference.evaluate(b.fen()) for b in BOARDS]
    assert got == want  # 0 cp difference, every one of the 1,000
    assert len(set(want)) > 500 and max(map(abs, want)) > 500  # varied positions, not a constant


def test_the_reference_reader_is_plain_python_and_runs_alone(tmp_path: Path) -> None:
    imported = set()
    for node in ast.walk(ast.parse(READER.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    out = _export(tmp_path, NET)
    epd = tmp_path / "some.epd"
    epd.write_text("".join(b.epd() + "\n" for b in BOARDS[:25]))
    # -I: isolated (no PYTHONPATH, no site-packages of the user): nothing of mimic's can be imported.
    run = subprocess.run([sys.executable, "-I", str(READER), str(out), "--epd", str(epd), BOARDS[25].fen()],
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    net = PNet.load(NET)
    assert [int(x) for x in run.stdout.split()] == [net.evaluate(b) for b in [BOARDS[25], *BOARDS[:25]]]


def test_the_file_is_laid_out_as_docs_export_md_says(tmp_path: Path) -> None:
    data = _export(tmp_path, NET).read_bytes()
    magic, version, inputs, units, flags, width, qa, qa_out, limit = struct.unpack_from("<8s8I", data)
    (scale,) = struct.unpack_from("<d", data, 40)
    with np.load(NET, allow_pickle=False) as npz:
        header = json.loads(str(npz["header"]))
        arrays = {k: npz[k].astype(np.float64) for k in ("w_in", "b_in", "w_out", "b_out", "w_psqt")}
    assert (magic, version, inputs, units, flags, width) == (b"MIMICPNT", 1, 768, header["units"], 1, 2)
    assert (qa, qa_out, limit, scale) == (255, 1024, 10000, header["scale"])
    n = units
    at = 48
    b_in = np.frombuffer(data, "<i2", n, at)
    w_in = np.frombuffer(data, "<i2", 768 * n, at + 2 * n).reshape(768, n)
    at += 2 * n * 769
    w_out = np.frombuffer(data, "<i4", 2 * n, at)
    b_out = np.frombuffer(data, "<i4", 1, at + 8 * n)
    w_psqt = np.frombuffer(data, "<i4", 768, at + 8 * n + 4)
    at += 8 * n + 4 + 4 * 768
    (meta_len,) = struct.unpack_from("<I", data, at)
    assert len(data) == at + 4 + meta_len
    meta = json.loads(data[at + 4:])
    assert meta["source"] == str(NET) and meta["net_header"]["members"] == header["members"]
    # The integers: float32 weights times 255 (first layer), 1024 (output), 255 then 1024 (bias, PSQT), rounded
    # half to even (np.rint), as docs/export.md states.
    assert np.array_equal(w_in, np.rint(arrays["w_in"] * 255)) and np.array_equal(b_in, np.rint(arrays["b_in"] * 255))
    assert np.array_equal(w_out, np.rint(arrays["w_out"][:, 0] * 1024))
    assert np.array_equal(b_out, np.rint(arrays["b_out"] * 255 * 1024))
    assert np.array_equal(w_psqt, np.rint(arrays["w_psqt"] * 255 * 1024))
    assert abs(w_in).max() < 100  # this net's first layer fits int16 with room to spare (so width 2)


@pytest.mark.parametrize(("psqt", "wide"), [(False, False), (True, True)], ids=["no-psqt", "int32-first-layer"])
def test_other_nets_export_exactly(tmp_path: Path, psqt: bool, wide: bool) -> None:
    arrays, header = random_pnet(units=24, seed=11, psqt=psqt)
    if wide:  # input 0 is our pawn on a1, which no position has: a weight there changes no score but the width
        arrays["w_in"][0, 0] = 200.0  # 200 * 255 = 51000 > 32767: the first layer must be int32
    source = tmp_path / "net.npz"
    save_pnet(source, arrays, header)
    data = _export(tmp_path, source).read_bytes()
    assert struct.unpack_from("<II", data, 20) == (1 if psqt else 0, 4 if wide else 2)  # flags, width
    reference = _reader().ReferenceNet(data)
    net = PNet.load(source)
    boards = BOARDS[:200]
    assert [reference.evaluate(b.fen()) for b in boards] == [net.evaluate(b) for b in boards]


def _refused(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mimic export: "), done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_bad_inputs_are_one_line_naming_the_file(tmp_path: Path) -> None:
    arrays, header = random_pnet(units=8, seed=1, hidden=[4])
    hidden = tmp_path / "hidden.npz"
    save_pnet(hidden, arrays, header)
    _refused(run_mimic("export", hidden, "--out", tmp_path / "h.bin"), str(hidden), "hidden layers")
    torn = tmp_path / "torn.npz"
    torn.write_bytes(NET.read_bytes()[:5000])
    _refused(run_mimic("export", torn, "--out", tmp_path / "t.bin"), str(torn))
    organism = tmp_path / "organism.json"
    organism.write_text('{"format": "mimic-organism", "version": 1, "feature_version": 1, "genes": [{"name": 3}]}')
    _refused(run_mimic("export", organism), str(organism))
    _refused(run_mimic("export", tmp_path / "missing.json"), "missing.json")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused(run_mimic("export", fifo), str(fifo), "not a regular file")  # refused at once, never waited on
    assert not (tmp_path / "h.bin").exists() and not (tmp_path / "t.bin").exists()


def test_formats_layouts_and_outputs_that_do_not_fit_are_refused(tmp_path: Path) -> None:
    organism = ROOT / "results/paper-stockfish/organism.json"
    _refused(run_mimic("export", NET, "--format", "c"), "--format c", str(NET))
    _refused(run_mimic("export", organism, "--format", "bin", "--out", tmp_path / "x"), "--format bin")
    _refused(run_mimic("export", NET, "--layout", "pesto", "--out", tmp_path / "y"), "--layout")
    _refused(run_mimic("export", NET), "--out")  # binary: never to the terminal
    out = tmp_path / "organism.c"
    out.write_text("mine\n")
    _refused(run_mimic("export", organism, "--out", out), str(out), "--force")
    assert out.read_text() == "mine\n"
    assert run_mimic("export", organism, "--out", out, "--force").returncode == 0
    assert "mimic_evaluate" in out.read_text()
    printed = run_mimic("export", organism, "--format", "json")  # text without --out: standard output
    assert printed.returncode == 0 and json.loads(printed.stdout)["format"] == "mimic-export"


def test_the_reference_reader_refuses_a_file_that_is_not_whole(tmp_path: Path) -> None:
    reader = _reader()
    data = _export(tmp_path, NET).read_bytes()
    for bad, needle in ((data[:-1], "bytes"), (b"NOTMIMIC" + data[8:], "magic"), (data[:20], "header")):
        with pytest.raises(reader.NetFormatError, match=needle):
            reader.ReferenceNet(bad, "x.bin")

"""Files mimic reads back (issue 23): checkpoints of every trainer and of the GA, the label sidecar, recognition
clone folders and the DeepChess positions file, each crafted bad by the tests and refused before anything is
restored: exit 2 (or :class:`~search.runtime.errors.MimicError` from the real loader), one line naming the file
and what is wrong, and nothing written (the folder's files byte for byte as they were).

The good files come from real tiny runs of the commands (module fixtures); each case copies the run and damages
one thing. Net files and the experience book are covered by test_hostile_files.py, ``games --resume``'s sidecar
by test_games_sidecar.py.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from search.runtime.errors import MimicError

from .conftest import npy_bytes, npz_of, run_mimic

Arrays = dict[str, np.ndarray]
Header = dict[str, Any]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative name: bytes), to show that nothing was written."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(args: list[str], folder: Path, path: Path, says: str) -> None:
    """``mimic ARGS`` exits 2 with one line naming ``path`` and saying ``says``, and writes nothing in ``folder``."""
    before = _files(folder)
    done = run_mimic(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and str(path) in lines[0] and says in lines[0], done.stderr
    assert _files(folder) == before


def _load_npz(path: Path, header: str = "header") -> tuple[Arrays, Header]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return {k: v for k, v in arrays.items() if k != header}, json.loads(str(arrays[header]))


def _save_npz(path: Path, arrays: Arrays, header: Header, name: str = "header") -> None:
    out = io.BytesIO()
    np.savez(out, **{name: np.array(json.dumps(header))}, **arrays)
    path.write_bytes(out.getvalue())


Edit = Callable[[Arrays, Header], None]


def _drop(name: str) -> Edit:
    def edit(a: Arrays, h: Header) -> None:
        del a[name]
    return edit


def _set(name: str, value: Callable[[np.ndarray], np.ndarray]) -> Edit:
    def edit(a: Arrays, h: Header) -> None:
        a[name] = value(a[name])
    return edit


def _head(change: Callable[[Header], None]) -> Edit:
    return lambda a, h: change(h)


# ---------------------------------------------------------------------------------------------- train-cmp
CMP_ARGS = ["--pos2vec", "8", "--top", "4", "--small-pos2vec", "4", "--small-top", "2", "--ae-epochs", "1",
            "--distill-epochs", "1", "--batch", "32", "--no-speed"]


@pytest.fixture(scope="module")
def cmp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny train-cmp run (1 epoch a phase) on 60 random positions: its checkpoint is in the
    distillation phase, with Adam's state."""
    pytest.importorskip("torch")
    from organisms.comparator import N_BITS

    root = tmp_path_factory.mktemp("cmp")
    rng = np.random.default_rng(0)
    n = 60
    (root / "data").mkdir()
    np.savez(root / "data" / "positions.npz", bits=np.packbits(rng.integers(0, 2, (n, N_BITS), np.uint8), axis=1),
             result=np.where(np.arange(n) % 2 == 0, 1, -1).astype(np.int8),
             part=np.array([0, 0, 0, 1, 2], np.uint8)[(np.arange(n) // 2) % 5], game=np.arange(n, dtype=np.int64))
    run_mimic("train-cmp", root / "data", "--out", root / "run", "--epochs", "1", *CMP_ARGS, check=True)
    assert _load_npz(root / "run" / "checkpoint.npz")[1]["phase"] == "distill"
    return root


CMP_CASES: list[tuple[str, Edit, str]] = [
    ("missing array", _drop("big_enc_w0"), "missing arrays big_enc_w0"),
    ("missing Adam state", _drop("phase_adam_0_exp_avg"), "missing arrays phase_adam_0_exp_avg"),
    ("curves missing", _head(lambda h: h.pop("curves")), "curves is missing"),
    ("curves a list", _head(lambda h: h.__setitem__("curves", [])), "curves is a list, not an object"),
    ("curve row of text", _head(lambda h: h["curves"].__setitem__("compare", [[1, "x", 0, 0]])),
     "curves.compare[0] is [1, 'x', 0, 0], expected 4 finite numbers"),
    ("curve row short", _head(lambda h: h["curves"].__setitem__("distill", [[1]])), "curves.distill[0]"),
    ("curve number of 400 digits", _head(lambda h: h["curves"].__setitem__("pretrain", [[0, 1, 10**400]])),
     "curves.pretrain[0] is [0, 1, 1000"),
    ("curve key missing", _head(lambda h: h["curves"].pop("pretrain")), "curves has the keys"),
    ("Adam state of strings", _set("phase_adam_0_exp_avg", lambda a: np.full(a.shape, "x")),
     "phase_adam_0_exp_avg is of type <U1, expected floats"),
    ("Adam step of another shape", _set("phase_adam_1_step", lambda a: np.zeros(3, np.float32)),
     "phase_adam_1_step has shape (3,), these settings need ()"),
    ("wrong shape", _set("big_enc_w0", lambda a: a.T.copy()), "big_enc_w0 has shape (8, 773), these settings need"),
    ("NaN weight", _set("small_top_b0", lambda a: np.full_like(a, np.nan)), "small_top_b0 must hold finite floats"),
    ("unknown phase", _head(lambda h: h.__setitem__("phase", "pretrain-7")), "phase is 'pretrain-7'"),
    ("seconds text", _head(lambda h: h.__setitem__("seconds", "x")), "seconds is a string, not a number"),
    ("header empty", _head(lambda h: h.clear()), "curves is missing"),
]


@pytest.mark.parametrize(("case", "edit", "says"), CMP_CASES, ids=[c[0] for c in CMP_CASES])
def test_a_crafted_train_cmp_checkpoint_is_refused(cmp_run: Path, tmp_path: Path, case: str, edit: Edit,
                                                   says: str) -> None:
    out = tmp_path / "run"
    shutil.copytree(cmp_run / "run", out)
    ck = out / "checkpoint.npz"
    arrays, header = _load_npz(ck)
    edit(arrays, header)
    _save_npz(ck, arrays, header)
    # Two comparator epochs: the resumed run would train one more and rewrite the checkpoint if it went on.
    _refused(["train-cmp", cmp_run / "data", "--out", out, "--epochs", "2", "--resume", *CMP_ARGS], out, ck, says)


def test_the_untouched_train_cmp_checkpoint_resumes(cmp_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    shutil.copytree(cmp_run / "run", out)
    run_mimic("train-cmp", cmp_run / "data", "--out", out, "--epochs", "2", "--resume", *CMP_ARGS, check=True)
    assert [r[0] for r in _load_npz(out / "checkpoint.npz")[1]["curves"]["compare"]] == [1, 2]


# ---------------------------------------------------------------------------------------------- train-net
LABELS = Path(__file__).resolve().parent.parent / "results" / "paper-builtin" / "labels.epd"
NET_ARGS = ["--limit", "40", "--epochs", "1", "--units", "2", "2", "2", "--hidden", "4", "--td-games", "1",
            "--td-plies", "2", "--td-nodes", "20", "--no-progress"]


@pytest.fixture(scope="module")
def net_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny train-net run: a bootstrap of one epoch and one TD-Leaf iteration."""
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("net") / "run"
    run_mimic("train-net", LABELS, "--out", out, "--td-iterations", "1", *NET_ARGS, check=True)
    return out


NET_CASES: list[tuple[str, str, Edit, str]] = [
    ("bootstrap without its curve", "bootstrap.npz", _head(lambda h: h.pop("epoch_curve")),
     "epoch_curve is null, expected a list of objects"),
    ("bootstrap curve of text", "bootstrap.npz", _head(lambda h: h.__setitem__("epoch_curve", [{"epoch": "1"}])),
     "epoch_curve[0] is {'epoch': '1'}, expected {epoch, loss, train_mae, held_mae} (numbers)"),
    ("bootstrap missing an array", "bootstrap.npz", _drop("w_out"), "missing arrays w_out"),
    ("bootstrap of another net", "bootstrap.npz", _head(lambda h: h.__setitem__("hidden", 5)),
     "w_hidden has shape (6, 4), the header's architecture needs (6, 5)"),
    ("TD iteration of text", "td-checkpoint.npz", _head(lambda h: h.__setitem__("td_iteration", "1")),
     "td_iteration is a string, not a number"),
    ("TD curve missing", "td-checkpoint.npz", _head(lambda h: h.pop("td_curve")), "td_curve is missing"),
    ("TD curve short", "td-checkpoint.npz", _head(lambda h: h.__setitem__("td_curve", [])),
     "td_curve has 0 rows for td_iteration 1"),
    ("TD weights of another shape", "td-checkpoint.npz", _set("w_hidden", lambda a: a[:1]),
     "w_hidden has shape (1, 4), these settings need (6, 4)"),
    ("TD weights of strings", "td-checkpoint.npz", _set("b_out", lambda a: np.full(a.shape, "x")),
     "b_out is of type <U1, expected floats"),
]


@pytest.mark.parametrize(("case", "name", "edit", "says"), NET_CASES, ids=[c[0] for c in NET_CASES])
def test_a_crafted_train_net_checkpoint_is_refused(net_run: Path, tmp_path: Path, case: str, name: str, edit: Edit,
                                                   says: str) -> None:
    out = tmp_path / "run"
    shutil.copytree(net_run, out)
    ck = out / name
    arrays, header = _load_npz(ck)
    edit(arrays, header)
    _save_npz(ck, arrays, header)
    # Two TD-Leaf iterations: the resumed run would play one more and rewrite the checkpoint if it went on.
    _refused(["train-net", LABELS, "--out", out, "--td-iterations", "2", "--resume", *NET_ARGS], out, ck, says)


# ---------------------------------------------------------------------------------------------- the GA's checkpoint
def _npy_claiming(shape: tuple[int, ...], descr: str = "|u1") -> bytes:
    """A ``.npy`` header claiming ``shape`` over 8 bytes of data."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue() + b"\0" * 8


def test_a_ga_checkpoint_array_claiming_a_terabyte_is_refused_before_it_is_allocated(tmp_path: Path) -> None:
    # The other GA checkpoint cases (every key, bad values and arrays: 50 of them) are in test_runs.py; np.load
    # would allocate the 10^12 bytes this population claims before any check.
    from evolve.ga.checkpoint import CheckpointError, read_checkpoint, write_checkpoint

    path = tmp_path / "checkpoint"
    write_checkpoint(path, {}, population=np.zeros((2, 3), np.uint8), losses=np.zeros(2), hof_bits=np.zeros((0, 3)),
                     hof_losses=np.zeros(0))
    with zipfile.ZipFile(path.with_suffix(".npz")) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    members["population.npy"] = _npy_claiming((10**6, 10**6))
    with zipfile.ZipFile(path.with_suffix(".npz"), "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with pytest.raises(CheckpointError, match=f"^{path}.npz: array population claims shape "
                                              r"\(1000000, 1000000\) \(1,000,000,000,000 elements\)"):
        read_checkpoint(path)
    assert issubclass(CheckpointError, MimicError)


# ---------------------------------------------------------------------------------------------- labels.epd.json
LABEL_ARGS = ["--mentor", "builtin", "--depth", "1", "--positions", "3", "--no-progress"]


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A label file of 2 positions (of the 3 asked for later: a resume would label one more) and its sidecar."""
    out = tmp_path_factory.mktemp("labels") / "l.epd"
    run_mimic("label", *LABEL_ARGS[:4], "--positions", "2", "--no-progress", "--out", out, check=True)
    return out


SIDECARS: dict[str, tuple[Callable[[Header], object], str]] = {
    "a list": (lambda h: [h], "the label file's sidecar is a list, not an object"),
    "null": (lambda h: None, "the label file's sidecar is null, not an object"),
    "nested 100k deep": (lambda h: "[" * 100_000 + "]" * 100_000, "nests deeper than 32 levels"),
    "runs not a list": (lambda h: {**h, "runs": 3}, "runs is a number, not a list"),
    "a run not an object": (lambda h: {**h, "runs": [1]}, "runs[0] is a number, not an object"),
    "legacy header of numbers": (lambda h: {**h, "legacy_header": [1, 2]}, "legacy_header is a list, expected a "
                                                                           "list of strings"),
    "schema a number": (lambda h: {**h, "schema": 2}, "schema is a number, not a string"),
}


@pytest.mark.parametrize("case", list(SIDECARS))
def test_a_crafted_label_sidecar_is_refused(labelled: Path, tmp_path: Path, case: str) -> None:
    make, says = SIDECARS[case]
    out = tmp_path / "l.epd"
    out.write_bytes(labelled.read_bytes())
    side = tmp_path / "l.epd.json"
    made = make(json.loads(Path(f"{labelled}.json").read_text()))
    side.write_text(made if isinstance(made, str) else json.dumps(made))
    _refused(["label", *LABEL_ARGS, "--out", out, "--resume"], tmp_path, side, says)


def test_the_untouched_label_sidecar_resumes(labelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "l.epd"
    out.write_bytes(labelled.read_bytes())
    Path(f"{out}.json").write_bytes(Path(f"{labelled}.json").read_bytes())
    run_mimic("label", *LABEL_ARGS, "--out", out, "--resume", check=True)
    assert len(out.read_text().splitlines()) == 3  # the 2 labels kept, the third one added
    assert len(json.loads(Path(f"{out}.json").read_text())["runs"]) == 2


# ---------------------------------------------------------------------------------------------- clone folders
ENGINES = Path(__file__).resolve().parent.parent / "results" / "recognition-engines"
QUERY = '[White "Toga"]\n[Black "Sunfish"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n'


def _edited(name: str, change: Callable[[Header], object]) -> Callable[[Path], tuple[str, str]]:
    """The folder's JSON file ``name`` changed in place by ``change``, or replaced by what it returns."""
    def make(folder: Path) -> tuple[str, str]:
        data = json.loads((folder / name).read_text())
        made = change(data)
        return name, json.dumps(data if made is None else made)
    return make


def _manifest(change: Callable[[Header], object]) -> Callable[[Path], tuple[str, str]]:
    return _edited("recognize.json", change)


def _file(name: str, text: str) -> Callable[[Path], tuple[str, str]]:
    return lambda folder: (name, text)


def _no_clone_file(folder: Path) -> tuple[str, str]:
    (folder / "clone-Toga.json").unlink()
    return "recognize.json", (folder / "recognize.json").read_text()


def _split(change: Callable[[Header], object]) -> Callable[[Path], tuple[str, str]]:
    return _edited("split.json", change)


FOLDERS: dict[str, tuple[Callable[[Path], tuple[str, str]], str, str]] = {
    # case: (how to damage the folder -> (the file named, its new text), the file named, what the line says)
    "manifest a list": (_manifest(lambda m: [m]), "recognize.json", "the recognize manifest is a list, not an object"),
    "manifest nested deep": (_file("recognize.json", "[" * 100_000), "recognize.json", "nests deeper than"),
    "players missing": (_manifest(lambda m: m.pop("players") and None), "recognize.json", "players is missing"),
    "players of numbers": (_manifest(lambda m: m.__setitem__("players", [1])), "recognize.json",
                           "players is a list, expected a list of strings"),
    "a player without a clone": (_manifest(lambda m: m["clones"].pop("Toga") and None), "recognize.json",
                                 "clones.Toga is missing"),
    "clones a list": (_manifest(lambda m: m.__setitem__("clones", [])), "recognize.json",
                      "clones is a list, not an object"),
    "beta of text": (_manifest(lambda m: m["clones"]["Toga"].__setitem__("beta", "x")), "recognize.json",
                     "clones.Toga.beta is a string, not a number"),
    "beta of 400 digits": (_manifest(lambda m: m["clones"]["Toga"].__setitem__("beta", 10**400)), "recognize.json",
                           "clones.Toga.beta is 1000"),
    "settings missing": (_manifest(lambda m: m.pop("settings") and None), "recognize.json", "settings is missing"),
    "skip plies negative": (_manifest(lambda m: m["settings"].__setitem__("skip_plies", -1)), "recognize.json",
                            "settings.skip_plies is -1"),
    "clone outside the folder": (_manifest(lambda m: m["clones"]["Toga"].__setitem__("organism", "../x.json")),
                                 "recognize.json", "clones.Toga.organism is '../x.json', expected a file name"),
    "clone file missing": (_no_clone_file, "clone-Toga.json", "cannot read the clone of Toga: No such file"),
    "clone file malformed": (_file("clone-Toga.json", '{"format": '), "clone-Toga.json",
                             "the organism file is not JSON"),
    "split a list": (_split(lambda s: [s]), "split.json", "the split of the clones' games is a list, not an object"),
    "split part unknown": (_split(lambda s: s["games"][0].__setitem__("part", "x")), "split.json", "games[0] is"),
}


def _clone_folder(tmp_path: Path) -> Path:
    """A copy of the shipped engines' clone folder: its manifest, split, clones and classifier."""
    folder = tmp_path / "clones"
    folder.mkdir()
    for p in ENGINES.iterdir():
        if p.name in ("recognize.json", "split.json", "classifier.npz") or (p.name.startswith("clone-")
                                                                          and p.suffix == ".json"):
            shutil.copy(p, folder / p.name)
    return folder


def test_the_untouched_clone_folder_classifies(tmp_path: Path) -> None:
    folder = _clone_folder(tmp_path)
    (tmp_path / "q.pgn").write_text(QUERY)
    run_mimic("recognize", "classify", folder, tmp_path / "q.pgn", "--csv", tmp_path / "q.csv", "--no-progress",
              check=True)
    assert len((tmp_path / "q.csv").read_text().splitlines()) == 3  # a header and one row a game side


@pytest.mark.parametrize("case", list(FOLDERS))
def test_a_crafted_clone_folder_is_refused_by_classify(tmp_path: Path, case: str) -> None:
    folder = _clone_folder(tmp_path)
    make, named, says = FOLDERS[case]
    name, text = make(folder)
    (folder / name).write_text(text)
    query = tmp_path / "q.pgn"
    query.write_text(QUERY)
    csv = tmp_path / "q.csv"
    _refused(["recognize", "classify", folder, query, "--csv", csv, "--no-progress"], tmp_path, folder / named, says)
    assert not csv.exists()


# ---------------------------------------------------------------------------------------------- positions and caches
POSITIONS: dict[str, tuple[Callable[[dict[str, bytes]], None], str]] = {
    "bits claiming a terabyte": (lambda m: m.__setitem__("bits", _npy_claiming((10**10, 97))),
                                 "array bits claims shape (10000000000, 97) (970,000,000,000 elements)"),
    "results of text": (lambda m: m.__setitem__("result", npy_bytes(np.full(60, "x"))),
                        "result is of type <U1, expected signed integers"),
    "a part 7": (lambda m: m.__setitem__("part", npy_bytes(np.full(60, 7, np.uint8))),
                 "results must be +1 or -1 and parts 0, 1 or 2"),
    "game missing": (lambda m: m.pop("game") and None, "missing arrays game"),
    "bits of another width": (lambda m: m.__setitem__("bits", npy_bytes(np.zeros((60, 96), np.uint8))),
                              "bits has shape (60, 96), expected (60, 97)"),
}


@pytest.mark.parametrize("case", list(POSITIONS))
def test_a_crafted_positions_file_is_refused_by_train_cmp(cmp_run: Path, tmp_path: Path, case: str) -> None:
    change, says = POSITIONS[case]
    with zipfile.ZipFile(cmp_run / "data" / "positions.npz") as zf:
        members = {i.filename[:-4]: zf.read(i) for i in zf.infolist()}
    change(members)
    data = tmp_path / "data" / "positions.npz"
    data.parent.mkdir()
    npz_of(data, members)
    _refused(["train-cmp", data.parent, "--out", tmp_path / "run", "--epochs", "1", *CMP_ARGS], tmp_path, data, says)
    assert not (tmp_path / "run").exists()


def test_a_cache_entry_claiming_a_terabyte_is_a_miss_not_an_allocation(tmp_path: Path) -> None:
    # A cache entry is ours; one that is not what we wrote is recomputed (None), never read as it claims.
    from organisms.feature_cache import load_keyed_npz, read_cached_features, save_keyed_npz, write_cached_features

    path = tmp_path / "entry.npz"
    assert save_keyed_npz(path, {"y": np.arange(3.0)}, ["y"], "k")
    assert load_keyed_npz(path, ["y"], "k") is not None  # the good entry is a hit
    with zipfile.ZipFile(path) as zf:
        members = {i.filename[:-4]: zf.read(i) for i in zf.infolist()}
    npz_of(path, {**members, "y": _npy_claiming((10**12,), "<f8")})
    assert load_keyed_npz(path, ["y"], "k") is None
    features = tmp_path / "features.npz"
    assert write_cached_features(features, "k", np.ones((2, 3), np.float32))
    assert read_cached_features(features, "k", 2, 3) is not None
    with zipfile.ZipFile(features) as zf:
        members = {i.filename[:-4]: zf.read(i) for i in zf.infolist()}
    npz_of(features, {**members, "features": _npy_claiming((10**6, 10**6), "<f4")})
    assert read_cached_features(features, "k", 2, 3) is None


@pytest.mark.parametrize(("text", "says"), [(b"\xff\xfe,,\n", "not a mimic suite CSV (not UTF-8 text"),
                                            (b"id,x\n", "not a mimic suite CSV (columns")])
def test_a_crafted_suite_csv_is_refused_on_resume(tmp_path: Path, text: bytes, says: str) -> None:
    epd = tmp_path / "s.epd"
    epd.write_text('7k/8/8/8/8/8/8/R3K3 w - - bm Ra8+; id "x";\n')
    csv = tmp_path / "s.csv"
    csv.write_bytes(text)
    _refused(["suite", epd, "--engine", "material@depth=1", "--csv", csv, "--resume", "--no-progress"], tmp_path,
             csv, says)

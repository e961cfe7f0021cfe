"""Gzip-compressed label files (issue 38, search/formats/gz.py): members counted and a torn one cut off, read
transparently wherever a label file is read, appended to by the label writer one member a flush."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from evolve.data.dataset import load_dataset
from mentor.labels import Label, LabelWriter, read_labels
from mentor.samplers import random_playouts
from organisms.expert import Expert
from search.formats import gz
from tests.conftest import run_mimic


def _labels(n: int, seed: int = 3) -> list[Label]:
    expert = Expert()
    return [Label(s.board, int(expert.evaluate(s.board)), 1, [], None, f"p{i}", "test", None)
            for i, s in enumerate(random_playouts(n, seed, min_plies=4, max_plies=40))]


def test_whole_members_are_counted_and_a_torn_one_cut(tmp_path: Path) -> None:
    # Two members written whole, then the first half of a third (a kill mid-write): the whole ones are the first
    # len(a) + len(b) bytes, by construction; the repair cuts the rest, and gzip reads the two members' lines.
    a, b, c = gz.member(b"one\n"), gz.member(b"two\nthree\n"), gz.member(b"four\n" * 100)
    path = tmp_path / "x.gz"
    path.write_bytes(a + b + c[: len(c) // 2])
    assert gz.complete_length(path) == len(a) + len(b)
    assert gz.repair(path) and path.read_bytes() == a + b and not gz.repair(path)
    assert gzip.decompress(path.read_bytes()) == b"one\ntwo\nthree\n"
    assert gz.member(b"same") == gz.member(b"same")  # mtime 0: the same lines, the same bytes


def test_a_gzip_label_file_reads_as_the_plain_one(tmp_path: Path) -> None:
    labels = _labels(60)
    plain, packed = tmp_path / "l.epd", tmp_path / "l.epd.gz"
    for path in (plain, packed):
        with LabelWriter(path, flush_every=7) as w:  # 9 members for the .gz
            for lab in labels:
                w.write(lab)
    assert packed.read_bytes()[:2] == gz.MAGIC and gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert [lab.to_epd() for lab in read_labels(packed)] == [lab.to_epd() for lab in read_labels(plain)]
    a = load_dataset(plain, target="root", cache_dir=tmp_path / "cache")
    b = load_dataset(packed, target="root", cache_dir=tmp_path / "cache")
    assert np.array_equal(a.features, b.features) and np.array_equal(a.y, b.y) and np.array_equal(a.train, b.train)


def test_a_resumed_gzip_file_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    labels = _labels(40)
    whole, cut = tmp_path / "whole.epd.gz", tmp_path / "cut.epd.gz"
    with LabelWriter(whole, flush_every=10) as w:
        for lab in labels:
            w.write(lab)
    with LabelWriter(cut, flush_every=10) as w:
        for lab in labels[:20]:
            w.write(lab)
    cut.write_bytes(cut.read_bytes() + gz.member(b"torn")[:9])  # a kill in the middle of a member
    with LabelWriter(cut, flush_every=10) as w:  # opening it repairs the tail
        for lab in labels[20:]:
            w.write(lab)
    assert cut.read_bytes() == whole.read_bytes()
    # A torn file read without resuming: one line naming it, exit 2.
    cut.write_bytes(cut.read_bytes() + gz.member(b"torn")[:9])
    run = run_mimic("evolve", cut, "--out", tmp_path / "ev", "--generations", "1", "--no-progress")
    assert run.returncode == 2 and "gzip stream cut short" in run.stderr and str(cut) in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1

"""A crowd of mentors (issue 38): several mentors label the same positions; ce is the crowd's median score, c3 each
mentor's score in the sidecar's order, and a learner trains on the crowd or on any one mentor (--score)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from evolve.data.dataset import load_dataset
from mentor.labels import parse_label
from mentor.pool import crowd_score
from tests.conftest import run_mimic, stockfish_path

STOCKFISH = stockfish_path()


def test_the_crowd_score_is_the_median() -> None:
    # By hand: the middle of three; the mean of the middle two of four, rounded; a mate counts at its EPD value.
    assert crowd_score([40, -10, 25]) == 25 and crowd_score([40, -10, 25, 30]) == 28
    assert crowd_score([29_990, 100, 120]) == 120 and crowd_score([5]) == 5


@pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed")
def test_a_crowd_labels_and_any_mentor_trains(tmp_path: Path) -> None:
    out = tmp_path / "crowd.epd"
    run = run_mimic("label", "--mentor", "stockfish@depth=5", "--mentor", "stockfish@nodes=300", "--mentor",
                    "builtin@depth=1", "--positions", "40", "--out", out, "--no-progress", "--jobs", "2")
    assert run.returncode == 0, run.stderr
    labels = [parse_label(line) for line in out.read_text().splitlines()]
    assert len(labels) == 40
    for lab in labels:
        assert lab.crowd is not None and len(lab.crowd) == 3
        assert lab.ce == round(statistics.median(lab.crowd))  # odd crowd: the middle score itself
        assert lab.acd == 5  # depth and PV are the first mentor's
    runs = json.loads(Path(f"{out}.json").read_text())["runs"]
    mentors = runs[0]["crowd"]["mentors"]
    assert [(m["kind"], m["depth"], m["nodes"]) for m in mentors] == [("uci", 5, None), ("uci", None, 300),
                                                                     ("builtin", 1, None)]
    assert runs[0]["mentor"] == mentors[0] and "median" in runs[0]["crowd"]["score"]
    # --score I: the I-th mentor's scores train (target root: y is the label's score itself), within the cap.
    for i in range(4):
        ds = load_dataset(out, target="root", cap=100_000, held_out=0.0, cache_dir=tmp_path / "cache", score=i)
        expected = [lab.ce if i == 0 else lab.crowd[i - 1] for lab in labels if lab.crowd is not None]
        assert sorted(ds.y.tolist()) == sorted(float(v) for v in expected if abs(v) <= 100_000)
    fit = run_mimic("fit", out, "--score", "2", "--target", "root")
    assert fit.returncode == 0 and "L1 fit" in fit.stdout
    plain = tmp_path / "plain.epd"
    plain.write_text(out.read_text().replace(' c3 "', ' c4 "'))  # no crowd's scores: nothing to train on
    refused = run_mimic("fit", plain, "--score", "1", "--target", "root")
    assert refused.returncode == 2 and "no usable labels" in refused.stderr

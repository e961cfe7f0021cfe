"""Nothing lost on ``--resume`` (issue 61): of a gzip label file only the torn last member a killed run leaves is
cut, and the run says how many lines; damage anywhere else (a changed byte, a member cut short with others after it)
is refused in one line naming the file and the member's byte offset, the file untouched, and ``mimic label --repair``
keeps every readable line. A plain file loses only a torn last line. A resume with other settings than the file's
last run (command, mentor, depth, options; self-play's seed and options) is refused naming the setting. A gzip EPD
or PGN file is a ``--source`` as the plain one is.

The files are made by the built-in mentor at depth 1 (40 positions: four gzip members of 10 lines, as
``label_samples`` batches 40 positions for one worker into batches of 40 // 4 = 10, each flushed as one member)."""

from __future__ import annotations

import gzip
import shutil
import zlib
from pathlib import Path

import pytest

from mentor.labels import parse_label
from tests.conftest import run_mimic, stockfish_path

LABEL = ["label", "--mentor", "builtin", "--depth", "1", "--positions", "40", "--seed", "0", "--jobs", "1",
         "--no-progress"]
DATAGEN = ["datagen", "--mentor", "builtin", "--depth", "1", "--positions", "10", "--seed", "0", "--jobs", "1",
           "--no-progress"]


def _members(raw: bytes) -> list[tuple[int, int, bytes]]:
    """``(start, end, text)`` of each gzip member of ``raw``, found with zlib alone (one member after another)."""
    out, pos = [], 0
    while pos < len(raw):
        d = zlib.decompressobj(wbits=31)
        text = d.decompress(raw[pos:])
        end = len(raw) - len(d.unused_data)
        out.append((pos, end, text))
        pos = end
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gzip label file of 40 labels in four members, with its sidecar (made once)."""
    out = tmp_path_factory.mktemp("base") / "labels.epd.gz"
    run = run_mimic(*LABEL, "--out", out)
    assert run.returncode == 0, run.stderr
    return out


def _copy(base: Path, folder: Path, name: str = "labels.epd.gz") -> Path:
    out = folder / name
    shutil.copyfile(base, out)
    shutil.copyfile(f"{base}.json", f"{out}.json")
    return out


def _refused(run: object, path: Path, *words: str) -> None:
    """Exit 2 and one line on stderr naming ``path`` and ``words``, no traceback."""
    assert run.returncode == 2, (run.stdout, run.stderr)  # type: ignore[attr-defined]
    err = run.stderr.strip()  # type: ignore[attr-defined]
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert str(path) in err and all(w in err for w in words), err


def test_the_base_file_has_four_members_of_ten_lines(base: Path) -> None:
    members = _members(base.read_bytes())
    assert [text.count(b"\n") for _, _, text in members] == [10, 10, 10, 10]


def test_a_changed_byte_in_a_middle_member_is_refused_then_repaired(base: Path, tmp_path: Path) -> None:
    out = _copy(base, tmp_path)
    raw = out.read_bytes()
    members = _members(raw)
    second = members[1][0]  # the damaged member's offset, found above by zlib alone
    damaged = bytearray(raw)
    damaged[(second + members[1][1]) // 2] ^= 0xFF  # a byte in the middle of its deflate data
    out.write_bytes(bytes(damaged))
    for command in (LABEL, DATAGEN):  # label and datagen resume alike; datagen's other settings come later
        if command is DATAGEN:
            Path(f"{out}.json").unlink()  # no recorded run: only the file's damage stops it
        run = run_mimic(*command, "--out", out, "--resume")
        _refused(run, out, f"byte {second}", "--repair")
        assert out.read_bytes() == bytes(damaged)  # untouched, byte for byte
    repair = run_mimic("label", "--out", out, "--repair")
    assert repair.returncode == 0, repair.stderr
    assert (tmp_path / "labels.epd.gz.damaged").read_bytes() == bytes(damaged)  # the damaged file kept
    lines = gzip.decompress(out.read_bytes()).splitlines(keepends=True)
    first, rest = members[0][2].splitlines(keepends=True), b"".join(t for _, _, t in members[2:]).splitlines(True)
    # Every line of the three whole members, in order; between them only what the damaged member still reads as
    # labels (what precedes the damage; after it a decoder may give anything, so each line is checked).
    assert lines[:10] == first and lines[-20:] == rest
    assert all(parse_label(r.decode()) for r in lines[10:-20])
    assert f"kept {len(lines)} lines" in repair.stdout
    again = run_mimic(*LABEL, "--out", out, "--resume")  # the repaired file resumes: the lost positions labelled
    assert again.returncode == 0, again.stderr
    assert len(gzip.decompress(out.read_bytes()).splitlines()) == 40


def test_a_damaged_checksum_loses_no_line_in_the_repair(base: Path, tmp_path: Path) -> None:
    # A changed byte in the second member's CRC-32 (its trailer's first 4 of 8 bytes): every byte of its data still
    # decompresses, so the repair keeps all 40 lines, the same as the undamaged file's.
    out = _copy(base, tmp_path)
    raw = out.read_bytes()
    end = _members(raw)[1][1]
    damaged = bytearray(raw)
    damaged[end - 8] ^= 0x01
    out.write_bytes(bytes(damaged))
    _refused(run_mimic(*LABEL, "--out", out, "--resume"), out, f"byte {_members(raw)[1][0]}")
    assert out.read_bytes() == bytes(damaged)
    assert run_mimic("label", "--out", out, "--repair").returncode == 0
    assert gzip.decompress(out.read_bytes()) == gzip.decompress(raw)


def test_a_single_member_file_with_a_changed_byte_is_refused(base: Path, tmp_path: Path) -> None:
    # The 40 lines gzipped whole (one member, as `gzip FILE` makes), then a byte changed in the middle.
    out = _copy(base, tmp_path)
    one = bytearray(gzip.compress(gzip.decompress(base.read_bytes()), mtime=0))
    one[len(one) // 2] ^= 0xFF
    out.write_bytes(bytes(one))
    _refused(run_mimic(*LABEL, "--out", out, "--resume"), out, "byte 0")
    assert out.read_bytes() == bytes(one)


def test_a_middle_member_cut_short_is_refused(base: Path, tmp_path: Path) -> None:
    # The second member loses its last 30 bytes; the third and fourth follow whole.
    out = _copy(base, tmp_path)
    raw = out.read_bytes()
    members = _members(raw)
    (s2, e2, _), (s3, _, _) = members[1], members[2]
    cut = raw[:e2 - 30] + raw[s3:]
    out.write_bytes(cut)
    _refused(run_mimic(*LABEL, "--out", out, "--resume"), out, f"byte {s2}")
    assert out.read_bytes() == cut
    assert run_mimic("label", "--out", out, "--repair").returncode == 0
    lines = gzip.decompress(out.read_bytes()).splitlines(keepends=True)
    whole = [members[i][2].splitlines(keepends=True) for i in (0, 2, 3)]
    assert lines[:10] == whole[0] and lines[-20:] == whole[1] + whole[2]


def test_only_a_torn_last_member_is_cut_and_the_note_counts_its_lines(base: Path, tmp_path: Path) -> None:
    out = _copy(base, tmp_path)
    raw = out.read_bytes()
    start, end, _ = _members(raw)[3]
    torn = raw[:start + (end - start) // 2]  # a kill in the middle of the last write
    out.write_bytes(torn)
    # The lines begun in what is cut: its whole lines and the partial one, from what zlib decompresses of it.
    begun = zlib.decompressobj(wbits=31).decompress(torn[start:])
    expected = begun.count(b"\n") + (not begun.endswith(b"\n"))
    run = run_mimic(*LABEL, "--out", out, "--resume")
    assert run.returncode == 0, run.stderr
    assert f"at byte {start}" in run.stdout and f": {expected} lines" in run.stdout, run.stdout
    assert gzip.decompress(out.read_bytes()) == gzip.decompress(raw)  # the ten positions labelled again


def test_a_plain_file_loses_only_its_torn_last_line(base: Path, tmp_path: Path) -> None:
    out = tmp_path / "labels.epd"
    text = gzip.decompress(base.read_bytes())
    shutil.copyfile(f"{base}.json", f"{out}.json")
    lines = text.splitlines(keepends=True)
    lines[5] = b"garbage \xff not a label\n"  # a damaged line in the middle
    kept = b"".join(lines[:-1])
    out.write_bytes(kept + lines[-1][:20])  # and a torn last line
    run = run_mimic(*LABEL, "--out", out, "--resume")
    assert run.returncode == 0, run.stderr
    assert f"torn last line of {out} at byte {len(kept)}" in run.stdout and ": 1 line," in run.stdout, run.stdout
    now = out.read_bytes()
    assert now.startswith(kept)  # every line but the torn one, the damaged one too, as it was
    assert len(now.splitlines()) == 41  # + the torn line's and the damaged line's positions, labelled again
    # A NUL byte near its start (the file cannot be read as text: every line would be labelled again and appended):
    # refused, the file untouched.
    nul = now.replace(b"garbage", b"garb\x00ge")
    out.write_bytes(nul)
    _refused(run_mimic(*LABEL, "--out", out, "--resume"), out, "NUL", "--repair")
    assert out.read_bytes() == nul
    # The repair keeps every line that reads as a label, byte for byte and in order: all but the damaged one.
    repair = run_mimic("label", "--out", out, "--repair")
    assert repair.returncode == 0 and "kept 40 lines, dropped 1" in repair.stdout, (repair.stdout, repair.stderr)
    assert out.read_bytes() == b"".join(line for line in nul.splitlines(keepends=True) if b"garb" not in line)
    assert (tmp_path / "labels.epd.damaged").read_bytes() == nul
    assert run_mimic(*LABEL, "--out", out, "--resume").returncode == 0


def test_a_plain_text_file_named_gz_is_one_line(base: Path, tmp_path: Path) -> None:
    out = _copy(base, tmp_path)
    plain = gzip.decompress(base.read_bytes())
    out.write_bytes(plain)
    _refused(run_mimic(*LABEL, "--out", out, "--resume"), out, "not gzip")
    assert out.read_bytes() == plain


def test_datagen_resumed_with_other_settings_is_refused(base: Path, tmp_path: Path) -> None:
    out = tmp_path / "self.epd.gz"
    assert run_mimic(*DATAGEN, "--out", out).returncode == 0
    made = out.read_bytes()

    def resume(*changed: str, command: list[str] = DATAGEN) -> object:
        args = list(command)
        for flag, value in zip(changed[::2], changed[1::2], strict=True):
            args[args.index(flag) + 1] = value
        return run_mimic(*args, "--out", out, "--resume")

    for changed, words in (
            (("--depth", "2"), "--depth 1, not --depth 2"),
            (("--seed", "1"), "--seed 0, not --seed 1"),
            (("--mentor", "stockfish"), "--mentor builtin, not --mentor"),
            ((), "no --keep-noisy, not --keep-noisy")):
        run = resume(*changed) if changed else run_mimic(*DATAGEN, "--keep-noisy", "--out", out, "--resume")
        _refused(run, out, words)
        assert out.read_bytes() == made
    # A label run onto datagen's file, and datagen onto label's.
    _refused(resume(command=LABEL), out, "mimic datagen, not mimic label")
    labels = _copy(base, tmp_path)
    _refused(run_mimic(*DATAGEN, "--out", labels, "--resume"), labels, "mimic label, not mimic datagen")
    assert labels.read_bytes() == base.read_bytes() and out.read_bytes() == made
    # The same settings with more positions (and another --hash): resumed.
    more = run_mimic(*[a if a != "10" else "30" for a in DATAGEN], "--hash", "32", "--out", out, "--resume")
    assert more.returncode == 0, more.stderr
    assert out.read_bytes().startswith(made)


@pytest.mark.skipif(stockfish_path() is None, reason="Debian's stockfish is not installed")
def test_a_crowd_resumed_with_other_mentors_or_depth_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "crowd.epd"
    crowd = ["label", "--mentor", "builtin", "--mentor", "stockfish", "--depth", "1", "--positions", "8",
             "--no-progress"]
    assert run_mimic(*crowd, "--out", out).returncode == 0
    made = out.read_bytes()
    _refused(run_mimic(*crowd[:3], *crowd[5:], "--out", out, "--resume"), out,
             f"--mentor builtin --mentor {stockfish_path()}, not --mentor builtin (")
    _refused(run_mimic(*[a if a != "1" else "2" for a in crowd], "--out", out, "--resume"), out,
             "--depth 1, not --depth 2")
    assert out.read_bytes() == made
    assert run_mimic(*crowd, "--out", out, "--resume").returncode == 0


def test_gzip_epd_and_pgn_files_are_sources(base: Path, tmp_path: Path) -> None:
    # The gzip label file as a source gives its 40 positions; a gzip PGN of one 12-ply game, with --skip-plies 0 and
    # --per-game 3, three of its positions.
    run = run_mimic(*LABEL, "--source", base, "--out", tmp_path / "again.epd")
    assert run.returncode == 0, run.stderr
    fens = sorted(parse_label(line).board.epd() for line in gzip.decompress(base.read_bytes()).decode().splitlines())
    again = sorted(parse_label(line).board.epd() for line in (tmp_path / "again.epd").read_text().splitlines())
    assert again == fens
    pgn = tmp_path / "one.pgn.gz"
    pgn.write_bytes(gzip.compress(b'[Result "1/2-1/2"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 '
                                  b'6. Re1 b5 1/2-1/2\n'))
    run = run_mimic(*[a if a != "40" else "3" for a in LABEL], "--source", pgn, "--skip-plies", "0",
                    "--out", tmp_path / "pgn.epd")
    assert run.returncode == 0, run.stderr
    assert len((tmp_path / "pgn.epd").read_text().splitlines()) == 3


def test_gzip_pgn_openings_start_datagen_games(tmp_path: Path) -> None:
    # One opening, 1. e4 e5, in a gzip PGN: every game starts from it, so each label's id-numbered game begins after
    # those two plies plus the 6 random ones; with --skip-plies 0 the first label of game 0 is at ply 2 + 6 = 8.
    pgn = tmp_path / "open.pgn.gz"
    pgn.write_bytes(gzip.compress(b'[Result "*"]\n\n1. e4 e5 *\n'))
    out = tmp_path / "d.epd"
    run = run_mimic(*DATAGEN, "--openings", pgn, "--skip-plies", "0", "--keep-check", "--keep-noisy", "--out", out)
    assert run.returncode == 0, run.stderr
    first = out.read_text().splitlines()[0]
    assert 'id "selfplay:0:0:8"' in first, first

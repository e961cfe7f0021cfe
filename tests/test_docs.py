"""README.md and docs/: the command reference is what ``tools/make_command_docs.py`` writes from the parsers now;
every command has a hand-written section with an example; every link and anchor between the pages resolves; every
repository path they name exists; the README stays a front page (at most 250 lines, its tournament table the
committed run's, nothing repeated from ARCHITECTURE.md). The examples' flags are checked by
``tests/test_readme_examples.py``. Nothing is run but the parser's construction: well under a second."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import pytest

from evolve.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
GENERATED = DOCS / "commands.md"
HAND_WRITTEN = [p for p in PAGES if p != GENERATED]

PENDING_PAGES = {"docs/export.md": "written on branch issue40-export",
                 "docs/terms.md": "written on branch issue40-genome"}
"""Pages the docs link to that other branches write: a link to one is checked once the page exists."""


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_command_docs", ROOT / "tools" / "make_command_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _prose(text: str) -> str:
    """The text without its fenced code blocks (a `# comment` in a shell block is not a heading)."""
    return re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (backticks, '?', '.', ','), spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a page, a repeated heading's with GitHub's -1, -2 suffixes."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", _prose(text), re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """Every command a user runs: the top-level ones and each action of a command that has actions."""
    subs = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if subs is None:
        return [prefix.strip()]
    names = []
    for name, sub in subs.choices.items():
        names += _commands(sub, f"{prefix} {name}")
    return names


TEXTS = {_name(p): p.read_text(encoding="utf-8") for p in PAGES}
COMMANDS = _commands(build_parser())


def test_the_command_reference_is_what_the_parsers_say_now() -> None:
    expected = _generator().render()
    assert GENERATED.read_text(encoding="utf-8") == expected, (
        "docs/commands.md is stale: run `python tools/make_command_docs.py` and commit docs/commands.md")


def test_the_generator_check_mode_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    assert _generator().main(["--check"]) == 0, capsys.readouterr().err


def _term_generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_term_docs", ROOT / "tools" / "make_term_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_of_built_in_terms_is_what_the_code_says_now(capsys: pytest.CaptureFixture[str]) -> None:
    # docs/terms.md's table is what tools/make_term_docs.py writes from organisms/features.py now.
    generator = _term_generator()
    assert generator.rewrite(TEXTS["docs/terms.md"]) == TEXTS["docs/terms.md"], (
        "docs/terms.md's table of built-in terms is stale: run `python tools/make_term_docs.py` and commit it")
    assert generator.main(["--check"]) == 0, capsys.readouterr().err


def test_the_table_of_built_in_terms_has_every_name_builtins_takes() -> None:
    # One row per built-in term, the tempo and each piece's table: each name a term file's `builtins` accepts, its
    # weight's direction as the features' orientation says (a penalty: -1; king centrality: -1 mg, +1 eg).
    from organisms.features import FEATURE_SPEC, PST_PIECES, TERM_NAMES

    table = TEXTS["docs/terms.md"].split("<!-- built-in terms:", 1)[1].split("<!-- end of the built-in terms -->")[0]
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|", table, re.M)}
    assert list(rows) == [*TERM_NAMES, "tempo", *(f"pst_{p}" for p in PST_PIECES)]
    for t, name in enumerate(TERM_NAMES):
        signs = [sign for term, _, sign in FEATURE_SPEC if term == t]
        expected = ("a bonus" if set(signs) == {1} else "a penalty" if set(signs) == {-1} else
                    "a penalty (mg), a bonus (eg)")
        assert rows[name].strip() == expected, name


def test_the_reference_lists_every_command_and_option() -> None:
    # What the generator reads: each command's heading, and every option string of every command, in the page.
    text = TEXTS["docs/commands.md"]
    parser = build_parser()
    for command in COMMANDS:
        assert f"`mimic {command}`" in text, command
        sub = parser
        for word in command.split():
            sub = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in text or f"| {option}`" in text, (command, option)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_hand_written_section_with_an_example(command: str) -> None:
    # A heading naming `mimic COMMAND` in a hand-written page, and the command shown in use there (a fenced line or
    # an inline span that starts with it).
    headed = [_name(p) for p in HAND_WRITTEN
              if re.search(rf"^#+ .*`mimic {re.escape(command)}`", _prose(TEXTS[_name(p)]), re.M)]
    assert headed, f"no hand-written page of docs/ has a heading for `mimic {command}`"
    shown = re.compile(rf"(^ *|`)mimic {re.escape(command)}( |`|$)", re.M)
    assert any(shown.search(TEXTS[name].replace("`mimic " + command + "`", "")) for name in headed), (
        f"{headed}: no example of `mimic {command}`")


def test_the_index_lists_every_page() -> None:
    # docs/README.md is the map: every hand-written page, and the pages other branches add, are listed in it.
    index = TEXTS["docs/README.md"]
    listed = set(re.findall(r"\]\(([\w-]+\.md)\)", index))
    pages = {p.name for p in HAND_WRITTEN if p.parent == DOCS and p.name != "README.md"} | {"commands.md"}
    pages |= {Path(p).name for p in PENDING_PAGES}
    assert pages <= listed, pages - listed


def _links(text: str) -> list[str]:
    prose = re.sub(r"`[^`\n]*`", "", _prose(text))
    return re.findall(r"\]\(([^)\s]+)\)", prose)


@pytest.mark.parametrize("page", [_name(p) for p in PAGES])
def test_every_link_and_anchor_resolves(page: str) -> None:
    base = (ROOT / page).parent
    broken = []
    for link in _links(TEXTS[page]):
        if re.match(r"[a-z]+:", link):  # http:, https:, mailto:
            continue
        target, _, fragment = link.partition("#")
        path = (base / target).resolve() if target else ROOT / page
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        if not path.exists():
            if rel not in PENDING_PAGES:
                broken.append(f"{link} (no {rel})")
            continue
        if fragment and path.suffix == ".md" and fragment not in anchors(path.read_text(encoding="utf-8")):
            broken.append(f"{link} (no heading #{fragment} in {rel})")
    assert broken == [], f"{page}: {broken}"


def test_the_pending_pages_are_linked() -> None:
    # The pending list must not hide a typo: each page on it is one the docs link to.
    linked = {(DOCS / link.partition("#")[0]).resolve().relative_to(ROOT).as_posix()
              for name, text in TEXTS.items() if name.startswith("docs/")
              for link in _links(text) if not re.match(r"[a-z]+:", link) and link.partition("#")[0]}
    assert set(PENDING_PAGES) <= linked


REPO_PATH = re.compile(r"(?<![\w/.$-])((?:results|data|benchmarks|tools|search|organisms|mentor|evolve|tests)/"
                       r"[\w./-]*[\w/])")


def test_every_repository_path_named_exists() -> None:
    # A path of the checkout named anywhere in the hand-written pages (`results/pnet/summary.md`,
    # `data/player-games/Tal.pgn`, `benchmarks/label.py`) is there, unless it is a placeholder (a part in capitals:
    # `results/NAME/`), a formula (`mentor/K`) or an output an example writes (after `--out`, or a command's
    # default output folder).
    parser = build_parser()
    outputs = {a.default for sub in _all_parsers(parser) for a in sub._actions
               if "--out" in a.option_strings and isinstance(a.default, str)}
    outputs |= {m for text in TEXTS.values() for m in re.findall(r"--out (\S+)", text)}
    missing = set()
    for name, text in TEXTS.items():
        if name == "docs/commands.md":
            continue
        for path in REPO_PATH.findall(text):
            path = path.rstrip(".").rstrip("/")
            if re.search(r"(^|/)[A-Z][A-Z_]*(/|$)", path) or (ROOT / path).exists():
                continue
            if any(path == out.rstrip("/") or path.startswith(out.rstrip("/") + "/") for out in outputs):
                continue
            missing.add(f"{name}: {path}")
    assert sorted(missing) == []


def _all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    subs = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    found = [parser]
    for sub in (subs.choices.values() if subs else []):
        found += _all_parsers(sub)
    return found


def test_every_benchmark_is_described() -> None:
    text = TEXTS["docs/benchmarks.md"]
    missing = [p.name for p in sorted((ROOT / "benchmarks").glob("*.py")) if f"benchmarks/{p.name}" not in text]
    assert missing == []


def test_the_readme_is_a_front_page() -> None:
    text = TEXTS["README.md"]
    assert len(text.splitlines()) <= 250
    # The quick start's two set-up commands, exactly.
    assert re.search(r"^make demo +# ", text, re.M) and re.search(r"^make test +# ", text, re.M)
    for section in ("## Install", "## Quick start", "## A five-minute tour", "## How strong is each evaluator?"):
        assert f"\n{section}\n" in text, section
    # Every hand-written page of docs/ is one link away.
    for page in HAND_WRITTEN:
        if page.parent == DOCS and page.name != "README.md":
            assert f"(docs/{page.name}" in text, page.name


def test_the_readme_tournament_table_is_the_committed_runs() -> None:
    summary = (ROOT / "results" / "tournament-2" / "summary.md").read_text(encoding="utf-8")
    table = re.search(r"```\n(rank .*?)```", summary, re.S)
    assert table is not None
    assert f"```\n{table.group(1)}```" in TEXTS["README.md"]


def _words(text: str, n: int) -> set[tuple[str, ...]]:
    words = re.findall(r"[\w'’-]+", text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_the_readme_repeats_nothing_of_architecture_md() -> None:
    # ARCHITECTURE.md is the authority on the layout: the README links to it and shares no run of 8 words with it.
    shared = _words(TEXTS["README.md"], 8) & _words((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"), 8)
    assert shared == set(), sorted(" ".join(w) for w in shared)[:5]
    assert "(ARCHITECTURE.md)" in TEXTS["README.md"]

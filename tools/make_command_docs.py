"""Write docs/commands.md, the command reference, from the ``mimic`` parsers (``evolve.cli.build_parser``).

    python tools/make_command_docs.py            # rewrite docs/commands.md
    python tools/make_command_docs.py --check    # exit 1, saying so, when docs/commands.md is not what this writes

Every command and subcommand in the order ``mimic --help`` lists them: its one-line help, its description, a
synopsis (arguments, then required options, then the others in brackets; the options of a mutually exclusive group
as ``[--a A | --b B]``) and every argument under its group (and the group's description) with the help and default
``--help`` prints. Nothing in the page is written by hand: the prose and examples of each command live in the
hand-written pages of docs/, and ``tests/test_docs.py`` fails when the committed page differs from what this script
writes now. Only the parsers' own fields are read (no help formatting that depends on the terminal's width), so the
page is the same anywhere.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python tools/make_command_docs.py` from a checkout
    sys.path.insert(0, str(ROOT))

from evolve.cli import build_parser  # noqa: E402

OUT = ROOT / "docs" / "commands.md"
REGENERATE = "python tools/make_command_docs.py"
WIDTH = 110
HEADER = f"""# Command reference

Generated from `mimic`'s own parsers by `{REGENERATE}`: do not edit it by hand (`tests/test_docs.py`
fails when it differs from what the script writes). It lists every command and every option with its default, as
`--help` gives them; every command also takes `-h`/`--help`. What the commands are for, with examples, is in the
hand-written pages that [docs/README.md](README.md) lists.
"""


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _metavar(action: argparse.Action) -> str:
    """The argument's value as ``--help`` names it, with its repetition (``M``, ``[M]``, ``M [M ...]``)."""
    if action.nargs == 0:
        return ""
    if isinstance(action.metavar, tuple):
        return " ".join(action.metavar)
    if action.metavar is not None:
        name = action.metavar
    elif action.choices is not None:
        name = "{" + ",".join(str(c) for c in action.choices) + "}"
    else:
        name = action.dest.upper() if action.option_strings else action.dest
    if action.nargs == "?":
        return f"[{name}]"
    if action.nargs == "*":
        return f"[{name} ...]"
    if action.nargs == "+":
        return f"{name} [{name} ...]"
    if isinstance(action.nargs, int):
        return " ".join([name] * action.nargs)
    return name


def _form(action: argparse.Action, option: str | None = None) -> str:
    """One argument as written on a command line: ``--out OUT``, ``LABELS``, or ``--psqt | --no-psqt``; an option
    with several names by its first (as ``--help``'s usage line) or by ``option``."""
    value = _metavar(action)
    if not action.option_strings:
        return value
    if action.nargs == 0:
        return " | ".join(action.option_strings)
    return f"{option or action.option_strings[0]} {value}"


def _forms(action: argparse.Action) -> str:
    """Every name of an argument, each as written on a command line, for its entry in the list."""
    if action.nargs == 0 or len(action.option_strings) < 2:
        return f"`{_form(action)}`"
    return ", ".join(f"`{_form(action, option)}`" for option in action.option_strings)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The argument's help with its default, as the command's own help formatter expands it."""
    formatter = parser._get_formatter()
    text = formatter._expand_help(action) if action.help else ""  # type: ignore[attr-defined]
    return " ".join(text.split()).replace("<", "&lt;")


def _documented(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if a.help is not argparse.SUPPRESS and not isinstance(a, (argparse._HelpAction,
                                                                       argparse._SubParsersAction))]


def synopsis(name: str, parser: argparse.ArgumentParser) -> str:
    """The command line with every argument, wrapped at WIDTH; continuation lines indented under the first."""
    actions = _documented(parser)
    groups = {id(a): g for g in parser._mutually_exclusive_groups for a in g._group_actions}
    words = [_form(a) for a in actions if not a.option_strings]
    words += [_form(a) for a in actions if a.option_strings and a.required and id(a) not in groups]
    seen: set[int] = set()
    for action in actions:
        if not action.option_strings or (action.required and id(action) not in groups):
            continue
        group = groups.get(id(action))
        if group is None:
            words.append(f"[{_form(action)}]")
        elif id(group) not in seen:
            seen.add(id(group))
            inner = " | ".join(_form(a) for a in group._group_actions)
            words.append(inner if group.required else f"[{inner}]")
    subs = _subparsers(parser)
    if subs is not None:
        words.append("{" + ",".join(subs.choices) + "} ...")
    head = f"mimic {name}"
    lines, line = [], head
    for word in words:
        if len(line) + 1 + len(word) > WIDTH and line.strip() != head:
            lines.append(line)
            line = " " * len(head)
        line += " " + word
    lines.append(line)
    return "\n".join(lines)


def _wrapped_item(forms: str, text: str) -> list[str]:
    item = f"- {forms}" + (f": {text}" if text else "")
    return textwrap.wrap(item, WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def _anchor(name: str) -> str:
    """GitHub's anchor of the heading ``### `mimic NAME` ``."""
    return "mimic-" + name.replace(" ", "-")


def command_section(name: str, parser: argparse.ArgumentParser, help_line: str, epilogs: dict[str, str],
                    level: int = 2) -> list[str]:
    out = [f"{'#' * level} `mimic {name}`", ""]
    if help_line:
        out += [help_line[:1].upper() + help_line[1:] + ".", ""]
    if parser.description and parser.description.rstrip(".").lower() != help_line.rstrip(".").lower():
        if "\n" in parser.description:
            out += ["```text", parser.description.rstrip(), "```", ""]
        else:
            out += [*textwrap.wrap(parser.description, WIDTH, break_long_words=False, break_on_hyphens=False), ""]
    out += ["```text", synopsis(name, parser), "```", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a in _documented(parser)]
        if not actions:
            continue
        title = {"positional arguments": "arguments"}.get(group.title or "", group.title or "")
        out += [f"{title[:1].upper()}{title[1:]}:", ""]
        if group.description:
            out += [*textwrap.wrap(" ".join(group.description.split()), WIDTH, break_long_words=False,
                                   break_on_hyphens=False), ""]
        for action in actions:
            text = _help(parser, action)
            if action.required and action.option_strings:
                text = "required; " + text
            out += _wrapped_item(_forms(action), text)
        out.append("")
    for group in parser._mutually_exclusive_groups:
        names = ", ".join(f"`{a.option_strings[0]}`" for a in group._group_actions)
        out += [f"{'Exactly' if group.required else 'At most'} one of {names}.", ""]
    subs = _subparsers(parser)
    if subs is not None:
        out += ["Actions:", ""]
        for choice in subs._choices_actions:
            out += _wrapped_item(f"`{choice.dest}`", f"{choice.help} ([below](#{_anchor(f'{name} {choice.dest}')}))")
        out.append("")
    if parser.epilog:
        first = epilogs.setdefault(parser.epilog, name)
        if first == name:
            out += ["```text", parser.epilog.rstrip(), "```", ""]
        else:
            out += [f"The player specs are those listed under [`mimic {first}`](#{_anchor(first)}).", ""]
    if subs is not None:
        for choice in subs._choices_actions:
            out += command_section(f"{name} {choice.dest}", subs.choices[choice.dest], choice.help or "", epilogs,
                                   level + 1)
    return out


def render() -> str:
    """The whole page, as it should be committed."""
    parser = build_parser()
    subs = _subparsers(parser)
    assert subs is not None
    helps = {c.dest: c.help or "" for c in subs._choices_actions}
    out = [HEADER, "| command | what it does |", "|---|---|"]
    out += [f"| [`mimic {name}`](#{_anchor(name)}) | {helps[name]} |" for name in subs.choices]
    out.append("")
    epilogs: dict[str, str] = {}
    for name, sub in subs.choices.items():
        out += command_section(name, sub, helps[name], epilogs)
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when docs/commands.md is stale")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run `{REGENERATE}`", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

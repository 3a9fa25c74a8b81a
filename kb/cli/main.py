"""Entry point of the `kb` command: dispatches to one module per sub-command.

Exit codes (every command): 0 success / clean, 1 findings or errors reported, 2 usage error;
each command's `--help` ends with its own `exit status:` block (`kb diagnose`: 0 a known case
matched, 1 no case matched; `kb preflight`: 3 nothing could be checked).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from kb.cli.options import HelpFormatter, exit_status

# name -> module under kb.cli exposing `register(subparsers)`; each sets `func` on its parser.
COMMANDS: dict[str, str] = {
    "check": "kb.cli.check",
    "fmt": "kb.cli.fmt",
    "evidence": "kb.cli.evidence",
    "compile": "kb.cli.compile",
    "diagnose": "kb.cli.diagnose",
    "new": "kb.cli.new",
    "test": "kb.cli.test",
    "eval": "kb.cli.eval",
    "export": "kb.cli.export",
    "batch": "kb.cli.batch",
    "collect": "kb.cli.collect",
    "run": "kb.cli.run",
    "preflight": "kb.cli.preflight",
    "triage": "kb.cli.triage",
}
VERSION_FLAGS = ("-V", "--version")
EXIT_STATUS = (
    exit_status(
        (0, "success: clean, or (kb diagnose) a known case matched"),
        (1, "findings or errors reported, or (kb diagnose) no case matched"),
        (2, "usage error"),
    )
    + "\n(each command's --help lists its own: kb COMMAND --help)"
)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def version_line() -> str:
    """`kb VERSION` from the installed package's metadata (no kb module is imported)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"kb {version('distkb')}"
    except PackageNotFoundError:
        return "kb (version unknown: the distkb package is not installed)"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        parser.exit(0, version_line() + "\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that sub-command's module is imported (start-up time:
    `kb evidence` should not pay for the compiler, the site or the fixture runner)."""
    parser = _Parser(
        prog="kb", description="Diagnose distributed-training incidents.", epilog=EXIT_STATUS
    )
    parser.add_argument(*VERSION_FLAGS, action=_VersionAction, help="print kb's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = [COMMANDS[only]] if only in COMMANDS else list(COMMANDS.values())
    for module_name in names:  # a listed sub-command that does not import is a bug: raised
        importlib.import_module(module_name).register(sub)
    return parser


def _command_parser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser:
    """The sub-command's own parser (for its usage line), else the top-level one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen: argparse.ArgumentParser = action.choices[name]
            return chosen
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] and args_list[0] in VERSION_FLAGS:  # cheap: no sub-command is imported
        print(version_line())
        return 0
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS and "-h" not in args_list[:1] else None)
    args, extras = parser.parse_known_args(args_list)
    if extras:  # said with the sub-command's usage line, not `kb [-h] COMMAND`
        _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extras)}")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    # the command imports its modules now (not `kb --help`, which stays light): their
    # dataclasses' methods come compiled from the store (kb.cache.dataclass_code)
    from kb.cache import dataclass_code

    dataclass_code.install()
    one_shot = argv is None and getattr(args, "one_shot", False)
    if one_shot:  # the process's own command line, for a command that asked (kb.cli.one_shot)
        from kb.cli import one_shot as process

        process.begin()
    try:
        code = int(args.func(args))
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    if one_shot:
        process.exit_now(code)
    return code


if __name__ == "__main__":
    raise SystemExit(main())

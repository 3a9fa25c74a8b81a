"""Entry point of the `kb` command: dispatches to one module per sub-command.

Exit codes (every command): 0 success / clean, 1 findings or errors reported, 2 usage error.
`kb diagnose` documents its own: 0 a known case matched, 1 no case matched, 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

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
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that sub-command's module is imported (start-up time:
    `kb evidence` should not pay for the compiler, the site or the fixture runner)."""
    parser = _Parser(prog="kb", description="Diagnose distributed-training incidents.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    names = [COMMANDS[only]] if only in COMMANDS else list(COMMANDS.values())
    for module_name in names:  # a listed sub-command that does not import is a bug: raised
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS and "-h" not in args_list[:1] else None)
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())

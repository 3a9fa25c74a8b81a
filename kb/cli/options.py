"""The options every sub-command spells the same way, and the `exit status:` block of its
`--help`. Only argparse here: `kb evidence` and `kb --version` import this without paying for
the language or the reader."""

from __future__ import annotations

import argparse
import textwrap

STDIN = "-"


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that a description or epilog keeps its line breaks and
    the indentation of each line (so exit codes stay one a line); long lines still wrap,
    an indented line with a hanging indent."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            words = line.strip()
            depth = len(line) - len(line.lstrip())
            lead = indent + " " * depth
            hang = lead + "    " if depth else lead
            lines.append(
                textwrap.fill(words, width, initial_indent=lead, subsequent_indent=hang)
                if words
                else ""
            )
        return "\n".join(lines)


def exit_status(*codes: tuple[int | str, str]) -> str:
    """The epilog of a command's `--help`: one exit code a line with what it means."""
    return "exit status:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in codes)


def add_evidence_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """The evidence to read, as a positional PATH or as `--evidence/-e PATH` (one of the two,
    never both); `-` reads standard input. `evidence_path(args)` gives the one given."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("evidence_path", nargs="?", metavar="PATH", help=f"{what}, or - for stdin")
    group.add_argument(
        "--evidence",
        "-e",
        metavar="PATH",
        help="the same PATH given as an option (either form, not both)",
    )


def evidence_path(args: argparse.Namespace) -> str:
    """The PATH of `add_evidence_argument`, whichever form it was given in."""
    return str(args.evidence if args.evidence is not None else args.evidence_path)


def add_verbosity_options(parser: argparse.ArgumentParser, *, quiet: str, verbose: str) -> None:
    """`-q/--quiet` and `-v/--verbose` (not both): how much of the text report to print."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help=quiet)
    group.add_argument("-v", "--verbose", action="store_true", help=verbose)

"""List the messages rdma-core's libraries and tools print, so the catalogue can follow new releases.

Reads a checkout of github:linux-rdma/rdma-core (the work tree, or a release tag with --rev, no
checkout needed) and prints the text of every `fprintf`, `printf`, `perror` and `mlx5_err` call in
libibverbs (warnings such as `libibverbs: Warning: RLIMIT_MEMLOCK is … bytes.`, and ibv_devinfo's
port lines), infiniband-diags' ibstat and the mlx5 provider, as templates in the syntax of
`catalogue/messages/` (`%d` -> `{_:int}`, `%x` -> `{_:hex}`, `%s` -> `{_}`; PFX and other string
macros expanded; perror gets its `: {_}` errno text). One line of a message per output line.

    python scripts/catalogue/extract_rdma_core.py --repo ~/src/rdma-core
    python scripts/catalogue/extract_rdma_core.py --repo rdma-core.git --rev v64.0

Each output line is `path:line<TAB>function<TAB>template`. Standard library only.
Exit status: 0 listed, 2 bad arguments or unreadable checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_messages import Found, Printer, SourceError, Tree, find_messages, scoped_macros

SOURCE_PATHS = ("libibverbs", "infiniband-diags/ibstat.c", "providers/mlx5")
PRINTERS = (
    Printer("fprintf", 1),
    Printer("printf", 0),
    Printer("perror", 0, suffix=": {_}"),
    Printer("mlx5_err", 1),
)


def messages(tree: Tree, paths: tuple[str, ...]) -> list[Found]:
    files = tree.files(paths)
    texts = {path: tree.read(path) for path in files}
    macros = scoped_macros(texts)
    return [
        found
        for path in files
        for found in find_messages(path, texts[path], PRINTERS, macros[path])
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 listed, 2 bad arguments or unreadable checkout.",
    )
    parser.add_argument("--repo", required=True, type=Path, help="rdma-core checkout")
    parser.add_argument("--rev", help="a tag or commit to read instead of the work tree")
    parser.add_argument(
        "--path",
        action="append",
        dest="paths",
        help=f"a file or folder to read (repeatable; default: {', '.join(SOURCE_PATHS)})",
    )
    args = parser.parse_args(argv)
    try:
        found = messages(Tree(args.repo, args.rev), tuple(args.paths or SOURCE_PATHS))
    except SourceError as exc:
        print(f"extract_rdma_core: {exc}", file=sys.stderr)
        return 2
    for item in found:
        print(f"{item.path}:{item.line}\t{item.printer}\t{item.template}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

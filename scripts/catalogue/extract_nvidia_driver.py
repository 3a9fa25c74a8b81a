"""List the messages NVIDIA's kernel driver prints, so the catalogue can follow new driver releases.

Reads a checkout of github:NVIDIA/open-gpu-kernel-modules (the work tree, or a release tag with
--rev, no checkout needed) and prints:

- every kernel log message (`nv_printf`, `NV_DEV_PRINTF`, `portDbgPrintf`) whose text starts with
  `NVRM:` or is printed for a GPU, as a template in the syntax of `catalogue/messages/`
  (`%d` -> `{_:int}`, `%x` -> `{_:hex}`, `%s` -> `{_}`), one line of the message per output line;
- the text the driver gives each Xid it logs (`nvErrorLog_va` / `NV_ERROR_LOG(pGpu, XID, "text")`);
- every Xid number defined in src/common/sdk/nvidia/inc/nverror.h with its name, as the
  template `NVRM: Xid (PCI:{pci}): N, {detail}` that catalogue/messages/nvidia-driver/xid.kb uses.

A maintainer diffs the output of two releases (or greps it for a catalogue wording) to see which
messages appeared, changed or went away:

    python scripts/catalogue/extract_nvidia_driver.py --repo ~/src/open-gpu-kernel-modules
    python scripts/catalogue/extract_nvidia_driver.py --repo ogkm.git --rev 595.45.04 --only xid

Each output line is `path:line<TAB>kind<TAB>template` (kind: the printing function, or `Xid NAME`).
Standard library only. Exit status: 0 listed, 2 bad arguments or unreadable checkout.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_messages import Found, Printer, SourceError, Tree, find_messages, scoped_macros

SOURCE_DIRS = ("kernel-open/nvidia", "kernel-open/common/inc", "src/nvidia")
XID_HEADER = "src/common/sdk/nvidia/inc/nverror.h"
_PCI = "{_:hex}:{_:hex}:{_:hex}.{_:hex}"  # NV_PCI_DEV_FMT
PRINTERS = (
    Printer("nv_printf", 1),
    Printer("NV_DEV_PRINTF", 2, prefix=f"NVRM: GPU {_PCI}: "),
    Printer("portDbgPrintf", 0),
    Printer("nvErrorLog_va", 2, prefix="NVRM: Xid (PCI:{pci}): {xid:int}, "),
    Printer("NV_ERROR_LOG", 2, prefix="NVRM: Xid (PCI:{pci}): {xid:int}, "),
    Printer("NV_ERROR_LOG_COND", 2, prefix="NVRM: Xid (PCI:{pci}): {xid:int}, "),
)
_XID_DEFINE = re.compile(r"^#define\s+([A-Z][A-Z0-9_]*)\s+\((\d+)\)", re.M)


def xid_templates(tree: Tree) -> Iterator[Found]:
    """One template per Xid number nverror.h defines (aliases of a number are skipped)."""
    try:
        text = tree.read(XID_HEADER)
    except (SourceError, OSError):
        return
    seen: set[int] = set()
    for match in _XID_DEFINE.finditer(text):
        number = int(match.group(2))
        if number in seen:
            continue
        seen.add(number)
        line = text.count("\n", 0, match.start()) + 1
        yield Found(
            XID_HEADER,
            line,
            f"Xid {match.group(1)}",
            f"NVRM: Xid (PCI:{{pci}}): {number}, {{detail}}",
        )


def driver_messages(tree: Tree) -> Iterator[Found]:
    """The driver's kernel log messages: text printed with an NVRM prefix, or for a GPU."""
    paths = tree.files(SOURCE_DIRS)
    texts = {path: tree.read(path) for path in paths}
    macros = scoped_macros(texts)
    for path in paths:
        for found in find_messages(path, texts[path], PRINTERS, macros[path]):
            if found.printer != "nv_printf" or found.template.startswith("NVRM"):
                yield found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 listed, 2 bad arguments or unreadable checkout.",
    )
    parser.add_argument("--repo", required=True, type=Path, help="open-gpu-kernel-modules checkout")
    parser.add_argument("--rev", help="a tag or commit to read instead of the work tree")
    parser.add_argument(
        "--only", choices=("all", "xid", "messages"), default="all", help="what to list"
    )
    args = parser.parse_args(argv)
    try:
        tree = Tree(args.repo, args.rev)
        found: list[Found] = []
        if args.only in ("all", "xid"):
            found.extend(xid_templates(tree))
        if args.only in ("all", "messages"):
            found.extend(driver_messages(tree))
    except SourceError as exc:
        print(f"extract_nvidia_driver: {exc}", file=sys.stderr)
        return 2
    for item in found:
        print(f"{item.path}:{item.line}\t{item.printer}\t{item.template}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

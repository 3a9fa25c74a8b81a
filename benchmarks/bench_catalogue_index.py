"""How the catalogue index's line lookup scales: the gram pre-filter against testing every
entry's literal on every line (what `messages_in` did before), in one run.

    python benchmarks/bench_catalogue_index.py [--lines 20000]

Lines are the stored fixtures' own (cases/*/fixtures), cycled to --lines. The table gives
CPU seconds per 10,000 lines for both ways and their ratio, and checks that both find the
same messages on every line.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

from dsl.catalogue import index
from dsl.catalogue.load import held_fingerprint

ROOT = Path(__file__).resolve().parent.parent


def fixture_lines(limit: int) -> list[str]:
    lines: list[str] = []
    for path in sorted((ROOT / "cases").glob("*/fixtures/**/*")):
        if path.is_file() and path.suffix not in (".yaml", ".kb"):
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return list(itertools.islice(itertools.cycle(lines), limit)) if lines else []


def each_entry(text: str, entries: list[index.IndexedMessage]) -> list[index.IndexedMessage]:
    """Every entry's literal tested on the line, then its pattern (the lookup it replaced)."""
    text = text[: index.MAX_LINE]
    lowered = text.lower()
    return [e for e in entries if index._matches(e, text, lowered)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=20000)
    args = parser.parse_args()
    import dsl.api  # noqa: F401  (installs the bundled catalogue)

    with held_fingerprint():
        entries = index.message_index().messages
        lines = fixture_lines(args.lines)
        for line in lines[:200]:  # compile the patterns outside the timing
            each_entry(line, entries)
        start = time.process_time()
        filtered = [index.messages_in(line, entries) for line in lines]
        grams = time.process_time() - start
        start = time.process_time()
        tested = [each_entry(line, entries) for line in lines]
        every = time.process_time() - start
    same = all(
        [e.id for e in a] == [e.id for e in b] for a, b in zip(filtered, tested, strict=True)
    )
    per = 10_000 / max(len(lines), 1)
    print(f"# catalogue index: {len(entries)} messages, {len(lines)} fixture lines")
    print(f"gram pre-filter      {grams * per:8.3f} CPU s / 10k lines")
    print(f"every entry tested   {every * per:8.3f} CPU s / 10k lines")
    print(f"ratio                {every / max(grams, 1e-9):8.1f}x")
    print(f"same messages found  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

"""Fuzz the two untrusted inputs: case files (a pack comes by pull request) and evidence (a
folder or archive attached to an issue).

    python scripts/fuzz.py --cases 100000 --evidence 10000 --seed 1

Case files are real cases mutated (spans cut, doubled and swapped; hostile tokens: deep
nesting, huge numbers, odd Unicode, backtracking and Unicode regexes, fixture paths that
leave the case). Each goes through what `kb check`, `kb compile` and `kb fmt` run; the
property is: no exception escapes, and every error names `file:line`.

Evidence is built from the lines of real fixtures, mutated (flipped bytes, ANSI escapes,
invalid UTF-8, NULs, numbers of thousands of digits, very long lines), under hostile names,
as plain folders or as tar/tar.gz/zip/gz archives, some corrupted or cut short, some small
bombs. Each is diagnosed and rendered as text, JSON and markdown; the property is: no
exception, JSON that is valid UTF-8, no control character reaching the terminal.

Every input is timed twice: the CPU time of this process and the wall time. One over --slow
seconds (default 10) of CPU counts as a hang; wall time is printed beside it but not counted,
because on a shared machine it measures the load as much as the input (an input that blocks
without using CPU never returns, and the run does not finish). The script prints how many
inputs it tried and every failure with the seed that reproduces it.
The test suite runs a short, fixed-seed run of the same generators (tests/test_fuzz.py).

The long run (issue 29) puts each input in a worker process instead:

    nice -n 10 python scripts/fuzz.py --cases 50000 --evidence 20000 --seed 1 \
        --workers 1 --max-seconds 1740 --out /tmp/kb-fuzz-long

Each input is bounded by RLIMIT_CPU (--timeout, 10 s: the kernel ends the worker) and by
--wall-timeout (an input that blocks); either is a hang, counted only if it recurs when run
again in a fresh worker, because in a VM a process's CPU time also grows while the host
deschedules it. The worker's peak RSS is read after each input (a worker that passes
--memory-gb counts that input and is replaced). An exception is a traceback; a located error
is the documented result and is fine. Every failing input is rebuilt from its seed under
--out; `--inputs case:SEED evidence:SEED` runs just those again. --max-seconds stops starting
new inputs; the one summary line says how many ran, and the exit status is 1 on any failure.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import kb as _runtime  # noqa: E402, F401  (regex and source checks, as in `kb check`)
from dsl.api import DEFAULT_CASES, load_cases  # noqa: E402
from dsl.compiler import KnowledgeBase, compile_case, load_knowledge_base  # noqa: E402
from dsl.formatter import format_text  # noqa: E402

# ------------------------------------------------------------------ case files

HOSTILE_TOKENS = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    '"',
    '"""',
    "```",
    "/",
    "\\",
    "#",
    ",",
    ":",
    "not " * 300,
    "(" * 400,
    ")" * 400,
    "[" * 400,
    "{" * 300,
    "at_least " + "9" * 400 + " of (a, b)",
    "weight " + "9" * 400,
    "weight 1e309",
    "weight -0",
    "min_count 99999999999999999999",
    "date 2024-99-99",
    "date 0000-00-00",
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\\u0000"',
    "\u202e",
    "\u200b",
    "\U0001f525",
    "\x00",
    "\x1b[2J",
    "\x1b]0;owned\x07",
    "\r",
    "\x0b",
    "\x1c",
    "\ufeff",
    "/(a+)+$/",
    "/(?=x)y/",
    "/(a)\\1/",
    "/[/",
    "/\\p{Han}+/",
    "/[错误]/",
    "/a{2,1}/",
    "/x{1000}{1000}/",
    "/(?i)/",
    "//",
    "/\\A/",
    'fixture "positive/../../../../etc" { expect match }',
    'fixture "/etc" { expect match }',
    'fixture "positive/' + "x" * 300 + '" { expect match }',
    "case",
    "match",
    "require",
    "likely",
    "possible",
    "rule_out",
    "support",
    "evidence",
    "remedy",
    "step",
    "fixture",
    "symptom",
    "provenance",
    "x" * 5000,
    "require " + " and ".join(["a"] * 3000),
]


def real_cases() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(DEFAULT_CASES.glob("*/case.kb"))]


def mutate_case(text: str, rng: random.Random) -> str:
    """One to four random edits of a case's text."""
    for _ in range(rng.randint(1, 4)):
        n = len(text)
        op = rng.randrange(7)
        i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
        if op == 0:
            text = text[:i] + text[j : j + (j - i) // 4] + text[j:]  # cut a span
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]  # double a span
        elif op == 2:
            text = text[:i] + rng.choice(HOSTILE_TOKENS) + text[i:]
        elif op == 3:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == 4:
            text = text[: rng.randrange(n + 1)]  # truncated
        elif op == 5:
            digits = [k for k in range(n) if text[k].isdigit()]
            if digits:
                k = rng.choice(digits)
                text = text[:k] + "9" * rng.choice([20, 400, 5000]) + text[k:]
        else:
            text = (
                text[:i]
                + chr(
                    rng.choice(
                        [0xD800, 0x0, 0x1B, 0x85, 0x2028, 0xFFFF, rng.randrange(0x20, 0x30000)]
                    )
                )
                + text[i:]
            )
    return text


def nested_case(rng: random.Random) -> str:
    """A valid case shell around a deeply nested condition, list or block."""
    depth = rng.choice([10, 70, 500, 3000])
    kind = rng.randrange(4)
    condition = "a"
    if kind == 0:
        condition = "not " * depth + "a"
    elif kind == 1:
        condition = "(" * depth + "a" + ")" * depth
    elif kind == 2:
        condition = "at_least 1 of (" * depth + "a" + ")" * depth
    steps = ""
    if kind == 3:
        steps = (
            '  remedy "r" {\n'
            + '    step "s" {\n' * depth
            + '      verify "v"\n'
            + "    }\n" * depth
            + "  }\n"
        )
    return (
        f'case fuzz-nested {{\n  title "t"\n  summary "s"\n  evidence a: log {{\n'
        f"    pattern /NCCL WARN x/\n  }}\n{steps}  match {{\n    require {condition}\n"
        "  }\n}\n"
    )


@dataclass
class Findings:
    tried: int = 0
    failures: list[str] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)
    slowest: float = 0.0  # CPU seconds
    slowest_wall: float = 0.0
    rejected: int = 0  # inputs with at least one error (all located)

    def timed(self, label: str, clock: Clock, limit: float) -> None:
        cpu, wall = clock.elapsed()
        self.slowest = max(self.slowest, cpu)
        self.slowest_wall = max(self.slowest_wall, wall)
        if cpu > limit:
            self.slow.append(f"{label}: {cpu:.1f} s of CPU ({wall:.1f} s wall)")


class Clock:
    """CPU and wall time since it was made."""

    def __init__(self) -> None:
        self.cpu = time.process_time()
        self.wall = time.perf_counter()

    def elapsed(self) -> tuple[float, float]:
        return time.process_time() - self.cpu, time.perf_counter() - self.wall


def check_case_text(text: str, folder: Path) -> list[str]:
    """What `kb check`, `kb compile` and `kb fmt` do with one case file; the problems found."""
    problems = []
    case_dir = folder / "fuzz-case"
    case_dir.mkdir(parents=True, exist_ok=True)
    path = case_dir / "case.kb"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = load_cases([path], with_env=False)
    for d in result.diagnostics:
        if d.severity.value == "error" and (d.line < 1 or d.code == "internal"):
            problems.append(f"error without a located cause: {d.location}: {d.message[:200]}")
    for case in result.cases:
        if result.ok:
            compile_case(case, str(path), "fuzz").model_dump_json()
    if result.ok:
        format_text(path.read_text(encoding="utf-8", errors="replace"), str(path))
    return problems


def fuzz_cases(count: int, seed: int, slow: float, log: Callable[[str], None]) -> Findings:
    rng = random.Random(seed)
    corpus = real_cases()
    found = Findings()
    with tempfile.TemporaryDirectory(prefix="kb-fuzz-cases-") as tmp:
        for k in range(count):
            case_seed = rng.randrange(2**32)
            local = random.Random(case_seed)
            text = (
                nested_case(local)
                if local.random() < 0.05
                else mutate_case(local.choice(corpus), local)
            )
            start = Clock()
            try:
                problems = check_case_text(text, Path(tmp) / str(k % 64))
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                problems = ["".join(traceback.format_exception(exc))[-1500:]]
            found.timed(f"case seed {case_seed}", start, slow)
            found.tried += 1
            for p in problems:
                found.failures.append(f"case seed {case_seed}: {p}")
            if count >= 1000 and (k + 1) % (count // 10) == 0:
                log(
                    f"  cases: {k + 1}/{count}, failures {len(found.failures)}, "
                    f"slowest {found.slowest:.2f} s of CPU"
                )
    return found


def case_from_seed(seed: int, corpus: list[str] | None = None) -> str:
    """The case text a `case seed N` failure refers to, to reproduce it."""
    local = random.Random(seed)
    corpus = corpus or real_cases()
    return nested_case(local) if local.random() < 0.05 else mutate_case(local.choice(corpus), local)


# ------------------------------------------------------------------ evidence

ODD_NAMES = [
    "rank0.log",
    "rank1.log",
    "nvidia-smi.txt",
    "pip-freeze.txt",
    "env.txt",
    "notes.md",
    "train.py",
    "collect_env.txt",
    "stack.txt",
    "dmesg.txt",
    "na\udcffme.log",
    "evil\x1b[2J.log",
    "line\nbreak.log",
    "ümlaut-日志.log",
    "x" * 200 + ".log",
    "..log",
    "-rf.log",
    "config.yaml",
    "accelerate_config.yaml",
]
LINE_MUTATIONS = [
    lambda s, r: s,
    lambda s, r: s,
    lambda s, r: s.replace(b"rank", b"rank" + b"9" * r.choice([10, 5000])),
    lambda s, r: b"\x1b]0;owned\x07\x1b[2J" + s,
    lambda s, r: s + bytes([r.randrange(128, 256)]),
    lambda s, r: s[: r.randrange(len(s) + 1)],
    lambda s, r: s * r.choice([2, 300]),
    lambda s, r: s.replace(b" ", b"\x00", 1),
    lambda s, r: b"[" * 2000 + s,
    lambda s, r: b"&a [&a, &a, &a, &a, &a, &a]\n",
]


def fixture_lines() -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(DEFAULT_CASES.glob("*/fixtures/*/*/*")):
        if path.is_file() and path.stat().st_size < 256 * 1024 and path.name != "incident.yaml":
            lines.extend(path.read_bytes().splitlines(keepends=True)[:200])
    return lines


def _file_bytes(lines: list[bytes], rng: random.Random) -> bytes:
    picked = [rng.choice(lines) for _ in range(rng.randint(0, 60))]
    return b"".join(rng.choice(LINE_MUTATIONS)(line, rng) for line in picked)


def _corrupt(data: bytes, rng: random.Random) -> bytes:
    if not data or rng.random() < 0.5:
        return data
    if rng.random() < 0.5:
        return data[: rng.randrange(len(data))]
    k = rng.randrange(len(data))
    return data[:k] + bytes([data[k] ^ 0xFF]) + data[k + 1 :]


def build_evidence(root: Path, lines: list[bytes], rng: random.Random) -> Path:
    """A folder of mutated files, or an archive of one, at `root`; returns the path to read."""
    files = {}
    for _ in range(rng.randint(1, 6)):
        sub = rng.choice(["", "logs/", "node-1/rank3/", "a/b/c/"])
        files[sub + rng.choice(ODD_NAMES)] = _file_bytes(lines, rng)
    if rng.random() < 0.05:  # a small bomb: 40 MiB of one byte
        files["bomb.log"] = b"A" * (40 << 20)
    shape = rng.choice(["folder", "folder", "tar", "tar.gz", "zip", "gz"])
    if shape == "folder":
        folder = root / "evidence"
        for name, data in files.items():
            target = folder / name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            except OSError:
                continue
        if rng.random() < 0.2:
            (folder / "outside-link").symlink_to("/etc")
        return folder
    if shape == "gz":
        name, data = next(iter(files.items()))
        path = root / "one.log.gz"
        path.write_bytes(_corrupt(gzip.compress(data), rng))
        return path
    buf = io.BytesIO()
    if shape == "zip":
        with zipfile.ZipFile(buf, "w", rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as z:
            for name, data in files.items():
                z.writestr(name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), data)
            if rng.random() < 0.2:
                z.writestr("../../escape.log", b"NCCL WARN slip\n")
        suffix = ".zip"
    else:
        with tarfile.open(fileobj=buf, mode="w:gz" if shape == "tar.gz" else "w") as t:
            for name, data in files.items():
                info = tarfile.TarInfo(
                    name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                )
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            if rng.random() < 0.2:
                link = tarfile.TarInfo("evil-link")
                link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
                t.addfile(link)
        suffix = ".tar.gz" if shape == "tar.gz" else ".tar"
    path = root / f"evidence{suffix}"
    path.write_bytes(_corrupt(buf.getvalue(), rng))
    return path


CONTROL = {c for c in range(0x20) if c not in (0x09, 0x0A)} | {0x7F}  # tab, newline: inert


def check_evidence(kb: KnowledgeBase, path: Path) -> list[str]:
    """Diagnose and render like `kb diagnose` in each format; the properties broken."""
    from kb.evidence.summary import render_summary
    from kb.match.diagnose import diagnose_bundle, read_bundle
    from kb.report.json_report import render_json
    from kb.report.markdown import render_markdown
    from kb.report.text import write_text

    problems = []
    bundle = read_bundle(kb, str(path), workers=1)
    diagnosis = diagnose_bundle(kb, bundle)
    rendered = render_json(diagnosis, kb)
    try:
        json.loads(rendered.encode("utf-8"))
    except (UnicodeEncodeError, ValueError) as exc:
        problems.append(f"JSON output is not valid UTF-8 JSON: {exc}")
    render_markdown(diagnosis, kb).encode("utf-8")
    shown = io.StringIO()  # what `kb diagnose` writes to a terminal, summary included
    write_text(diagnosis, kb, summary=render_summary(bundle), stream=shown)
    text = shown.getvalue()
    bad = sorted({f"U+{ord(c):04X}" for c in text if ord(c) in CONTROL})
    if bad:
        problems.append(f"control characters reach the terminal: {', '.join(bad)}")
    text.encode("utf-8")
    return problems


def fuzz_evidence(count: int, seed: int, slow: float, log: Callable[[str], None]) -> Findings:
    rng = random.Random(seed)
    kb = load_knowledge_base(with_env=False)
    lines = fixture_lines()
    found = Findings()
    for k in range(count):
        ev_seed = rng.randrange(2**32)
        with tempfile.TemporaryDirectory(prefix="kb-fuzz-ev-") as tmp:
            start = Clock()
            try:
                path = build_evidence(Path(tmp), lines, random.Random(ev_seed))
                start = Clock()
                problems = check_evidence(kb, path)
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                problems = ["".join(traceback.format_exception(exc))[-1500:]]
            found.timed(f"evidence seed {ev_seed}", start, slow)
        found.tried += 1
        found.failures += [f"evidence seed {ev_seed}: {p}" for p in problems]
        if count >= 100 and (k + 1) % (count // 10) == 0:
            log(
                f"  evidence: {k + 1}/{count}, failures {len(found.failures)}, "
                f"slowest {found.slowest:.2f} s of CPU"
            )
    return found


# ------------------------------------------------------------------ long run (worker pool)

GIB = 1 << 30


@dataclass
class Outcome:
    """What one input did in a worker; `kind` is ok, property, traceback, hang, crash or memory."""

    kind: str
    what: str  # "case" or "evidence"
    seed: int
    detail: str = ""
    cpu: float = 0.0
    wall: float = 0.0
    rss: int = 0  # peak resident bytes of the worker so far


def _run_one(what: str, seed: int, state: dict[str, object], tmp: Path, limit: float) -> Outcome:
    """One input in this (worker) process; the kernel ends it past `limit` CPU seconds."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime + limit) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))  # SIGXCPU kills it
    start = Clock()
    try:
        if what == "case":
            text = case_from_seed(seed, state["corpus"])  # type: ignore[arg-type]
            problems = check_case_text(text, tmp / "case")
        else:
            shutil.rmtree(tmp / "ev", ignore_errors=True)
            (tmp / "ev").mkdir()
            lines = state["lines"]
            path = build_evidence(tmp / "ev", lines, random.Random(seed))  # type: ignore[arg-type]
            start = Clock()
            problems = check_evidence(state["kb"], path)  # type: ignore[arg-type]
        kind, detail = ("property", "; ".join(problems)) if problems else ("ok", "")
    except MemoryError:
        kind, detail = "memory", "MemoryError"
    except Exception as exc:
        kind, detail = "traceback", "".join(traceback.format_exception(exc))[-3000:]
    cpu, wall = start.elapsed()
    if kind == "ok" and cpu > limit:
        kind, detail = "hang", f"{cpu:.1f} s of CPU"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return Outcome(kind, what, seed, detail, cpu, wall, rss)


def _worker(conn: object, limit: float, memory_cap: int) -> None:
    """Loop of a pool worker: receive (what, seed), send back an Outcome; None ends it."""
    import resource

    if memory_cap:  # a guard for the shared machine, far above the 1 GB that is counted
        resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap))
    state: dict[str, object] = {
        "kb": load_knowledge_base(with_env=False),
        "lines": fixture_lines(),
        "corpus": real_cases(),
    }
    with tempfile.TemporaryDirectory(prefix="kb-fuzz-worker-") as tmp:
        # Warm up (the parser and the readers load lazily), so that a fresh worker's first
        # input is not charged a second of set-up.
        check_case_text(state["corpus"][0], Path(tmp) / "warm")  # type: ignore[index]
        warm = Path(tmp) / "warm-ev"
        warm.mkdir()
        (warm / "rank0.log").write_bytes(b"".join(state["lines"][:50]))  # type: ignore[index]
        check_evidence(state["kb"], warm)  # type: ignore[arg-type]
        conn.send("ready")  # type: ignore[attr-defined]
        while True:
            task = conn.recv()  # type: ignore[attr-defined]
            if task is None:
                return
            conn.send(_run_one(task[0], task[1], state, Path(tmp), limit))  # type: ignore[attr-defined]


def task_seeds(cases: int, evidence: int, seed: int) -> list[tuple[str, int]]:
    """The inputs of a run, cases first: the same seeds the in-process fuzzers draw."""
    crng, erng = random.Random(seed), random.Random(seed)
    return [("case", crng.randrange(2**32)) for _ in range(cases)] + [
        ("evidence", erng.randrange(2**32)) for _ in range(evidence)
    ]


def save_input(outcome: Outcome, out: Path) -> Path:
    """Rebuild a failing input from its seed under `out`, with a note of what it did."""
    out.mkdir(parents=True, exist_ok=True)
    name = f"{outcome.what}-{outcome.seed}-{outcome.kind}"
    if outcome.what == "case":
        target = out / f"{name}.kb"
        target.write_text(case_from_seed(outcome.seed), encoding="utf-8", errors="surrogatepass")
    else:
        target = out / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        build_evidence(target, fixture_lines(), random.Random(outcome.seed))
    note = (
        f"{outcome.what} seed {outcome.seed}: {outcome.kind} after {outcome.cpu:.2f} s of CPU, "
        f"{outcome.wall:.2f} s wall, worker peak {outcome.rss / 2**20:.0f} MiB\n{outcome.detail}\n"
    )
    Path(f"{target}.txt").write_text(note, encoding="utf-8", errors="backslashreplace")
    return target


@dataclass
class Tally:
    run: dict[str, int] = field(default_factory=lambda: {"case": 0, "evidence": 0})
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ["traceback", "hang", "memory", "property", "crash"], 0
        )
    )
    failures: list[Outcome] = field(default_factory=list)
    transient: list[Outcome] = field(default_factory=list)  # hangs that did not recur
    slowest: float = 0.0
    peak_rss: int = 0

    def add(self, outcome: Outcome, memory_limit: int) -> None:
        self.run[outcome.what] += 1
        self.slowest = max(self.slowest, outcome.cpu)
        self.peak_rss = max(self.peak_rss, outcome.rss)
        if outcome.kind == "ok" and outcome.rss > memory_limit:
            outcome.kind = "memory"
            outcome.detail = f"worker peak {outcome.rss / 2**20:.0f} MiB"
        if outcome.kind != "ok":
            self.counts[outcome.kind] += 1
            self.failures.append(outcome)


WARM_UP_WALL = 900  # seconds a fresh worker may take to load the knowledge base


def long_run(args: argparse.Namespace, log: Callable[[str], None]) -> int:
    """Every input in a worker process, each bounded in CPU time, memory measured per worker."""
    import multiprocessing
    import signal
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("fork")
    # The compile caches are pruned to a few entries per folder: another checkout run meanwhile
    # (tests, `kb eval` after an edit) evicts this run's, and the worker that meets an evicted
    # cache is charged the recompile as if the input took it. A run keeps its caches apart.
    private_cache = tempfile.TemporaryDirectory(prefix="kb-fuzz-cache-")
    os.environ.setdefault("KB_CACHE_DIR", private_cache.name)
    limit_bytes = int(args.memory_gb * GIB)
    tasks = task_seeds(args.cases, args.evidence, args.seed)
    if args.inputs:  # a replay of given seeds instead of a run
        tasks = [(w, int(n)) for w, _, n in (item.partition(":") for item in args.inputs)]
        args.cases = sum(w == "case" for w, _ in tasks)
        args.evidence = len(tasks) - args.cases
    out = Path(args.out) if args.out else Path(tempfile.gettempdir()) / f"kb-fuzz-{args.seed}"
    tally = Tally()
    started = time.perf_counter()

    class Slot:
        def __init__(self) -> None:
            self.conn, child = ctx.Pipe()
            cap = int(args.memory_cap_gb * GIB)
            self.proc = ctx.Process(target=_worker, args=(child, args.timeout, cap), daemon=True)
            self.proc.start()
            child.close()
            # The wall clock of an input starts once the worker has warmed up: on a loaded
            # machine a fresh worker's set-up alone can pass --wall-timeout, and the input it
            # was given (a retried hang, too, since a retry gets a fresh worker) was counted as
            # blocked with 0 s of CPU.
            try:
                ready = self.conn.poll(WARM_UP_WALL) and self.conn.recv() == "ready"
            except (EOFError, OSError):
                ready = False
            if not ready:
                self.end()
                raise SystemExit(f"a fuzz worker did not warm up within {WARM_UP_WALL} s")
            self.task: tuple[str, int] | None = None
            self.since = 0.0
            self.done = 0

        def give(self, task: tuple[str, int]) -> None:
            self.task, self.since = task, time.perf_counter()
            self.conn.send(task)

        def end(self) -> None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join()
            if not self.conn.closed:
                self.conn.close()

    slots = [Slot() for _ in range(max(1, args.workers))]
    next_task, stopped_early = 0, False
    retry: list[tuple[str, int]] = []  # hangs to run once more, in a fresh worker
    first_hang: dict[tuple[str, int], Outcome] = {}
    wall_limit = args.wall_timeout  # an input blocked without using CPU
    last_log = started
    try:
        while True:
            for i, slot in enumerate(slots):
                if slot.task is None and retry:
                    slot.give(retry.pop())
                elif slot.task is None and next_task < len(tasks):
                    if time.perf_counter() - started > args.max_seconds:
                        stopped_early = True
                        continue
                    if slot.done >= args.recycle:  # a fresh peak RSS now and then
                        slot.end()
                        slots[i] = slot = Slot()
                    slot.give(tasks[next_task])
                    next_task += 1
            busy = [s for s in slots if s.task is not None]
            if not busy:
                break
            ready = wait([s.conn for s in busy], timeout=1.0)
            for slot in busy:
                outcome = None
                if slot.conn in ready:
                    try:
                        outcome = slot.conn.recv()
                    except (EOFError, OSError):
                        slot.proc.join()
                        code = slot.proc.exitcode
                        what, seed = slot.task  # type: ignore[misc]
                        if code == -signal.SIGXCPU:
                            outcome = Outcome("hang", what, seed, f"over {args.timeout:g} s of CPU")
                        elif code == -signal.SIGKILL:
                            outcome = Outcome("memory", what, seed, "worker killed (SIGKILL)")
                        else:
                            outcome = Outcome("crash", what, seed, f"worker exit code {code}")
                        outcome.wall = time.perf_counter() - slot.since
                elif time.perf_counter() - slot.since > wall_limit:
                    what, seed = slot.task  # type: ignore[misc]
                    outcome = Outcome("hang", what, seed, f"blocked over {wall_limit:g} s wall")
                    outcome.wall = time.perf_counter() - slot.since
                    slot.end()  # killed and reaped: replaced below
                if outcome is None:
                    continue
                key = (outcome.what, outcome.seed)
                slot.task, slot.done = None, slot.done + 1
                if outcome.kind == "hang" and key not in first_hang:
                    # CPU time is the measure, but in a VM whose vCPUs the host deschedules
                    # it grows while the input waits: a hang counts only if it recurs.
                    first_hang[key] = outcome
                    retry.append(key)
                    saved = save_input(outcome, out)
                    log(f"  hang? {outcome.what} seed {outcome.seed} -> {saved}; run it again")
                    slot.end()
                    slots[slots.index(slot)] = Slot()
                    continue
                tally.add(outcome, limit_bytes)
                if key in first_hang and outcome.kind != "hang":
                    tally.transient.append(first_hang[key])
                    log(
                        f"  not a hang: {outcome.what} seed {outcome.seed} took "
                        f"{outcome.cpu:.2f} s of CPU ({outcome.wall:.2f} s wall) the second time"
                    )
                elif outcome.kind != "ok":
                    saved = save_input(outcome, out)
                    log(f"  {outcome.kind}: {outcome.what} seed {outcome.seed} -> {saved}")
                if slot.conn.closed or not slot.proc.is_alive() or outcome.rss > limit_bytes:
                    slot.end()
                    slots[slots.index(slot)] = Slot()
            if time.perf_counter() - last_log > 60:
                last_log = time.perf_counter()
                log(
                    f"  {tally.run['case']} cases, {tally.run['evidence']} evidence, "
                    f"{len(tally.failures)} failure(s), {last_log - started:.0f} s"
                )
    finally:
        for slot in slots:
            if slot.task is None and slot.proc.is_alive():
                slot.conn.send(None)
            slot.end()
    wall = time.perf_counter() - started
    c = tally.counts
    print(
        f"fuzz seed {args.seed}: {tally.run['case']}/{args.cases} case files, "
        f"{tally.run['evidence']}/{args.evidence} evidence folders/archives run"
        f"{' (stopped at --max-seconds)' if stopped_early else ''}; "
        f"tracebacks {c['traceback'] + c['crash']}, hangs {c['hang']} (over {args.timeout:g} s), "
        f"over {args.memory_gb:g} GB {c['memory']}, property failures {c['property']}; "
        f"{len(tally.transient)} over {args.timeout:g} s once but not when run again; "
        f"slowest {tally.slowest:.2f} s of CPU, worker peak {tally.peak_rss / 2**20:.0f} MiB, "
        f"wall {wall:.0f} s, {args.workers} worker(s)"
        + (f"; inputs saved in {out}" if tally.failures or tally.transient else "")
    )
    return 1 if tally.failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000, help="case files to try")
    parser.add_argument(
        "--evidence", type=int, default=10_000, help="evidence folders and archives to try"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--slow",
        type=float,
        default=10.0,
        help="CPU seconds after which one input counts as a hang",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="long-run mode: run each input in one of W worker processes, each input bounded "
        "by --timeout CPU seconds (the worker is killed and the input counted as a hang)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=float("inf"),
        help="long-run mode: start no new input after this many seconds of wall time",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="long-run mode: CPU seconds per input"
    )
    parser.add_argument(
        "--memory-gb",
        type=float,
        default=1.0,
        help="long-run mode: a worker whose peak RSS passes this counts the input as over",
    )
    parser.add_argument(
        "--memory-cap-gb",
        type=float,
        default=4.0,
        help="long-run mode: address-space cap of a worker (0: none), a guard for the machine",
    )
    parser.add_argument(
        "--wall-timeout",
        type=float,
        default=60.0,
        help="long-run mode: wall seconds after which a worker is killed as blocked (a hang)",
    )
    parser.add_argument(
        "--recycle",
        type=int,
        default=2000,
        help="long-run mode: inputs per worker before a fresh one",
    )
    parser.add_argument(
        "--out", help="long-run mode: folder for failing inputs (default: /tmp/kb-fuzz-SEED)"
    )
    parser.add_argument(
        "--inputs",
        nargs="+",
        metavar="KIND:SEED",
        help="long-run mode: run only these inputs (case:SEED or evidence:SEED), to replay them",
    )
    args = parser.parse_args(argv)
    for item in args.inputs or []:
        kind, _, number = item.partition(":")
        if kind not in ("case", "evidence") or not number.isdigit():
            parser.error(f"--inputs: {item!r} is not case:SEED or evidence:SEED")
    if args.inputs and not args.workers:
        args.workers = 1
    if args.workers < 0 or args.cases < 0 or args.evidence < 0 or args.timeout <= 0:
        parser.error("--workers, --cases and --evidence must be >= 0, --timeout > 0")

    def log(message: str) -> None:
        print(message, flush=True)

    if args.workers:
        return long_run(args, log)
    started = time.perf_counter()
    results = {}
    if args.cases:
        results["case files"] = fuzz_cases(args.cases, args.seed, args.slow, log)
    if args.evidence:
        results["evidence folders/archives"] = fuzz_evidence(
            args.evidence, args.seed, args.slow, log
        )
    failed = False
    for what, found in results.items():
        print(
            f"{what}: {found.tried} tried, {len(found.failures)} failure(s), "
            f"{len(found.slow)} over {args.slow:g} s of CPU, slowest {found.slowest:.2f} s of CPU "
            f"({found.slowest_wall:.2f} s wall)"
        )
        for f in found.failures[:20] + found.slow[:20]:
            print("  " + f.replace("\n", "\n    "))
        failed = failed or bool(found.failures or found.slow)
    print(f"total time {time.perf_counter() - started:.0f} s (seed {args.seed})")
    shutil.rmtree(Path(tempfile.gettempdir()) / "kb-fuzz", ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

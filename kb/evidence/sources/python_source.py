"""Training scripts: collectives and barriers called only on the main process.

A collective inside `if accelerator.is_main_process:` (or `rank == 0`, `local_rank in [-1, 0]`,
`dist.get_rank() == 0`) is entered by one rank only and hangs the others. Saves there are fine
but noted (informational), since a hang report often points at them.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("train.py", PathHints(), Limits())
>>> PythonSource(ctx).parse('''
... if accelerator.is_main_process:
...     accelerator.wait_for_everyone()
...     model.save_pretrained("out")
... if not accelerator.is_main_process:
...     pass
... else:
...     dist.barrier()
... ''')
>>> for f in ctx.facts.source_findings: print(f.finding, f.call, f.guard, f.evidence.line)
collective-in-main-only-branch accelerator.wait_for_everyone accelerator.is_main_process [main process only] 3
save-in-main-only-branch model.save_pretrained accelerator.is_main_process [main process only] 4
collective-in-main-only-branch dist.barrier not accelerator.is_main_process [main process only] 8

Lightning's guards count the same: `trainer.is_global_zero` and `@rank_zero_only`:

>>> ctx = FileContext("module.py", PathHints(), Limits())
>>> PythonSource(ctx).parse('''
... def test_epoch_end(self, outputs):
...     if self.trainer.is_global_zero:
...         outputs = self.all_gather(outputs)
... @rank_zero_only
... def log_all(self, x):
...     self.all_gather(x)
... ''')
>>> for f in ctx.facts.source_findings: print(f.call, f.guard, f.evidence.line)
self.all_gather @log_all [main process only] 7
self.all_gather self.trainer.is_global_zero [main process only] 4

The main-process-first idiom calls the barrier once on every rank, so it is not a finding:

>>> ctx = FileContext("prep.py", PathHints(), Limits())
>>> PythonSource(ctx).parse('''
... if rank != 0:
...     dist.barrier()
... dataset = dataset.map(tokenize)
... if rank == 0:
...     dist.barrier()
... ''')
>>> ctx.facts.source_findings
[]
"""

from __future__ import annotations

import ast
import re
import warnings

from kb.evidence.facts import EvidenceLine, SourceFinding
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource

COLLECTIVES = frozenset({
    "all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "reduce_scatter",
    "reduce_scatter_tensor", "broadcast", "broadcast_object_list", "barrier", "wait_for_everyone",
    "gather", "gather_for_metrics", "gather_object", "reduce", "all_to_all", "scatter",
    "save_state", "save_model", "pad_across_processes",
    # gather the sharded weights under DeepSpeed ZeRO-3 / FSDP: collectives in disguise
    "get_state_dict", "consolidate_state_dict", "full_state_dict",
})  # fmt: skip
SAVES = frozenset({"save_pretrained", "save"})
MAIN_ONLY = "main process only"
OTHERS_ONLY = "other ranks only"
# accelerate, transformers' Trainer, and Lightning's trainer (`trainer.is_global_zero`)
_MAIN_ATTRS = frozenset({"is_main_process", "is_local_main_process", "is_world_process_zero",
                         "is_local_process_zero", "is_global_zero"})  # fmt: skip
# Lightning's decorators that run a function on rank 0 only (the others return None)
_MAIN_DECORATORS = frozenset({"rank_zero_only"})


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{_dotted(node.func)}()"
    return "?"


def _rankish(node: ast.AST) -> bool:
    text = _dotted(node).lower()
    return "rank" in text


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def main_only(test: ast.expr) -> bool | None:
    """True: the body runs on the main process only; False: the else branch does; None: neither."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = main_only(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(main_only(v) is True for v in test.values) else None
    if isinstance(test, (ast.Attribute, ast.Name)):
        name = test.attr if isinstance(test, ast.Attribute) else test.id
        return True if name in _MAIN_ATTRS or name in ("is_master", "is_main") else None
    if isinstance(test, ast.Call):  # accelerator.is_main_process() in some wrappers
        return main_only(test.func)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if _zero(left):
            left, right = right, left
        if not _rankish(left):
            return None
        if isinstance(op, ast.Eq) and _zero(right):
            return True
        if isinstance(op, ast.NotEq) and _zero(right):
            return False
        if isinstance(op, ast.In) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
            values = {e.value for e in right.elts if isinstance(e, ast.Constant)}
            return True if values and values <= {-1, 0} else None
        if isinstance(op, ast.Gt) and _zero(right):
            return False
    return None


class PythonSource(WholeFileSource):
    name = "python-source"
    description = "training scripts (collectives under main-process-only branches)"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if name.endswith(".py"):
            return 0.9
        if "." in name:  # a named .txt/.md/.log that quotes code is prose or a log, not a script
            return 0.0
        if re.search(r"^(import \w+|from [\w.]+ import )", head, re.M) and re.search(
            r"^\s*def \w+\(", head, re.M
        ):
            return 0.6
        return 0.0

    def parse(self, text: str) -> None:
        tree, error = parse_snippet(text)
        if tree is None:
            lineno = getattr(error, "lineno", None) or 1
            self.ctx.facts.suspicious.append(
                EvidenceLine(file=self.ctx.display, line=lineno, source=self.name,
                             text=f"python syntax error, script not analysed: {error}"[:500])
            )  # fmt: skip
            return
        lines = text.splitlines()
        self.helpers = _functions_with_collectives(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _dotted(d).rsplit(".", 1)[-1] in _MAIN_DECORATORS for d in node.decorator_list
            ):  # @rank_zero_only def on_validation_epoch_end(...): its body runs on rank 0 only
                self._calls(node.body, f"@{node.name} [{MAIN_ONLY}]", lines)
            if isinstance(node, ast.If):
                which = main_only(node.test)
                if which is None:
                    continue
                test = ast.unparse(node.test)
                main_branch, other_branch = (
                    (node.body, node.orelse) if which else (node.orelse, node.body)
                )
                # both branches diverge: the main process runs one, every other rank the other
                self._calls(main_branch, f"{test} [{MAIN_ONLY}]", lines)
                self._calls(other_branch, f"{test} [{OTHERS_ONLY}]", lines)
        self._drop_balanced()

    def _drop_balanced(self) -> None:
        """`if rank != 0: barrier()` ... `if rank == 0: barrier()` calls the barrier once on
        every rank (the main-process-first idiom): matched pairs are not findings."""
        findings = self.ctx.facts.source_findings
        mine = [
            f
            for f in findings
            if f.evidence.file == self.ctx.display and f.finding == "collective-in-main-only-branch"
        ]
        main = {f.call.rsplit(".", 1)[-1] for f in mine if f.guard.endswith(f"[{MAIN_ONLY}]")}
        other = {f.call.rsplit(".", 1)[-1] for f in mine if f.guard.endswith(f"[{OTHERS_ONLY}]")}
        balanced = main & other
        if balanced:
            findings[:] = [
                f for f in findings if f not in mine or f.call.rsplit(".", 1)[-1] not in balanced
            ]

    def _calls(self, body: list[ast.stmt], guard: str, lines: list[str]) -> None:
        seen: set[int] = set()
        for stmt in body:
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call) or id(node) in seen:
                    continue
                seen.add(id(node))
                callee = _dotted(node.func)
                last = callee.rsplit(".", 1)[-1]
                if last in COLLECTIVES:
                    finding = "collective-in-main-only-branch"
                elif last in self.helpers:  # one call deep: def f(): dist.all_reduce(...)
                    inner, inner_line = self.helpers[last]
                    finding = "collective-in-main-only-branch"
                    callee = f"{callee} -> {inner} (line {inner_line})"
                elif last in SAVES and (last == "save_pretrained" or callee.startswith("torch.")):
                    finding = "save-in-main-only-branch"
                else:
                    continue
                text = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else callee
                self.ctx.facts.source_findings.append(
                    SourceFinding(
                        finding=finding, call=callee, guard=guard,
                        evidence=EvidenceLine(file=self.ctx.display, line=node.lineno,
                                              text=text.strip(), source=self.name),
                    )
                )  # fmt: skip


def dedent_code(text: str) -> str:
    """Remove the indentation shared by code lines; comments do not count (as in Python)."""
    lines = text.splitlines()
    code = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not code:
        return text
    indent = min(len(ln) - len(ln.lstrip()) for ln in code)
    out = []
    for ln in lines:
        head = ln[: len(ln) - len(ln.lstrip())]
        out.append(ln[indent:] if len(head) >= indent else ln.lstrip())
    return "\n".join(out)


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


_GAP = lazy(r"^\s*(\.{2,}|…)[\s.…]*$")


def _fill_gaps(lines: list[str]) -> list[str]:
    """`......` lines where a user cut code out become `pass` at the indentation of the code
    that follows them, so the pieces around the gap still parse."""

    def indent(text: str) -> int:
        return len(text) - len(text.lstrip())

    def code(text: str) -> bool:
        return bool(text.strip()) and not text.lstrip().startswith("#") and not _GAP.match(text)

    out = list(lines)
    for i, line in enumerate(out):
        if not _GAP.match(line):
            continue
        prev = next((p for p in reversed(out[:i]) if code(p)), "")
        nxt = next((n for n in out[i + 1 :] if code(n)), "")
        if prev.rstrip().endswith(":"):  # the gap is the body of the block just opened
            width = max(indent(line), indent(prev) + 4)
        else:
            width = indent(nxt) if nxt else indent(line)
        out[i] = " " * width + "pass"
    return out


def parse_snippet(text: str) -> tuple[ast.Module | None, Exception | None]:
    """Parse a whole script or a pasted excerpt: indented, with gaps (`......`, a header
    that lost its colon), or cut off at the end. Lines that do not parse are repaired or
    blanked one at a time, every other line keeping its number, so findings still point at
    the right line."""
    error: Exception | None = None
    for candidate in (text, dedent_code(text)):
        try:
            return _parse(candidate), None
        except (SyntaxError, ValueError) as exc:
            error = error or exc
    work = _fill_gaps(dedent_code(text).splitlines())
    for _ in range(min(len(work), 30)):
        try:
            return _parse("\n".join(work)), None
        except SyntaxError as exc:
            bad = (exc.lineno or 0) - 1
            if not 0 <= bad < len(work):
                break
            if not work[bad].strip():  # the file ends inside a block: close it
                work.append(" " * (len(work[bad - 1]) - len(work[bad - 1].lstrip()) + 4) + "pass")
                continue
            line = work[bad]
            indent = line[: len(line) - len(line.lstrip())]
            stripped = line.strip()
            if stripped.startswith(_HEADERS) and not stripped.endswith(":"):
                work[bad] = line + ":"  # a header that lost its colon
            elif stripped == "pass":
                work[bad] = ""
            else:
                work[bad] = indent + "pass"
        except ValueError:
            break
    return None, error


_HEADERS = (
    "def ",
    "class ",
    "if ",
    "for ",
    "while ",
    "with ",
    "elif ",
    "else",
    "try",
    "except",
    "finally",
    "async def ",
)


def _functions_with_collectives(tree: ast.Module) -> dict[str, tuple[str, int]]:
    """Functions of this script that call a collective: name -> (collective, line)."""
    out: dict[str, tuple[str, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    callee = _dotted(inner.func)
                    if callee.rsplit(".", 1)[-1] in COLLECTIVES:
                        out.setdefault(node.name, (callee, inner.lineno))
                        break
    return out

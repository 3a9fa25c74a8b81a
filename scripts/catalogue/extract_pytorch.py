"""List the message templates PyTorch's distributed stack prints, so the catalogue can follow new releases.

PyTorch words its distributed-training errors in two languages:

* C++ (ProcessGroupNCCL, TCPStore, the DDP reducer, the CUDA allocator, the DataLoader signal
  handlers): `TORCH_CHECK(cond, "text", x, "text")`, `C10_THROW_ERROR(Type, "text")`,
  `TORCH_WARN(...)`, `c10::str(...)`, `fmt::format("... {} ...", ...)` and glog streams
  `LOG(ERROR) << "text" << x`. Each call's string literals are joined in order and every
  non-literal piece between them becomes a gap (`{_}`); `fmt`'s `{}` becomes `{_}`.
* Python (torch/distributed, torch/utils/data, torch/cuda): `raise X("...")`,
  `logger.warning("... %s", ...)`, `warnings.warn(...)`, f-strings and `"...".format(...)`.
  `%d` becomes `{_:int}`, `%s` / `{}` / an f-string expression `{_}`.

A maintainer runs it on two releases and diffs the output, or greps it for a wording of
`catalogue/messages/pytorch/` to see whether it moved:

    python scripts/catalogue/extract_pytorch.py --repo ~/src/pytorch                  # work tree
    python scripts/catalogue/extract_pytorch.py --repo pytorch.git --rev v2.5.0       # a tag, no checkout
    python scripts/catalogue/extract_pytorch.py --repo ~/src/pytorch --grep watchdog  # only matching ones

`--repo` may also be an unpacked release wheel (its `torch/` Python sources). Each output line is
`path:line<TAB>KIND<TAB>template` (KIND: the macro, logger method or `raise`). Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_messages import SourceError, Tree, _arguments, _blank_comments, _literals

# Folders (or files) that hold the messages a distributed-training user sees, old and new layouts.
AREAS = (
    "torch/csrc/distributed/c10d",
    "torch/lib/c10d",
    "torch/csrc/DataLoader.cpp",
    "c10/cuda",
    "aten/src/ATen/MapAllocator.cpp",
    "aten/src/ATen/cuda/detail",
    "torch/distributed",
    "torch/utils/data",
    "torch/cuda",
    "torch/nn/parallel",
)
CPP_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".cu")
PY_SUFFIXES = (".py",)
# C++ calls whose arguments form the message, and how many leading arguments are not text.
CPP_CALLS = {
    "TORCH_CHECK": 1,
    "TORCH_CHECK_WITH": 2,
    "TORCH_INTERNAL_ASSERT": 1,
    "C10_THROW_ERROR": 1,
    "TORCH_WARN": 0,
    "TORCH_WARN_ONCE": 0,
    "c10::str": 0,
    "fmt::format": 0,
}
_CPP_CALL = re.compile(r"(?<![\w:])(" + "|".join(re.escape(c) for c in CPP_CALLS) + r")\s*\(")
_LOG_STREAM = re.compile(r"\b(LOG|VLOG|C10D_ERROR|C10D_WARNING|C10D_INFO)\s*\(([^)]*)\)\s*<<")
_PY_LOGGERS = {"debug", "info", "warning", "warn", "error", "exception", "critical"}
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-+ #0]*\d*(?:\.\d+)?[hlLqjzt]*([diouxXeEfgGcrs%])")
_FMT_FIELD = re.compile(r"\{[^{}]*\}")
_GAPS = re.compile(r"\{_\}(?:\s*\{_\})+")
MIN_FIXED = 6  # the catalogue needs six characters of fixed text to find a wording


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    kind: str
    template: str


def escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def printf_to_template(fmt: str) -> str:
    """A Python %-format (logging's style) in template syntax."""
    out, pos = [], 0
    for spec in _PRINTF.finditer(fmt):
        out.append(escape_braces(fmt[pos : spec.start()]))
        pos = spec.end()
        conv = spec.group(1)
        out.append("%" if conv == "%" else "{_:int}" if conv in "diu" else "{_}")
    out.append(escape_braces(fmt[pos:]))
    return "".join(out)


def brace_format_to_template(fmt: str) -> str:
    """A `str.format` / fmt::format string in template syntax: every `{…}` field is a gap."""
    out, pos = [], 0
    for field in re.finditer(r"\{\{|\}\}|\{[^{}]*\}", fmt):
        out.append(escape_braces(fmt[pos : field.start()]))
        pos = field.end()
        token = field.group(0)
        out.append(escape_braces(token[0]) if token in ("{{", "}}") else "{_}")
    out.append(escape_braces(fmt[pos:]))
    return "".join(out)


def tidy(template: str) -> str | None:
    """Collapse runs of gaps and blanks; None when too little fixed text is left to find it."""
    template = _GAPS.sub("{_}", re.sub(r"\s+", " ", template)).strip()
    fixed = re.sub(r"\{_(?::\w+)?\}", "", template.replace("{{", "{").replace("}}", "}"))
    return template if len(re.sub(r"\s", "", fixed)) >= MIN_FIXED else None


# --- C++ ---------------------------------------------------------------------------------------


def _cpp_pieces(args: Iterable[str]) -> str | None:
    """The template of a call's message arguments: literals kept, anything else a gap."""
    parts: list[str] = []
    has_literal = False
    for arg in args:
        arg = arg.strip()
        if not arg:
            continue
        literals = _literals(arg)
        if literals and re.fullmatch(r'(?:\s*"(?:[^"\\\n]|\\.)*")+\s*', arg):
            parts.append(brace_format_to_template("".join(literals)))
            has_literal = True
        else:
            parts.append("{_}")
    return "".join(parts) if has_literal else None


def _stream_pieces(text: str, start: int) -> tuple[str | None, int]:
    """The template of a `<< a << "b" << c;` chain starting at `start`, and where it ends."""
    end = start
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth <= 0:
            end = i
            break
        i += 1
    else:
        end = len(text)
    pieces = re.split(r"<<", text[start:end])
    return _cpp_pieces(pieces), end


def cpp_messages(path: str, source: str) -> Iterator[Message]:
    text = _blank_comments(source)
    for call in _CPP_CALL.finditer(text):
        name = call.group(1)
        args = _arguments(text, call.end())
        if args is None:
            continue
        skip = CPP_CALLS[name]
        template = _cpp_pieces(args[skip:])
        if template and (template := tidy(template)):
            yield Message(path, text.count("\n", 0, call.start()) + 1, name, template)
    for log in _LOG_STREAM.finditer(text):
        template, _ = _stream_pieces(text, log.end())
        if template and (template := tidy(template)):
            kind = f"{log.group(1)}({log.group(2).strip()})"
            yield Message(path, text.count("\n", 0, log.start()) + 1, kind, template)


# --- Python ------------------------------------------------------------------------------------


def _py_text(node: ast.expr) -> str | None:
    """The template of a message expression, or None when it holds no literal text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return escape_braces(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(escape_braces(value.value))
            else:
                parts.append("{_}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _py_text(node.left), _py_text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "{_}") + (right if right is not None else "{_}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return printf_to_template(node.left.value)
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return brace_format_to_template(node.func.value.value)
    return None


def _py_kind(call: ast.Call) -> str | None:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    if func.attr in _PY_LOGGERS and func.value.id in ("logger", "log", "logging", "_logger", "LOG"):
        return f"{func.value.id}.{func.attr}"
    if func.value.id == "warnings" and func.attr == "warn":
        return "warnings.warn"
    return None


def python_messages(path: str, source: str) -> Iterator[Message]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        kind: str | None = None
        call: ast.Call | None = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call, kind = node.exc, "raise"
        elif isinstance(node, ast.Call):
            call, kind = node, _py_kind(node)
        if call is None or kind is None or not call.args:
            continue
        text = _py_text(call.args[0])
        if kind not in ("raise", "warnings.warn") and isinstance(call.args[0], ast.Constant):
            text = printf_to_template(str(call.args[0].value))  # logging's %-style arguments
        if text is not None and (template := tidy(text)):
            yield Message(path, call.lineno, kind, template)


# --- driver ------------------------------------------------------------------------------------


class PyTorchTree(Tree):
    """A PyTorch checkout (work tree or git revision) or an unpacked wheel; C++ and Python files."""

    def sources(self, areas: Iterable[str]) -> list[str]:
        found: set[str] = set()
        for top in areas:
            if self.rev is not None:
                listed = self._git("ls-tree", "-r", "--name-only", self.rev, "--", top)
                found.update(listed.splitlines())
                continue
            base = self.repo / top
            if base.is_file():
                found.add(top)
            elif base.is_dir():
                found.update(
                    p.relative_to(self.repo).as_posix() for p in base.rglob("*") if p.is_file()
                )
        suffixes = CPP_SUFFIXES + PY_SUFFIXES
        return sorted(p for p in found if p.endswith(suffixes) and "/test" not in p)


def extract(tree: PyTorchTree, areas: Iterable[str] = AREAS) -> list[Message]:
    messages: list[Message] = []
    for path in tree.sources(areas):
        source = tree.read(path)
        found = (
            python_messages(path, source)
            if path.endswith(PY_SUFFIXES)
            else cpp_messages(path, source)
        )
        messages.extend(found)
    return sorted(set(messages), key=lambda m: (m.path, m.line, m.template))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print the message templates of PyTorch's distributed stack "
        "(path:line<TAB>KIND<TAB>template), to diff against catalogue/messages/pytorch/."
    )
    parser.add_argument(
        "--repo", required=True, type=Path, help="a PyTorch checkout, git dir or unpacked wheel"
    )
    parser.add_argument(
        "--rev", help="read this git revision (a tag such as v2.5.0) instead of the work tree"
    )
    parser.add_argument(
        "--area",
        action="append",
        help=f"a folder or file to scan (repeatable; default: {', '.join(AREAS)})",
    )
    parser.add_argument(
        "--grep", help="print only templates containing this text (case-insensitive)"
    )
    args = parser.parse_args(argv)
    try:
        messages = extract(PyTorchTree(args.repo, args.rev), args.area or AREAS)
    except SourceError as exc:
        print(f"extract_pytorch: {exc}", file=sys.stderr)
        return 2
    if not messages:
        print(
            f"extract_pytorch: no messages found under {args.repo} (is it a PyTorch tree?)",
            file=sys.stderr,
        )
        return 1
    for m in messages:
        if args.grep and args.grep.lower() not in m.template.lower():
            continue
        print(f"{m.path}:{m.line}\t{m.kind}\t{m.template}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

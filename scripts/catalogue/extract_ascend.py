"""List the message templates of Ascend's software, so the catalogue can follow new releases.

The Ascend catalogue (`catalogue/messages/{torch-npu,hccl,cann}/`) was read from three public
source trees; this script finds the same messages in a checkout of any of them and prints them
in the catalogue's template syntax (`%d` -> `{_:int}`, `%s` -> `{_}`, `%x`/`%p` -> `{_:hex}`,
`%f` -> `{_:num}`, a non-literal piece of a message -> `{_}`, `{` -> `{{`):

- torch_npu (github.com/Ascend/pytorch): `TORCH_CHECK(cond, ...)`, `TORCH_NPU_WARN[_ONCE](...)`,
  `AT_ERROR(...)`, `c10::str(...)`, `ASCEND_LOGE("fmt", ...)` in `torch_npu/csrc`, the
  `[Error]: ...` table of `NPUErrorCodes.h`, and `raise X(...)`, `warnings.warn(...)`,
  `print("Warning ...")` and `e.msg += ...` in `torch_npu/**/*.py`.
  Error-code suffixes (`PTA_ERROR(...)`, `pta_error(...)`) are left out: the catalogue lists them
  as messages of their own.
- hcomm, CANN's HCCL communication library: `HCCL_ERROR` / `HCCL_WARNING` / `HCCL_RUN_WARNING` /
  `HCCL_RUN_INFO("fmt", ...)` under `src/`, and the EI/EJ error table embedded in
  `src/common/error_code/error_code.cc`.
- runtime, CANN's runtime and ACL: the error-code table `src/dfx/error_manager/error_code.json`,
  `RT_LOG_CALL_MSG(module, "fmt", ...)` and `ACL_LOG_CALL_ERROR("fmt", ...)` under `src/`.

    python scripts/catalogue/extract_ascend.py --repo ~/src/pytorch                      # work tree
    python scripts/catalogue/extract_ascend.py --repo pytorch.git --rev v7.3.0-pytorch2.7.1
    python scripts/catalogue/extract_ascend.py --repo hcomm.git --rev v9.0.0 --kind EI0002

Each output line is `path:line<TAB>KIND<TAB>template`, KIND being the macro, `raise`, `warn`,
`aclError <code>` or the CANN error code. Which tree it is comes from its layout (`--tree` to
force it). A maintainer diffs two releases, or greps the output for a catalogue wording, to see
which messages moved. Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

TREES = ("torch-npu", "hcomm", "runtime")
C_SUFFIXES = (".cc", ".cpp", ".c", ".h", ".hpp")

# C/C++ calls whose arguments are printf-style: macro -> index of the format argument
PRINTF_MACROS = {
    "torch-npu": {"ASCEND_LOGE": 0},
    "hcomm": {"HCCL_ERROR": 0, "HCCL_WARNING": 0, "HCCL_RUN_WARNING": 0, "HCCL_RUN_INFO": 0},
    "runtime": {"RT_LOG_CALL_MSG": 1, "ACL_LOG_CALL_ERROR": 0},
}
# C++ calls whose arguments are concatenated (c10::str): macro -> number of leading args to skip
CONCAT_MACROS = {
    "TORCH_CHECK": 1,
    "TORCH_NPU_WARN": 0,
    "TORCH_NPU_WARN_ONCE": 0,
    "AT_ERROR": 0,
    "c10::str": 0,
}
# pieces of a message that are the error-code suffix, listed in the catalogue on their own
_SUFFIX_CALL = re.compile(
    r"^(PTA|OPS|DIST|GRAPH|PROF)_ERROR\s*\(|^(pta|ops|dist|graph|prof)_error\("
)

_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcspn%])")
_PRI = re.compile(r"^PRI([diouxX])(8|16|32|64|PTR|MAX)$")
_ADJACENT_GAPS = re.compile(r"\{_(?::\w+)?\}(?:\{_(?::\w+)?\})+")
_ERROR_TABLE_ROW = re.compile(r'\{\s*(\d{6})\s*,\s*"')


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    kind: str
    template: str


class ExtractError(Exception):
    """A checkout this script cannot read; the message says why."""


# ---------- templates ----------


def printf_to_template(fmt: str) -> str:
    """`fmt` (a printf format) in the catalogue's template syntax."""
    out: list[str] = []
    pos = 0
    for spec in _SPEC.finditer(fmt):
        out.append(escape_braces(fmt[pos : spec.start()]))
        pos = spec.end()
        conv = spec.group(5)
        if conv == "%":
            out.append("%")
        elif conv in "diuo":
            out.append("{_:int}")
        elif conv in "xXp":
            out.append("{_:hex}")
        elif conv in "eEfgG":
            out.append("{_:num}")
        else:
            out.append("{_}")
    out.append(escape_braces(fmt[pos:]))
    return tidy("".join(out))


def escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def tidy(template: str) -> str:
    """Runs of gaps read as one gap; line breaks and tabs are shown escaped."""
    template = _ADJACENT_GAPS.sub("{_}", template.rstrip("\n"))
    return template.replace("\n", "\\n").replace("\t", "\\t")


# ---------- C/C++ scanning ----------


def _read_c_string(src: str, i: int) -> tuple[str, int]:
    """The C string literal (or raw string R"(...)") starting at src[i], decoded, and the end."""
    if src.startswith('R"(', i):
        end = src.find(')"', i + 3)
        end = len(src) if end < 0 else end
        return src[i + 3 : end], end + 2
    out: list[str] = []
    i += 1
    while i < len(src) and src[i] != '"':
        c = src[i]
        if c == "\\" and i + 1 < len(src):
            nxt = src[i + 1]
            if nxt == "\n":  # a line continuation inside the literal
                i += 2
                continue
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), i + 1


def _skip_blank(src: str, i: int) -> int:
    while i < len(src):
        if src[i].isspace() or (src[i] == "\\" and src[i + 1 : i + 2] == "\n"):
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = len(src) if end < 0 else end
        elif src.startswith("/*", i):
            end = src.find("*/", i)
            i = len(src) if end < 0 else end + 2
        else:
            break
    return i


def _split_arguments(src: str, i: int) -> tuple[list[str], int]:
    """The raw text of each argument of the call whose `(` is just before src[i]."""
    args: list[str] = []
    start = i
    depth = 0
    while i < len(src):
        c = src[i]
        if c == '"' or src.startswith('R"(', i):
            _, i = _read_c_string(src, i)
            continue
        if c == "'":
            i = src.find("'", i + 2) + 1 or len(src)
            continue
        if src.startswith("//", i) or src.startswith("/*", i):
            i = _skip_blank(src, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(src[start:i])
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(src[start:i])
            start = i + 1
        i += 1
    return args, i


def _pieces(arg: str) -> list[str | None]:
    """An argument as literal pieces (str) and non-literal pieces (None): `"a" + x + "b"`."""
    out: list[str | None] = []
    i = _skip_blank(arg, 0)
    while i < len(arg):
        if arg[i] == '"' or arg.startswith('R"(', i):
            text, i = _read_c_string(arg, i)
            out.append(text)
        elif arg[i] == "+":
            i += 1
        else:
            j = i
            depth = 0
            while j < len(arg):
                c = arg[j]
                if c == '"' and depth == 0:
                    break
                if c in "([{":
                    depth += 1
                elif c in ")]}":
                    depth -= 1
                elif c == "+" and depth == 0:
                    break
                j += 1
            expr = arg[i:j].strip()
            if expr and not _SUFFIX_CALL.match(expr) and not expr.startswith("std::string("):
                pri = _PRI.match(expr)  # expands to the length and letter after a `%`
                out.append(f"ll{pri.group(1)}" if pri else None)
            elif expr.startswith("std::string("):
                inner = expr[len("std::string(") : -1]
                out.extend(_pieces(inner))
            i = j
        i = _skip_blank(arg, i)
    return out


def _printf_format(arg: str) -> str | None:
    """The format of a printf-style argument: adjacent literals joined, PRI macros resolved."""
    parts: list[str] = []
    saw_literal = False
    for piece in _pieces(arg):
        if piece is None:
            parts.append("%s")
        else:
            parts.append(piece)
            saw_literal = True
    return "".join(parts) if saw_literal else None


def _concat_template(args: list[str]) -> str | None:
    """The template of c10::str-style arguments: literals kept, anything else a gap."""
    parts: list[str] = []
    saw_literal = False
    for arg in args:
        for piece in _pieces(arg):
            if piece is None:
                parts.append("{_}")
            else:
                parts.append(escape_braces(piece))
                saw_literal = True
    return tidy("".join(parts)) if saw_literal else None


def extract_c_source(tree: str, path: str, src: str) -> list[Message]:
    """Every message call of one C/C++ file whose text has a string literal."""
    printf = PRINTF_MACROS[tree]
    concat = CONCAT_MACROS if tree == "torch-npu" else {}
    names = "|".join(sorted(map(re.escape, {**printf, **concat}), key=len, reverse=True))
    found: list[Message] = []
    for call in re.finditer(rf"(?<![\w:])({names})\s*\(", src):
        if re.search(r"#\s*define\s+$", src[max(0, call.start() - 40) : call.start()]):
            continue
        macro = call.group(1)
        args, _ = _split_arguments(src, call.end())
        line = src.count("\n", 0, call.start()) + 1
        template: str | None
        if macro in printf:
            index = printf[macro]
            fmt = _printf_format(args[index]) if len(args) > index else None
            template = printf_to_template(fmt) if fmt is not None else None
        else:
            template = _concat_template(args[concat[macro] :])
        if template:
            found.append(Message(path, line, macro, template))
    return found


def extract_acl_error_table(path: str, src: str) -> list[Message]:
    """torch_npu's NPUErrorCodes.h: the first line of each code's description, as printed."""
    found: list[Message] = []
    for row in _ERROR_TABLE_ROW.finditer(src):
        text, _ = _read_c_string(src, row.end() - 1)
        first = text.split("\n")[0].strip()
        line = src.count("\n", 0, row.start()) + 1
        found.append(Message(path, line, f"aclError {row.group(1)}", tidy(f"[Error]: {first}")))
    return found


def extract_error_json(path: str, src: str) -> list[Message]:
    """A CANN error-code table (JSON, alone or inside a C++ raw string): code -> ErrMessage."""
    raw = src.find('R"(')
    body = _read_c_string(src, raw)[0] if raw >= 0 else src
    try:
        table = json.loads(body)
    except ValueError as err:
        raise ExtractError(f"{path}: the error table is not JSON ({err})") from err
    found: list[Message] = []
    for entry in table.get("error_info_list", []):
        code, text = entry.get("ErrCode"), entry.get("ErrMessage")
        if not code or not text:
            continue
        anchor = src.find(f'"ErrCode": "{code}"')
        line = src.count("\n", 0, anchor) + 1 if anchor >= 0 else 0
        found.append(Message(path, line, code, printf_to_template(text)))
    return found


# ---------- Python scanning (torch_npu) ----------


def _py_template(node: ast.expr) -> str | None:
    """A Python message expression (literals, f-strings, `+`, `%`) as a template, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return escape_braces(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = [
            escape_braces(v.value)
            if isinstance(v, ast.Constant) and isinstance(v.value, str)
            else "{_}"
            for v in node.values
        ]
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _py_template(node.left), _py_template(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "{_}") + (right if right is not None else "")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        fmt = _py_template(node.left)
        return printf_to_template(fmt) if fmt is not None else None
    if isinstance(node, ast.Call) and _SUFFIX_CALL.match(ast.unparse(node.func) + "("):
        return None  # the error-code suffix
    return None


def extract_py_source(path: str, src: str) -> list[Message]:
    """`raise SomeError("...")`, `warnings.warn("...")` and `print("Warning ...")` messages."""
    try:
        module = ast.parse(src)
    except SyntaxError:
        return []
    found: list[Message] = []
    for node in ast.walk(module):
        call: ast.Call | None = None
        kind = ""
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call, kind = node.exc, "raise"
        elif isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name in ("warnings.warn", "warn"):
                call, kind = node, "warn"
            elif name == "print":
                call, kind = node, "print"
        if isinstance(node, ast.AugAssign) and ast.unparse(node.target).endswith(".msg"):
            template = _py_template(node.value)
            if template:
                found.append(Message(path, node.lineno, "msg+=", tidy(template)))
            continue
        if call is None or not call.args:
            continue
        template = _py_template(call.args[0])
        if not template or (kind == "print" and "arn" not in template[:12]):
            continue
        found.append(Message(path, call.lineno, kind, tidy(template)))
    return found


# ---------- trees ----------


def detect_tree(names: Iterable[str]) -> str:
    """Which of the three trees a list of paths belongs to."""
    names = set(names)
    if any(n.startswith("torch_npu/csrc/") for n in names):
        return "torch-npu"
    if "src/common/error_code/error_code.cc" in names:
        return "hcomm"
    if "src/dfx/error_manager/error_code.json" in names:
        return "runtime"
    raise ExtractError(
        "not a torch_npu, hcomm or runtime checkout (no torch_npu/csrc/, "
        "src/common/error_code/error_code.cc or src/dfx/error_manager/error_code.json)"
    )


def wanted(tree: str, path: str) -> bool:
    if tree == "torch-npu":
        return path.startswith("torch_npu/") and path.endswith((*C_SUFFIXES, ".py"))
    return path.startswith("src/") and path.endswith((*C_SUFFIXES, ".json"))


def extract_file(tree: str, path: str, src: str) -> list[Message]:
    if path.endswith("NPUErrorCodes.h"):
        return extract_acl_error_table(path, src)
    if path.endswith(("src/common/error_code/error_code.cc", "error_manager/error_code.json")):
        return extract_error_json(path, src)
    if path.endswith(".json"):
        return []
    if path.endswith(".py"):
        return extract_py_source(path, src)
    return extract_c_source(tree, path, src)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, errors="replace"
    )
    if done.returncode != 0:
        raise ExtractError(f"git {' '.join(args[:2])} failed: {done.stderr.strip()}")
    return done.stdout


def extract(repo: Path, rev: str | None = None, tree: str | None = None) -> list[Message]:
    """Messages of the checkout at `repo` (its work tree, or the git revision `rev`)."""
    if rev:
        names = _git(repo, "ls-tree", "-r", "--name-only", rev).splitlines()
    else:
        if not repo.is_dir():
            raise ExtractError(f"{repo} is not a directory")
        names = [p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()]
    tree = tree or detect_tree(names)
    messages: list[Message] = []
    for name in sorted(n for n in names if wanted(tree, n)):
        if rev:
            text = _git(repo, "show", f"{rev}:{name}")
        else:
            text = (repo / name).read_text(encoding="utf-8", errors="replace")
        messages.extend(extract_file(tree, name, text))
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print the message templates of a torch_npu, hcomm (HCCL) or CANN runtime "
        "checkout (path:line, kind, template)."
    )
    parser.add_argument("--repo", required=True, type=Path, help="checkout or git dir")
    parser.add_argument("--rev", help="read this git revision (tag) instead of the work tree")
    parser.add_argument("--tree", choices=TREES, help="which tree it is (default: from its layout)")
    parser.add_argument("--kind", help="only this kind (a macro, raise, warn, or an error code)")
    args = parser.parse_args(argv)
    if not args.repo.exists():
        parser.error(f"--repo {args.repo} does not exist")
    try:
        messages = extract(args.repo, args.rev, args.tree)
    except ExtractError as err:
        print(f"extract_ascend: {err}", file=sys.stderr)
        return 2
    for m in messages:
        if args.kind and m.kind != args.kind:
            continue
        print(f"{m.path}:{m.line}\t{m.kind}\t{m.template}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

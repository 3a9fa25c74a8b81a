"""Find the messages a Python source tree logs or raises and turn them into catalogue templates.

Shared by the extractors of Python emitters (extract_frameworks.py: DeepSpeed, accelerate,
Lightning, transformers, vLLM, Ray). The source is parsed with `ast`, so a message written as
implicitly joined literals, an f-string, `"…" % args`, `"…".format(…)` or `"a" + f"b"` reads
as one text. Recognised emit sites: logger calls (`logger.info/warning/error/exception/debug`,
`*_once`, on any name ending in `log`/`logger`), `warnings.warn`, Lightning's `rank_zero_*`,
`print`, `raise SomethingError(…)`, `assert cond, msg`, and a text assigned to a variable whose
name ends in `msg`/`message`/`err` (messages built before they are logged or raised). In the template an f-string field
becomes `{name}` (the variable or attribute name, `{_}` for anything else), a printf
conversion `{_}` / `{_:int}` / `{_:num}`, a `str.format` slot `{_}` or `{name}`, and literal
braces `{{` / `}}`. Standard library only.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal"}
    | {"info_once", "warning_once", "debug_once", "warning_advice"}
)
PRINT_FUNCTIONS = frozenset(
    {"print", "rank_zero_warn", "rank_zero_info", "rank_zero_debug", "log_dist"}
)
# printf conversions, as the logging module and `%` accept them
_SPEC = re.compile(r"%(\([A-Za-z_]\w*\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcrsa%])")
_FORMAT_SLOT = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
# a message kept in a variable before it is logged or raised (`error_msg = f"…"`, `BASE_ERROR_MSG`)
_MESSAGE_VARIABLE = re.compile(r"(msg|message|err)$", re.I)


class SourceError(Exception):
    """The tree or revision cannot be read; the message says why."""


@dataclass(frozen=True)
class Found:
    path: str
    line: int
    site: str  # how it is emitted: logger.error, raise ValueError, assert …
    template: str


class PyTree:
    """The Python files of a checkout: the work tree, or one git revision of it."""

    def __init__(self, repo: Path, rev: str | None = None) -> None:
        if not repo.is_dir():
            raise SourceError(f"{repo}: no such directory")
        self.repo = repo
        self.rev = rev
        if rev is not None:
            self._git("rev-parse", "--verify", f"{rev}^{{commit}}")

    def _git(self, *args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(self.repo), *args], capture_output=True, text=True, check=False
            )
        except FileNotFoundError as exc:
            raise SourceError("git is needed to read a revision (--rev)") from exc
        if done.returncode != 0:
            raise SourceError(done.stderr.strip() or f"git {' '.join(args)} failed")
        return done.stdout

    def files(self, under: Iterable[str], suffixes: tuple[str, ...] = (".py",)) -> list[str]:
        """Paths (relative, '/'-separated) of the files below each of `under` ending in one of
        `suffixes`, sorted; a path that does not exist adds nothing."""
        paths: set[str] = set()
        for top in under:
            if self.rev is not None:
                listed = self._git("ls-tree", "-r", "--name-only", self.rev, "--", top)
                paths.update(p for p in listed.splitlines() if p.endswith(suffixes))
                continue
            base = self.repo / top
            if base.is_file() and base.name.endswith(suffixes):
                paths.add(top)
            elif base.is_dir():
                paths.update(
                    p.relative_to(self.repo).as_posix()
                    for p in base.rglob("*")
                    if p.is_file() and p.name.endswith(suffixes)
                )
        return sorted(paths)

    def read(self, path: str) -> str:
        if self.rev is not None:
            return self._git("show", f"{self.rev}:{path}")
        return (self.repo / path).read_text(encoding="utf-8", errors="replace")


def find_messages(path: str, text: str) -> Iterator[Found]:
    """Every message emitted in the Python source `text`, one Found per line of a message.
    A file that does not parse (a Python 2 leftover, a template) yields nothing."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        site, message = _emit_site(node)
        if message is None:
            continue
        template = _template(message, _has_lazy_args(node))
        if template is None:
            continue
        for piece in template.split("\n"):
            piece = re.sub(r"[ \t]+", " ", piece).strip()
            if piece:
                yield Found(path, getattr(node, "lineno", 0), site, piece)


def _emit_site(node: ast.AST) -> tuple[str, ast.expr | None]:
    """(how the message is emitted, the expression of its text) or ('', None)."""
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
        name = _dotted(node.exc.func)
        if node.exc.args and re.search(r"(Error|Exception|Warning|Exit)$", name):
            return f"raise {name}", node.exc.args[0]
    if isinstance(node, ast.Assert) and node.msg is not None:
        return "assert", node.msg
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        name = _dotted(targets[0]) if len(targets) == 1 else ""
        if _MESSAGE_VARIABLE.search(name.rpartition(".")[2]):
            return f"{name} =", node.value
    if isinstance(node, ast.Call) and node.args:
        name = _dotted(node.func)
        last = name.rpartition(".")[2]
        owner = name.rpartition(".")[0].rpartition(".")[2].lower()
        if last in LOG_METHODS and owner.endswith(("log", "logger", "_logger")):
            return name, node.args[0]
        if name == "warnings.warn" or last in PRINT_FUNCTIONS:
            return name, node.args[0]
    return "", None


def _has_lazy_args(node: ast.AST) -> bool:
    """A logger call with arguments after the format: `%` conversions are filled by logging."""
    return (
        isinstance(node, ast.Call)
        and len(node.args) > 1
        and not _dotted(node.func).endswith("print")
    )


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return f"{inner}.{expr.attr}" if inner else expr.attr
    return ""


def _template(expr: ast.expr, printf: bool) -> str | None:
    """The template of the text `expr` builds; None when it is not built from literals."""
    names: set[str] = set()
    parts = _parts(expr, names)
    if parts is None:
        return None
    text = "".join(parts)
    if printf:
        text = _printf(text)
    return text


def _parts(expr: ast.expr, names: set[str]) -> list[str] | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [_escape(expr.value)]
    if isinstance(expr, ast.JoinedStr):
        out: list[str] = []
        for value in expr.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.append(_escape(value.value))
            elif isinstance(value, ast.FormattedValue):
                out.append(_field(value.value, names))
        return out
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _parts(expr.left, names), _parts(expr.right, names)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
        left = _parts(expr.left, names)
        return None if left is None else [_printf("".join(left))]
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "format"
    ):
        base = expr.func.value
        if isinstance(base, ast.Constant) and isinstance(base.value, str):
            return [_format_slots(base.value, expr, names)]
    return None


def _field(value: ast.expr, names: set[str]) -> str:
    """`{name}` for an f-string field that is a variable or attribute, once per name."""
    name = _dotted(value).rpartition(".")[2]
    if isinstance(value, ast.Call):
        name = ""
    if not _NAME.match(name or "") or name in names or name == "_":
        return "{_}"
    names.add(name)
    return "{" + name + "}"


def _format_slots(text: str, call: ast.Call, names: set[str]) -> str:
    keywords = {k.arg for k in call.keywords if k.arg}

    def slot(match: re.Match[str]) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)
        key = match.group(1).split(":")[0].split("!")[0]
        if key in keywords and _NAME.match(key) and key not in names and key != "_":
            names.add(key)
            return "{" + key + "}"
        return "{_}"

    return _FORMAT_SLOT.sub(slot, text)


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _printf(text: str) -> str:
    """Turn `%d`/`%s`/`%(name)s` conversions of an (already brace-escaped) text into fields."""

    def conv(match: re.Match[str]) -> str:
        kind = match.group(5)
        if kind == "%":
            return "%"
        if kind in "diou":
            return "{_:int}"
        if kind in "xX":
            return "{_:hex}"
        if kind in "eEfgG":
            return "{_:num}"
        return "{_}"

    return _SPEC.sub(conv, text)

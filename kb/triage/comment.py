"""The one comment kb triage leaves: the case, its level, the lines of the issue behind it,
the first fix, the case's page and what to attach to confirm it. English or Chinese; every
line passes the redactor before it is shown or posted (an issue can quote a token)."""

from __future__ import annotations

import os

from dsl import model as m
from kb.evidence.facts import EvidenceLine
from kb.evidence.github_issue import TRIAGE_MARKER
from kb.match.diagnose import site_page
from kb.redact.secrets import SecretRedactor
from kb.report.shapes import Candidate, Fix

MAX_LINES = 5  # supporting lines quoted
MAX_STEPS = 3  # steps of the first fix
MAX_QUOTE = 200  # characters of a quoted line
MAX_ASKS = 3  # captures asked for

WORDS = {
    "en": {
        "head": "**distkb** reads this issue as **`{case}`** ({level}).",
        "confirmed": "confirmed by what the issue shows",
        "likely": "likely, not yet proven",
        "possible": "possible, weak signs only",
        "lines": "**Lines of this issue that point to it**",
        "shows": "shows",
        "body": "issue body, line {line}",
        "title": "issue title",
        "comment": "comment {n}, line {line}",
        "in": "in `{name}`",
        "fix": "**First fix: {title}**",
        "confirm": "**To confirm it**, please attach:",
        "more": "**Also useful**, if you can attach it:",
        "collect": "or run `kb collect` on a node of the failing job and attach the archive "
        "it writes (secrets are redacted).",
        "page": "About this case: {page}",
        "footer": "<sub>Left once by the distkb triage action, from the text of this issue "
        "only; it can be wrong, and a maintainer will check.</sub>",
    },
    "zh": {
        "head": "**distkb** 判断本问题为 **`{case}`**（{level}）。",
        "confirmed": "已由问题中的输出证实",
        "likely": "可能性大，尚未证实",
        "possible": "仅有弱迹象",
        "lines": "**问题中支持这一判断的行**",
        "shows": "表明",
        "body": "正文第 {line} 行",
        "title": "标题",
        "comment": "第 {n} 条评论第 {line} 行",
        "in": "位于 `{name}`",
        "fix": "**首选修复：{title}**",
        "confirm": "**如需确认**，请附上：",
        "more": "**如方便，也请附上：**",
        "collect": "或在出错任务的节点上运行 `kb collect`，并附上生成的压缩包（密钥会被自动遮蔽）。",
        "page": "该案例详情：{page}",
        "footer": "<sub>由 distkb 分诊 Action 根据本问题的文字自动留言（只留一次）；"
        "结论可能有误，维护者会再核实。</sub>",
    },
}


def where(line: EvidenceLine, language: str = "en") -> str:
    """Where a line is in the issue, in the reader's words: `issue.json!/body/rank0.log`
    line 12 is line 12 of the body, inside the block labelled rank0.log.

    >>> where(EvidenceLine(file="issue.json!/body/rank0.log", line=12, text="x"))
    'issue body, line 12, in `rank0.log`'
    >>> where(EvidenceLine(file="issue.json!/comment-3.md", line=2, text="x"))
    'comment 3, line 2'
    """
    w = WORDS[language]
    inner = line.file.split("!/", 1)[1] if "!/" in line.file else line.file
    top, _, block = inner.partition("/")
    top = top.removesuffix(".md")
    if top == "title":
        said = w["title"]
    elif top.startswith("comment-"):
        said = w["comment"].format(n=top.removeprefix("comment-"), line=line.line)
    else:
        said = w["body"].format(line=line.line)
    return f"{said}, {w['in'].format(name=block)}" if block else said


def _quote(text: str) -> str:
    text = " ".join(text.split()).replace("`", "'")
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1] + "…"


def first_fix(candidate: Candidate) -> Fix | None:
    """The first remedy with a step for this platform not already tried (as the report's)."""
    for fix in candidate.fixes:
        steps = [s for s in fix.steps if not s.other_platform and s.tried is None]
        if steps:
            return Fix(fix.title, steps)
    return None


def code_block(commands: list[str], indent: str) -> list[str]:
    """Commands as a fenced block under a list item (a command may span lines).

    >>> code_block(["a \\\\", "  b"], "  ")
    ['  ```', '  a \\\\', '    b', '  ```']
    """
    lines = [ln for c in commands for ln in c.splitlines()]
    return [f"{indent}```", *(f"{indent}{ln}" for ln in lines), f"{indent}```"] if lines else []


class Chinese:
    """A case's own Chinese twins (`title.zh`), looked up by their English text; English
    where a case has none."""

    def __init__(self, case: m.Case | None) -> None:
        self.title = case.title.zh if case is not None and case.title.zh else None
        self.names: dict[str, str] = {}
        for remedy in case.remedies if case is not None else []:
            titles = [remedy.title, *(step.title for step in remedy.steps)]
            self.names.update({t.en: t.zh for t in titles if t.zh})

    def __call__(self, english: str) -> str:
        return self.names.get(english, english)


def render_comment(
    candidate: Candidate, language: str, site_url: str = "", case: m.Case | None = None
) -> str:
    """The comment; `case` (the compiled case) gives the Chinese titles in a Chinese one."""
    lang = language if language in WORDS else "en"
    w = WORDS[lang]
    zh = Chinese(case if lang == "zh" else None)
    v = candidate.verdict
    out = [TRIAGE_MARKER, w["head"].format(case=v.id, level=w.get(v.level, v.level)), ""]
    out += [f"> {zh.title or v.title}", ""]
    if candidate.shown:
        out += [w["lines"], ""]
        for item in candidate.shown[:MAX_LINES]:
            out.append(
                f"- {where(item.line, lang)}: `{_quote(item.line.text)}` "
                f"({w['shows']}: {item.shows[0]})"
            )
        out.append("")
    fix = first_fix(candidate)
    if fix is not None:
        out += [w["fix"].format(title=zh(fix.title)), ""]
        for n, step in enumerate(fix.steps[:MAX_STEPS], 1):
            out.append(f"{n}. {zh(step.title)}")
            out += code_block(step.commands, "   ")
        out.append("")
    out += [w["more" if v.level == "confirmed" else "confirm"], ""]
    asked: set[tuple[str, ...]] = set()
    for ask in candidate.confirm:
        if len(asked) == MAX_ASKS or tuple(ask.commands) in asked:
            continue  # one capture can prove several signs: asked for once
        asked.add(tuple(ask.commands))
        out += [f"- {ask.what}", *code_block(ask.commands, "  ")]
    out += [f"- {w['collect']}", ""]
    page = f"{site_url.rstrip('/')}/cases/{v.id}/" if site_url else site_page(v.id)
    out += [w["page"].format(page=page), "", w["footer"]]
    # the environment too: the Action's own token must never be echoed back
    return SecretRedactor(dict(os.environ)).text("comment", "\n".join(out) + "\n")

"""Secrets shown as the value of a name: `NAME=value`, `name: value`, `export NAME="value"`,
`"name": "value"`, `--name=value`, `--name value`, `?token=value` in a URL. The name's words
decide (`kb.redact.names`), so `max_new_tokens: 512` is left as it is.

A line that is one assignment (an environment dump, a YAML or netrc-like config) loses all of
its value, spaces included; elsewhere the value ends at a space, a quote or a separator.

>>> mask_assignments("export HF_TOKEN=abc def\\n")
('export HF_TOKEN=[REDACTED]\\n', ['HF_TOKEN (secret variable)'])
>>> mask_assignments('run(max_new_tokens=512, hub_token="abc123", pad_token="<pad>")')[0]
'run(max_new_tokens=512, hub_token="[REDACTED]", pad_token="<pad>")'
>>> mask_assignments("GET /blob?sig=77aa&token=abc123xyz&n=1")
('GET /blob?sig=[REDACTED]&token=[REDACTED]&n=1', ['secret parameter in a URL'])
"""

from __future__ import annotations

import re

from kb.redact.names import is_placeholder, is_secret, is_secret_name, words
from kb.redact.shapes import MASK

_SEP = r"(?P<sep>[ \t]*(?:=(?!=)|:(?![:/=]))[ \t]*)"
_NAME = r"(?P<q>[\"'`]?)(?P<name>[A-Za-z_][\w.-]*)(?P=q)"
_LINE = re.compile(
    r"^(?P<lead>[ \t]*(?:declare -x |export |set |- )?)" + _NAME + _SEP + r"(?P<value>[^\r\n]*)"
)
_INLINE = re.compile(r"(?<![\w.-])(?P<dash>-{0,2})" + _NAME + _SEP)
_FLAG = re.compile(
    r"(?<![\w-])--?(?P<name>[A-Za-z][\w-]*)[ \t]+(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"'-][^\s\"']*)"
)
_UNQUOTED = re.compile(r"<[^<>\r\n]{0,4096}>|\[[^\[\]\r\n]{0,4096}\]|[^\s,;&\"'`)\]}]{1,4096}")
_UNQUOTED_ALL = re.compile(r"[^\s,;&\"'`)\]}]+")
LONGEST = 4096  # a value this long next to a secret name is masked unread (bounded time)
_TYPE = re.compile(r"(?:str|int|float|bool|bytes|Optional|Union|Any|SecretStr|list|dict)\b")
_QUERY_SECRET = frozenset({"sig", "signature", "credential"})


# "the forward pass: FSDP2's init fails": a model's pass over the data, named in prose, not a
# password (a credential named `pass` stands alone or ends a name: `pass=`, `db_pass:`)
_MODEL_PASS = re.compile(r"(?i)\b(?:forward|backward|training|inference|first|second|single)\s+$")


def _model_pass(m: re.Match[str], line: str) -> bool:
    """`forward pass: …` in prose (a colon, never `=`), not `pass: …` or `db_pass: …`."""
    if m.group("name").lower() != "pass" or "=" in m.group(0):
        return False
    return _MODEL_PASS.search(line[max(0, m.start() - 40) : m.start()]) is not None


def _in_query(before: str) -> bool:
    return before != "" and before in "?&;"


def _label(name: str, before: str) -> str:
    return "secret parameter in a URL" if _in_query(before) else f"{name} (secret variable)"


def _secret(name: str, value: str, before: str) -> bool:
    """Whether the value goes; in a URL's query a signature is a secret too."""
    if _in_query(before) and words(name)[-1:] and words(name)[-1] in _QUERY_SECRET:
        return not is_placeholder(value)
    return is_secret(name, value)


def _whole_line(line: str, found: list[str]) -> str | None:
    """A line that is one unquoted assignment, its value masked; None if it is not one."""
    m = _LINE.match(line)
    if not m or m.group("value")[:1] in ("'", '"', "`") or _TYPE.match(m.group("value")):
        return None
    value = m.group("value")
    if not _secret(m.group("name"), value.strip(), ""):
        return None
    found.append(_label(m.group("name"), ""))
    end = len(line) - len(line.rstrip("\r\n"))
    return line[: m.start("value")] + MASK + (line[-end:] if end else "")


def _inline(line: str, found: list[str]) -> str:
    out, pos, scan = [], 0, 0
    while (m := _INLINE.search(line, scan)) is not None:
        start = m.end()
        before = line[m.start() - 1] if m.start() and not m.group("dash") else ""
        if not (is_secret_name(m.group("name")) or _in_query(before)):
            scan = start  # most names: no value to read (and no quadratic time on long lines)
            continue
        if _model_pass(m, line):
            scan = start
            continue
        quote = line[start : start + 1]
        if quote in ("'", '"', "`"):
            end = line.find(quote, start + 1)
            if end < 0:
                scan = start
                continue
            value, vstart, vend = line[start + 1 : end], start + 1, end
        else:
            v = _UNQUOTED.match(line, start)
            if v is None or _TYPE.match(v.group(0)):
                scan = start
                continue
            value, vstart, vend = v.group(0), start, v.end()
            if len(value) >= LONGEST:
                whole = _UNQUOTED_ALL.match(line, start)
                vend = whole.end() if whole else vend
                value = "x" * LONGEST  # secret whatever it holds
        if len(value) < LONGEST and not _secret(m.group("name"), value, before):
            scan = start
            continue
        found.append(_label(m.group("name"), before))
        out.append(line[pos:vstart] + MASK)
        pos = scan = vend
    return "".join(out) + line[pos:]


def _flags(line: str, found: list[str]) -> str:
    def replace(m: re.Match[str]) -> str:
        value = m.group("value")
        if not is_secret(m.group("name"), value.strip("\"'")):
            return m.group(0)
        found.append(_label(m.group("name"), ""))
        quote = value[0] if value[0] in "\"'" else ""
        return m.group(0)[: m.start("value") - m.start()] + quote + MASK + quote

    return _FLAG.sub(replace, line)


def mask_assignments(line: str) -> tuple[str, list[str]]:
    """`line` with the value of every secret name masked, and what was masked (names)."""
    found: list[str] = []
    whole = _whole_line(line, found)
    if whole is not None:
        return whole, found
    line = _flags(_inline(line, found), found)
    return line, list(dict.fromkeys(found))

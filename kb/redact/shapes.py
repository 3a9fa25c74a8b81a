"""Secrets known by their form, wherever they appear in a line: token formats with a fixed
prefix, JWTs, headers that carry credentials, netrc passwords, credentials in URLs (also a
token used as the user part, and a conda channel's `/t/<token>/`), and the markers of a
private-key block (whose body the redactor drops whole, across lines).

Prefixed tokens keep their prefix, so a reader still sees which kind went:

>>> replace_all("push with ghp_abcdefghijklmnopqrstuvwxyz0123 as AKIAABCDEFGHIJKLMNOP")
('push with ghp_REDACTED as AKIAREDACTEDREDACTED', ['GitHub token', 'AWS access key id'])
>>> replace_all("redis://:s3cretpw@cache:6379/0 and https://alice:pa/ss@word@proxy:3128/")
('redis://:[REDACTED]@cache:6379/0 and https://alice:[REDACTED]@proxy:3128/', ['credentials in a URL'])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MASK = "[REDACTED]"
PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
PEM_MASK = "[REDACTED PRIVATE KEY]"
# a line of key material: base64, a header (Proc-Type, DEK-Info) or blank, after a log
# prefix such as `[rank0]:`; what a block with no END line loses (a block with one goes whole)
_PEM_BODY = re.compile(
    r"^\s*(?:\[[^\]]*\]:?\s*)?(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment|Version):.*)?\s*$"
)


@dataclass(frozen=True)
class Shape:
    label: str
    pattern: re.Pattern[str]
    replacement: str  # a re template: what the match becomes


def _shape(label: str, pattern: str, replacement: str) -> Shape:
    return Shape(label, re.compile(pattern), replacement)


_END = r"(?![A-Za-z0-9_-])"
TOKENS: tuple[Shape, ...] = (
    _shape("Hugging Face token", r"\bhf_[A-Za-z0-9]{16,}\b", "hf_REDACTED"),
    _shape("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{20,}\b", "ghp_REDACTED"),
    _shape("GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{20,}\b", "github_pat_REDACTED"),
    _shape(
        "GitLab token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|oas|imt)-[A-Za-z0-9_-]{20,}" + _END,
        "glpat-REDACTED",
    ),
    _shape("AWS access key id", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b", r"\1REDACTEDREDACTED"),
    _shape("API key (sk-)", r"\bsk-[A-Za-z0-9_-]{20,}" + _END, "sk-REDACTED"),
    _shape("Slack token", r"\bxox[abposer]-[A-Za-z0-9-]{10,}" + _END, "xox-REDACTED"),
    _shape("PyPI token", r"\bpypi-[A-Za-z0-9_-]{32,}" + _END, "pypi-REDACTED"),
    _shape("JWT", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", MASK),
)
# secrets shown next to a word that says what they are
CONTEXTUAL: tuple[Shape, ...] = (
    _shape(
        "authorization header",
        r"(?i)(?<![\w-])((?:proxy-)?authorization[\"'`]?\s*:\s*[\"'`]?)[^\r\n\"'`]+",
        r"\1" + MASK,
    ),
    _shape(
        "cookie header",
        r"(?i)(?<![\w-])((?:set-)?cookie[\"'`]?\s*:\s*[\"'`]?)[^\r\n\"'`]+",
        r"\1" + MASK,
    ),
    _shape("bearer token", r"(?i)\b(bearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{8,}", r"\1" + MASK),
    _shape(
        "netrc password",
        r"(?i)(\b(?:machine\s+\S+|default)\s.{0,300}?\bpassword\s+)(?!\[)\S+",
        r"\1" + MASK,
    ),
    _shape("netrc password", r"(?i)^(\s*password\s+)(?!\[)\S+(\s*)$", r"\1" + MASK + r"\2"),
    _shape(
        "conda channel token",
        r"(://[^\s/\"'<>]+(?:/[^\s/\"'<>]+)*?/t/)[A-Za-z0-9][A-Za-z0-9_-]{15,}(?=/)",
        r"\1" + MASK,
    ),
)

_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://([^\s\"'<>`]+)")  # bounded: linear
_HOST_AFTER = re.compile(r"[A-Za-z0-9\[][A-Za-z0-9.\-\]:]*?(?::\d+)?(?=[/?#]|$)")
_PORT = re.compile(r"\d*")
_DOTTED_HOST_AFTER = re.compile(
    r"@(?=[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z][A-Za-z0-9-]*(?::\d+)?(?:[/?#]|$))"
)


def has_known_shape(value: str) -> bool:
    """Whether a value holds a token of a known format."""
    return any(s.pattern.search(value) for s in TOKENS)


def _credential_user(user: str) -> bool:
    """A URL's user part that is itself a token (`https://<token>@host`), not a name."""
    return has_known_shape(user) or (
        len(user) >= 16
        and any(c.isdigit() for c in user)
        and any(c.isalpha() for c in user)
        and user != MASK
    )


def userinfo_end(rest: str) -> int | None:
    """Where the `user:password` part of a URL (after `scheme://`) ends, at its `@`; None
    when the URL has none. A password may hold `@` (the last one before the path counts) or
    `/` (then the `@` followed by a host and the path does)."""
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    at = rest.rfind("@", 0, cut)
    if at >= 0:
        if "." in rest[at + 1 : cut] or rest[at + 1 : cut].startswith("localhost"):
            return at
        # `user:p@ss/word@proxy.example.com/`: a later `@` before a dotted host wins
        later = _DOTTED_HOST_AFTER.search(rest, cut)
        return later.start() if later else at
    colon = rest.find(":", 0, cut)
    if colon <= 0 or rest.startswith("[") or _PORT.fullmatch(rest[colon + 1 : cut]):
        return None
    for m in re.finditer("@", rest):
        if m.start() > colon and _HOST_AFTER.match(rest, m.end()):
            return m.start()
    return None


def _url_secrets(line: str) -> tuple[str, bool]:
    """`line` with the password (and a user that is a token) of every URL masked."""
    out, pos, found = [], 0, False
    for m in _URL.finditer(line):
        rest, start = m.group(1), m.start(1)
        end = userinfo_end(rest)
        if end is None:
            continue
        user, colon, password = rest[:end].partition(":")
        new_user = MASK if _credential_user(user) else user
        new_password = MASK if password and password != MASK else password
        if (new_user, new_password) == (user, password):
            continue
        out.append(line[pos:start] + new_user + colon + new_password)
        pos, found = start + end, True
    return "".join(out) + line[pos:], found


def _substitute(shape: Shape, line: str) -> tuple[str, bool]:
    changed = False

    def replace(m: re.Match[str]) -> str:
        nonlocal changed
        new = m.expand(shape.replacement)
        changed = changed or new != m.group(0)
        return new

    return shape.pattern.sub(replace, line), changed


Step = tuple[str, Callable[[str], tuple[str, bool]]]  # (label, line -> (line, changed))


def _step(shape: Shape) -> Step:
    def step(line: str) -> tuple[str, bool]:
        return _substitute(shape, line)

    return shape.label, step


# the redactor applies them in this order, with names and environment values in between
CONTEXT_STEPS: tuple[Step, ...] = tuple(_step(s) for s in CONTEXTUAL)
URL_STEPS: tuple[Step, ...] = (("credentials in a URL", _url_secrets),)
TOKEN_STEPS: tuple[Step, ...] = tuple(_step(s) for s in TOKENS)


def apply(line: str, steps: tuple[Step, ...], found: list[str]) -> str:
    """`line` after every step; the label of each step that changed it is added to `found`."""
    for label, step in steps:
        line, hit = step(line)
        if hit and label not in found:
            found.append(label)
    return line


def replace_all(line: str) -> tuple[str, list[str]]:
    """`line` with every known shape masked, and the kinds that were found."""
    found: list[str] = []
    for steps in (CONTEXT_STEPS, URL_STEPS, TOKEN_STEPS):
        line = apply(line, steps, found)
    return line, found


def secrets_in(value: str) -> list[str]:
    """The secret parts of a value (tokens, a URL's password or token user), to be removed
    wherever else they show up."""
    parts = [m.group(0) for s in TOKENS for m in s.pattern.finditer(value)]
    for m in _URL.finditer(value):
        end = userinfo_end(m.group(1))
        if end is not None:
            user, _, password = m.group(1)[:end].partition(":")
            parts += [password] + ([user] if _credential_user(user) else [])
    return [p for p in parts if p and p != MASK]


def is_key_body(line: str) -> bool:
    """Whether a line inside a private-key block still belongs to it."""
    return bool(_PEM_BODY.match(line))

"""Secrets out of every capture before a byte is written, with a summary that names what was
removed (variable names and kinds of secret, never values). There is no way to turn it off.

Three layers, applied to every capture:
1. variables whose *name* says secret (`HF_TOKEN`, `WANDB_API_KEY`, `AWS_*`, `*_TOKEN`,
   `*_SECRET`, `*_PASSWORD`, `*_KEY`, ...) lose their value wherever a `NAME=value` or
   `NAME: value` line shows them;
2. the *values* of such variables in the environment are removed from every capture, so a tool
   that echoes a token in its own words does not leak it;
3. shapes of secrets (bearer tokens, `hf_…`, `ghp_…`, AWS key ids, private keys, `user:pass@`
   in URLs, `token=`/`key=`/`password=` parameters) are replaced wherever they appear.

>>> r = Redactor({"HF_TOKEN": "hf_abcdefghijklmnopqrstu", "PATH": "/bin"})
>>> r.text("env.txt", "HF_TOKEN=hf_abcdefghijklmnopqrstu\\nurl https://bob:pw123456@host/x\\n")
'HF_TOKEN=[REDACTED]\\nurl https://bob:[REDACTED]@host/x\\n'
>>> r.summary()
['env.txt: HF_TOKEN (secret variable), credentials in a URL']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from kb.scaffold.redact import SECRET_PATTERNS

MASK = "[REDACTED]"
MIN_VALUE = 6  # shorter values are masked in NAME=value lines only (a "1" is everywhere)

_SECRET_NAME = re.compile(
    r"(?i)^(?:AWS_\w*|HF_TOKEN|HUGGING_FACE_HUB_TOKEN|WANDB_API_KEY|"
    r"\w*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|_KEY|APIKEY|API_KEY|"
    r"ACCESS_KEY|PRIVATE_KEY|AUTH)\w*)$"
)
# NAME=value / NAME: value / export NAME="value" / declare -x NAME="value" / - NAME: value
_ASSIGNMENT = re.compile(
    r"(?m)^(?P<lead>[ \t]*(?:declare -x |export |- )?[`'\"]?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)"
    r"(?P<sep>[`'\"]?[ \t]*(?:=|:)[ \t]*)(?P<value>[^\r\n]*)$"
)
_URL_QUERY_SECRET = re.compile(
    r"(?i)([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|signature|sig|auth)[\w.-]*)=)"
    r"[^&#\s\"']+"
)
# every layer above needs one of these on the line (a name, a token prefix, a URL, a key block)
_TRIGGER = re.compile(
    r"(?i)token|secret|passw|pwd|passphrase|credential|key|auth|bearer|hf_|gh[pousr]_|"
    r"github_pat_|akia|asia|sk-|xox|://|private"
)
_LABELS = (
    "private key",
    "authorization header",
    "bearer token",
    "Hugging Face token",
    "GitHub token",
    "GitHub token",
    "AWS access key id",
    "API key (sk-)",
    "Slack token",
    "password/token/key value",
    "credentials in a URL",
)


def is_secret_name(name: str) -> bool:
    """Whether a variable's name says its value is a secret.

    >>> [is_secret_name(n) for n in ("HF_TOKEN", "AWS_REGION", "NCCL_IB_HCA", "DB_PASSWORD")]
    [True, True, False, True]
    """
    return bool(_SECRET_NAME.match(name))


class Redactor:
    """Redacts captures and remembers, per file, what it removed."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        values = {v for k, v in environ.items() if is_secret_name(k) and len(v) >= MIN_VALUE}
        for value in list(environ.values()):  # a token inside another variable's URL
            for pattern, _ in SECRET_PATTERNS:
                values.update(
                    m.group(0)
                    for m in pattern.finditer(value)
                    if len(m.group(0)) >= MIN_VALUE and "://" not in m.group(0)
                )
        # longest first, so a value that contains another goes whole
        self._values = sorted(values, key=len, reverse=True)
        self._found: dict[str, list[str]] = {}

    def _note(self, file: str, what: str) -> None:
        seen = self._found.setdefault(file, [])
        if what not in seen:
            seen.append(what)

    def text(self, file: str, text: str) -> str:
        """`text` with every secret replaced; what was removed is noted under `file`."""

        def assignment(m: re.Match[str]) -> str:
            name, value = m.group("name"), m.group("value")
            if not is_secret_name(name) or not value.strip() or value.strip() == MASK:
                return m.group(0)
            self._note(file, f"{name} (secret variable)")
            return f"{m.group('lead')}{name}{m.group('sep')}{MASK}"

        out = _ASSIGNMENT.sub(assignment, text)
        for value in self._values:
            if value in out:
                out = out.replace(value, MASK)
                self._note(file, "value of a secret variable")
        for (pattern, replacement), label in zip(SECRET_PATTERNS, _LABELS, strict=True):
            out = pattern.sub(self._replacer(file, replacement, label), out)
        out, n = _URL_QUERY_SECRET.subn(lambda m: m.group(1) + MASK, out)
        if n:
            self._note(file, "secret parameter in a URL")
        return out

    def _replacer(self, file: str, replacement: str, label: str) -> Callable[[re.Match[str]], str]:
        def replace(m: re.Match[str]) -> str:
            new = m.expand(replacement)
            if new != m.group(0):
                self._note(file, label)
            return new

        return replace

    def environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """A copy of `environ` with secret values masked (for a capture of variables)."""
        return {k: (MASK if is_secret_name(k) and v else v) for k, v in environ.items()}

    def may_hold_secret(self, line: str) -> bool:
        """A cheap first look: False means `text` would leave the line as it is."""
        return bool(_TRIGGER.search(line)) or any(v in line for v in self._values)

    def summary(self) -> list[str]:
        """One line per file: what was removed there (names and kinds, never values)."""
        return [f"{file}: {', '.join(items)}" for file, items in self._found.items()]

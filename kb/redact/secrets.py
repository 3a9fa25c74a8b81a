"""The redactor: secrets out of every line before a byte is written, and a summary that names
what was removed (variable names and kinds of secret, never values).

Layers, applied to each line in this order:
1. a private-key block goes whole, from its BEGIN line through its body to its END line;
2. values next to a word that says what they are: `Authorization:`/`Cookie:` headers,
   `Bearer …`, netrc `password X`, a conda channel's `/t/<token>/`;
3. the value of every name whose words say secret (`kb.redact.assignments`);
4. credentials in URLs (a password, a token used as the user);
5. the values of such variables in the environment, wherever they appear, so a tool that
   echoes a token in its own words does not leak it;
6. token formats (`hf_…`, `ghp_…`, `glpat-…`, `sk-…`, AWS key ids, JWTs, ...), wherever they
   appear.

>>> r = SecretRedactor({"HF_TOKEN": "hf_abcdefghijklmnopqrstu", "PATH": "/bin"})
>>> r.text("env.txt", "HF_TOKEN=hf_abcdefghijklmnopqrstu\\nurl https://bob:pw123456@host/x\\n")
'HF_TOKEN=[REDACTED]\\nurl https://bob:[REDACTED]@host/x\\n'
>>> r.summary()
['env.txt: HF_TOKEN (secret variable), credentials in a URL']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from kb.redact.assignments import mask_assignments
from kb.redact.names import is_secret
from kb.redact.shapes import (
    CONTEXT_STEPS,
    MASK,
    PEM_BEGIN,
    PEM_END,
    PEM_MASK,
    TOKEN_STEPS,
    URL_STEPS,
    apply,
    is_key_body,
    secrets_in,
)

MAX_KEY_LINES = 400  # a private key block is shorter (an 8192-bit RSA key: about 100 lines)
MIN_VALUE = 6  # shorter values are masked where they are assigned only (a "1" is everywhere)
# every layer needs one of these on the (lower-cased) line: a name, a token prefix, a URL, a
# header; searched without IGNORECASE, which made this first look 7 times slower
_TRIGGER = re.compile(
    r"token|secret|pass|pwd|credential|creds|key|auth|jwt|cookie|bearer|hf_|gh[pousr]_|"
    r"github_pat_|gl[a-z]{1,3}-|akia|asia|sk-|xox|pypi-|eyj|://|sig=|signature"
)


class SecretRedactor:
    """Redacts text and remembers, per file, what it removed."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        environ = environ or {}
        values = {v for k, v in environ.items() if len(v) >= MIN_VALUE and is_secret(k, v)}
        for value in environ.values():  # a token inside another variable's URL
            values.update(s for s in secrets_in(value) if len(s) >= MIN_VALUE)
        # longest first, so a value that contains another goes whole
        self._values = sorted(values, key=len, reverse=True)
        self._found: dict[str, list[str]] = {}
        self.count = 0  # lines changed

    def note(self, file: str, what: str) -> None:
        """Records that `what` (a name or a kind, never a value) was removed from `file`."""
        seen = self._found.setdefault(file, [])
        if what not in seen:
            seen.append(what)

    def line(self, file: str, line: str) -> str:
        """One line (no private-key block in it) with every secret masked."""
        if not _TRIGGER.search(line.lower()) and not any(v in line for v in self._values):
            return line
        found: list[str] = []
        out = apply(line, CONTEXT_STEPS, found)
        out, named = mask_assignments(out)
        found += named
        out = apply(out, URL_STEPS, found)
        for value in self._values:
            if value in out:
                out = out.replace(value, MASK)
                found.append("value of a secret variable")
        out = apply(out, TOKEN_STEPS, found)
        for what in found:
            self.note(file, what)
        self.count += out != line
        return out

    def lines(self, file: str, lines: Iterable[str]) -> Iterator[str]:
        """Every line redacted, as they come; a private-key block becomes one
        `[REDACTED PRIVATE KEY]` line, whatever its lines look like (a log prefix on each).
        The lines after a BEGIN are held until its END (at most `MAX_KEY_LINES`): a block
        cut short loses the lines that look like key material, the rest is redacted as usual."""
        held: list[str] | None = None
        for line in lines:
            if held is not None:
                end = PEM_END.search(line)
                if end is None:
                    held.append(line)
                    if len(held) >= MAX_KEY_LINES:
                        yield from self._cut_short(file, held)
                        held = None
                    continue
                held, line = None, line[end.end() :]
                if not line.strip():
                    continue
            line, opened = self._key_blocks(file, line)
            if opened:
                yield line
                held = []
            else:
                yield self.line(file, line)
        if held:
            yield from self._cut_short(file, held)

    def _cut_short(self, file: str, held: list[str]) -> Iterator[str]:
        body = 0
        while body < len(held) and is_key_body(held[body]):
            body += 1
        yield from self.lines(file, held[body:])

    def _key_blocks(self, file: str, line: str) -> tuple[str, bool]:
        """`line` with every private-key block in it replaced; True when a block starts here
        and goes on past the line (then the line is already redacted up to the block)."""
        while (begin := PEM_BEGIN.search(line)) is not None:
            self.note(file, "private key")
            self.count += 1
            end = PEM_END.search(line, begin.end())
            if end is None:
                newline = line[len(line.rstrip("\r\n")) :]
                return self.line(file, line[: begin.start()]) + PEM_MASK + newline, True
            line = line[: begin.start()] + PEM_MASK + line[end.end() :]
        return line, False

    def text(self, file: str, text: str) -> str:
        """`text` with every secret replaced; what was removed is noted under `file`."""
        return "".join(self.lines(file, text.splitlines(keepends=True)))

    def environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """A copy of `environ` with secret values masked (for a capture of variables)."""
        return {k: (MASK if is_secret(k, v) else v) for k, v in environ.items()}

    def summary(self) -> list[str]:
        """One line per file: what was removed there (names and kinds, never values)."""
        return [f"{file}: {', '.join(items)}" for file, items in self._found.items()]

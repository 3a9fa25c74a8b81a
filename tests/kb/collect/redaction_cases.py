"""The redaction corpus (`redaction_corpus/`) as test data: benign lines, secret cases with
their marked secrets, and the check that nothing of a secret is left."""

from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).parent / "redaction_corpus"
MARKED = re.compile(r"⟦(.*?)⟧", re.S)


def _benign() -> list[str]:
    text = (CORPUS / "benign.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("##")]


def _secret_cases() -> list[tuple[str, list[str]]]:
    """(text with the markers removed, the secrets marked in it) for each case."""
    text = (CORPUS / "secret.txt").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("##")]
    cases = [c.strip("\n") for c in "\n".join(lines).split("\n\n") if c.strip()]
    return [(MARKED.sub(r"\1", c) + "\n", MARKED.findall(c)) for c in cases]


BENIGN = _benign()
SECRETS = _secret_cases()
ALL_SECRETS = [s for _, secrets in SECRETS for s in secrets]
# benign first: a private-key block cut short at the end of the secrets must not eat them
BENIGN_THEN_SECRETS = "".join(f"{line}\n" for line in BENIGN) + "\n".join(t for t, _ in SECRETS)


def windows(secret: str, width: int = 8) -> set[str]:
    return {secret[i : i + width] for i in range(max(len(secret) - width + 1, 1))}


def kept(out: str, secrets: list[str]) -> list[str]:
    """The secrets of which something (the whole, or any 8-byte window) is still in `out`."""
    return [s for s in secrets if any(w in out for w in windows(s))]

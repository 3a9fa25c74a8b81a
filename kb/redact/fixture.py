"""What `kb new --from-evidence` applies to evidence before it becomes a fixture: the secrets
every bundle loses (`kb.redact.secrets`), then host names and addresses (`kb.redact.hosts`).

>>> r = FixtureRedactor()
>>> text = "MASTER_ADDR=gpu-node-07\\nHF_TOKEN=hf_QwErTyUiOpAsDfGhJkLzXcVbNm12\\n"
>>> r.learn_hosts(text)
>>> r.redact(text), r.secrets
('MASTER_ADDR=host-1\\nHF_TOKEN=[REDACTED]\\n', 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field

from kb.redact.hosts import HostRedactor
from kb.redact.secrets import SecretRedactor


@dataclass
class FixtureRedactor(HostRedactor):
    """One mapping of hosts for all files of a fixture, and the secrets of all of them.

    The evidence was written elsewhere and earlier, so this shell's variables are not taken
    for its secrets unless `environ` is given (the same text must give the same fixture)."""

    environ: InitVar[Mapping[str, str] | None] = None
    secret_redactor: SecretRedactor = field(init=False)

    def __post_init__(self, environ: Mapping[str, str] | None) -> None:
        self.secret_redactor = SecretRedactor(environ or {})

    @property
    def secrets(self) -> int:
        """How many lines lost a secret."""
        return self.secret_redactor.count

    def redact(self, text: str, file: str = "evidence") -> str:
        """Secrets first (a token must not survive as a host name), then hosts and addresses."""
        return super().redact(self.secret_redactor.text(file, text))

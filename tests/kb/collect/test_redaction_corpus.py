"""The one redactor against a committed corpus (`redaction_corpus/`): every benign look-alike
(package names, config keys, log prose about tokens) comes out unchanged, and no secret shape
keeps its value or any 8-byte window of it, whether the text is redacted whole (`kb collect`),
streamed line by line from a file (`kb run`) or copied into a fixture (`kb new`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from redaction_cases import ALL_SECRETS, BENIGN, BENIGN_THEN_SECRETS, SECRETS, kept

from kb.collect.scrub import scrub_file
from kb.redact.fixture import FixtureRedactor
from kb.redact.secrets import SecretRedactor


def test_the_corpus_is_read() -> None:
    assert len(BENIGN) >= 60 and len(SECRETS) >= 35
    assert all(secrets for _, secrets in SECRETS), "a secret case marks no secret"
    assert all(len(s) >= 8 for _, secrets in SECRETS for s in secrets)


@pytest.mark.parametrize("line", BENIGN, ids=[b[:40] for b in BENIGN])
def test_a_benign_line_is_left_alone(line: str) -> None:
    redactor = SecretRedactor({})
    assert redactor.text("f.txt", line + "\n") == line + "\n"
    assert redactor.summary() == []


@pytest.mark.parametrize("case", SECRETS, ids=[c[0].splitlines()[0][:40] for c in SECRETS])
def test_no_window_of_a_secret_is_kept(case: tuple[str, list[str]]) -> None:
    text, secrets = case
    redactor = SecretRedactor({})
    out = redactor.text("f.txt", text)
    assert not kept(out, secrets), out
    summary = redactor.summary()
    assert summary and summary[0].startswith("f.txt: ")
    assert not kept("\n".join(summary), secrets), summary  # names and kinds, never values
    fixture = FixtureRedactor(environ={})
    assert not kept(fixture.redact(text), secrets) and fixture.secrets


def test_a_file_streamed_line_by_line_keeps_no_secret(tmp_path: Path) -> None:
    """`kb run` redacts the job's files line by line: key blocks must still go whole."""
    path = tmp_path / "launcher.stdout.log"
    path.write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    assert scrub_file(path, SecretRedactor({}), "launcher.stdout.log")
    out = path.read_text(encoding="utf-8")
    assert out.splitlines()[: len(BENIGN)] == BENIGN
    assert not kept(out, ALL_SECRETS)
    assert "-----END" not in out and "[REDACTED PRIVATE KEY]" in out


def test_the_summary_names_what_went() -> None:
    redactor = SecretRedactor({})
    redactor.text("env.txt", "SLURM_JWT=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl\n")
    redactor.text("env.txt", "export TORCH_HUB_TOKEN=abc12345\n")
    redactor.text("pip-freeze.txt", "x @ git+https://u:pw123456@gitlab.example.com/x.git\n")
    assert redactor.summary() == [
        "env.txt: SLURM_JWT (secret variable), TORCH_HUB_TOKEN (secret variable)",
        "pip-freeze.txt: credentials in a URL",
    ]


def test_a_key_block_cut_short_loses_its_body_and_keeps_the_log_after_it() -> None:
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAplanted0123456789\nstep 5 loss 2.1\n"
    out = SecretRedactor({}).text("f", text)
    assert out == "[REDACTED PRIVATE KEY]\nstep 5 loss 2.1\n"


def test_every_stored_fixture_is_left_alone() -> None:
    """The cases' fixtures are real evidence of real incidents (config dumps, pip freezes,
    NCCL logs, `key: store_based_barrier_key:1`), already free of secrets: redacting them
    again must change nothing."""
    cases = Path(__file__).resolve().parents[3] / "cases"
    redactor, read = SecretRedactor({}), 0
    for path in sorted(cases.glob("*/fixtures/**/*")):
        data = path.read_bytes() if path.is_file() else b"\0"
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", "surrogateescape")
        assert redactor.text(path.name, text) == text, path
        read += 1
    assert read >= 1000 and redactor.summary() == []


def test_a_value_too_long_to_judge_is_masked_whole() -> None:
    """Values are read at most 4 KiB at a time (a long line of `key:key:…` stays linear); a
    longer one next to a secret name goes whole, even where its start looks harmless."""
    line = "cfg key: " + "ab:" * 3000 + " next\n"
    assert SecretRedactor({}).text("f", line) == "cfg key: [REDACTED] next\n"
    assert SecretRedactor({}).text("f", "key: " + "ab:" * 30 + "\n") == "key: " + "ab:" * 30 + "\n"

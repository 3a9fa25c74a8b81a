"""`kb run`'s scrub in bounded memory whatever the line length (issue 32): a job printing a
GiB without a newline once held the whole line, decoded, and the redactor's copy of it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from kb.collect import scrub
from kb.collect.scrub import scrub_file
from kb.redact.secrets import SecretRedactor

TOKEN = "HF_TOKEN=hf_abcdefghijklmnopqrstu"


class Recording(SecretRedactor):
    """The redactor, noting the longest line it was handed."""

    longest = 0

    def lines(self, file: str, lines: Iterable[str]) -> Iterator[str]:
        def noted() -> Iterator[str]:
            for line in lines:
                Recording.longest = max(Recording.longest, len(line))
                yield line

        return super().lines(file, noted())


def test_a_line_without_newline_reaches_the_redactor_in_bounded_pieces(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    words = b"step 1 loss 0.5 " * (5 * scrub.PIECE // 16)  # 5 MiB, no newline
    log.write_bytes(b"start\n" + words + b"tail")
    Recording.longest = 0
    assert scrub_file(log, Recording({}), "job.log") is False  # nothing to redact
    assert log.read_bytes() == b"start\n" + words + b"tail"  # not a byte changed
    assert 0 < Recording.longest <= 2 * scrub.PIECE


@pytest.mark.parametrize("piece", [64, 100, 1 << 20])
def test_secrets_in_a_long_line_are_redacted_wherever_the_pieces_are_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """Pieces longer than a secret: every value goes, with its key or not."""
    monkeypatch.setattr(scrub, "PIECE", piece)
    log = tmp_path / "job.log"
    words = ["x" * 50, TOKEN, "y" * 30, "é" * 20, "password: hunter2secret", "z" * 9]
    words += ["Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "w" * 90, "--token sekrit123abc"]
    body = " ".join(words * 3)
    log.write_text(body + "\nafter\n" + body)  # the last line has no newline
    assert scrub_file(log, SecretRedactor({}), "job.log") is True
    text = log.read_text()
    assert text.startswith("x" * 50 + " HF_TOKEN=[REDACTED]") and "\nafter\n" in text
    for secret in ("hf_abcdefghijklmnopqrstu", "hunter2secret", "abcdefghijklmnopqrstuvwxyz",
                   "sekrit123abc"):  # fmt: skip
        assert secret not in text, (piece, secret)


def test_a_run_without_whitespace_longer_than_a_piece_is_kept_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scrub, "PIECE", 10)
    log = tmp_path / "job.log"
    data = ("ab€" * 40).encode() + b"\xff\xfe" + b"q" * 33  # cut inside characters too
    log.write_bytes(data)
    assert scrub_file(log, SecretRedactor({}), "job.log") is False
    assert log.read_bytes() == data

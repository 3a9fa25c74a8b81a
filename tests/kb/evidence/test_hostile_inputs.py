"""Evidence from strangers: inputs built to exhaust memory or break the reader are reported
and skipped, quickly, never a traceback (the hardening issue's reproducers)."""

from __future__ import annotations

import io
import json
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from kb.cli.main import main


def _laughs(levels: int) -> str:
    lines = [
        "compute_environment: LOCAL_MACHINE",
        "distributed_type: MULTI_GPU",
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ]
    prev = "a"
    for name in "bcdefghijk"[:levels]:
        lines.append(f"{name}: &{name} [" + ",".join(["*" + prev] * 9) + "]")
        prev = name
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_is_not_expanded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "default_config.yaml").write_text(_laughs(9), encoding="utf-8")
    started = time.monotonic()
    assert main(["evidence", str(tmp_path), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert time.monotonic() - started < 30  # generous: the bomb took minutes before
    assert len(out) < 100_000
    facts = json.loads(out)["facts"]
    assert facts["accelerate_config"] == {}
    assert any("YAML not read" in s["text"] for s in facts["suspicious"])


def test_a_small_real_config_is_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "default_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\n"
        "deepspeed_config:\n  zero_stage: 3\n",
        encoding="utf-8",
    )
    assert main(["evidence", str(tmp_path), "--format", "json"]) == 0
    config = json.loads(capsys.readouterr().out)["facts"]["accelerate_config"]
    assert config["num_processes"] == 8 and config["deepspeed_config"] == {"zero_stage": 3}


def _zip_with_bad_crc(path: Path) -> None:
    data = b"[rank0]: RuntimeError: NCCL error\n" * 50
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("rank0.log", data)
    raw = bytearray(buf.getvalue())
    at = raw.find(b"NCCL error")
    raw[at] ^= 0xFF  # one flipped byte in the stored member
    path.write_bytes(bytes(raw))


def _truncated_tar(path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        data = b"[rank1]: Watchdog caught collective operation timeout\n" * 400
        info = tarfile.TarInfo("logs/rank1.log")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    path.write_bytes(buf.getvalue()[:7000])


def _zip_with_bad_member_header(path: Path) -> None:
    """The central directory says `logs/rank1.log`, the member's own header another name
    (found by scripts/fuzz.py: zipfile raises as the member is opened, not as it is read)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("logs/rank1.log", b"[rank1]: Watchdog caught collective operation timeout\n")
    data = buf.getvalue()
    local = data.index(b"logs/rank1.log")  # the first copy is the local header's
    path.write_bytes(data[:local] + b"logX" + data[local + 4 :])


@pytest.mark.parametrize(
    "make,name",
    [
        (_zip_with_bad_crc, "logs.zip"),
        (_zip_with_bad_member_header, "names.zip"),
        (_truncated_tar, "logs.tar"),
    ],
)
@pytest.mark.parametrize("command", ["evidence", "diagnose"])
def test_corrupt_archives_are_reported_not_raised(
    tmp_path: Path,
    make,
    name: str,  # type: ignore[no-untyped-def]
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    archive = tmp_path / name
    make(archive)
    args = (
        ["diagnose", "--evidence", str(archive)]
        if command == "diagnose"
        else ["evidence", str(archive)]
    )
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert "Traceback" not in out + err
    assert "corrupt archive member" in out + err  # said plainly, the member skipped


def test_a_zip_text_bomb_stops_early(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same check as for .gz: inflated bytes against the compressed bytes consumed so far.
    An incompressible tail keeps the member's overall ratio low, which hid the bomb when the
    whole member's compressed size was the measure."""
    import os
    import re

    bomb = tmp_path / "logs.zip"
    line = b"[rank0]: NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
    with (
        zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf,
        zf.open("rank0.log", "w", force_zip64=True) as member,
    ):
        for _ in range(120):  # 120 MiB of one line...
            member.write(line * ((1 << 20) // len(line)))
        member.write(os.urandom(2 << 20))  # ...and 2 MiB that does not compress
    assert main(["evidence", str(bomb), "--format", "json"]) == 0
    skipped = json.loads(capsys.readouterr().out)["facts"]["skipped"]
    reason = next(s["reason"] for s in skipped if "decompression bomb" in s["reason"])
    inflated = int(re.search(r"(\d+) bytes inflated", reason).group(1))  # type: ignore[union-attr]
    assert "ratio above" in reason and inflated < 40 << 20


def test_a_number_of_thousands_of_digits_costs_one_line_not_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digits = "9" * 4400
    (tmp_path / "rank1.log").write_text(
        f"[rank{digits}]: Epoch 1:  10%|##   | 10/100\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
        f"timeout: WorkNCCL(SeqNum={'1' * 5000}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=1800000) ran for 1800472 milliseconds before timing out.\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=1800000) ran for 1800472 milliseconds before timing out.\n",
        encoding="utf-8",
    )
    assert main(["evidence", str(tmp_path), "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert [f["path"] for f in facts["files"]] == ["rank1.log"]  # the file is read
    assert [t["seq"] for t in facts["watchdog_timeouts"]] == [7]  # the good line after it too
    assert any("line 2 skipped" in s["reason"] for s in facts["skipped"])


def test_hostile_file_names_and_escape_sequences_stay_visible_and_inert(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    line = b"[rank0]: RuntimeError: NCCL error \x1b]0;pwned\x07 \x1b[2J end\n"
    (tmp_path / "bad\x1b[31mname\nforged.log").write_bytes(line)
    os.close(os.open(os.fsencode(tmp_path) + b"/rank1-\xff.log", os.O_CREAT | os.O_WRONLY))
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    for args in (
        ["evidence", str(tmp_path)],
        ["diagnose", "--evidence", str(tmp_path)],
        ["evidence", str(tmp_path), "--format", "json"],
        ["diagnose", "--evidence", str(tmp_path), "--format", "json"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "kb.cli.main", *args],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr.decode(errors="replace")[-800:]
        out = done.stdout.decode("utf-8")  # valid UTF-8, whatever the names were
        assert "\x1b]" not in out and "\x1b[2J" not in out and "\x07" not in out
        assert "forged.log" not in out.replace("\\x0aforged.log", "")  # no line forged
        if "json" in args:
            json.loads(out)


def test_a_link_to_a_fifo_and_a_closed_stdin_do_not_hang_or_raise(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "link").symlink_to(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "evidence", str(tmp_path / "link")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "not a regular file (FIFO)" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "evidence", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert "standard input is closed" in done.stdout and "Traceback" not in done.stderr


def test_markdown_output_keeps_hostile_lines_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rank0.log").write_text(
        "[rank0]: RuntimeError: NCCL error `x` <img src=x onerror=alert(1)> "
        "[click](javascript:alert(1)) | cell\n",
        encoding="utf-8",
    )
    main(["diagnose", "--evidence", str(tmp_path), "--format", "markdown"])
    out = capsys.readouterr().out
    import re

    # inside a code span nothing renders; outside one, nothing hostile may stand
    outside = re.sub(r"(`+) .*? \1|`[^`]*`", "", out)
    assert "onerror" in out and "<img" not in outside and "](javascript:" not in outside
    row = next(line for line in out.splitlines() if "onerror" in line)
    assert row.count("|") - row.count("\\|") == 5  # the pipe in the log line stays in its cell
    assert "`` " in row  # a longer fence: the backtick in the line cannot close the span


def test_a_line_cut_by_the_stdin_limit_is_dropped_not_read_as_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`rank 1 exited with code 12` cut to `rank 1 exited with code 1` would say a wrong thing."""
    import io
    import sys
    from types import SimpleNamespace

    from kb.evidence.facts import SkippedFile
    from kb.evidence.limits import Limits
    from kb.evidence.stdin import spool_stdin

    data = b"first whole line\nsecond whole line\nrank 1 exited with code 12\n"
    limit = data.index(b"12") + 1  # cuts `12` to `1`
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(data)))
    skipped: list[SkippedFile] = []
    spooled = spool_stdin(Limits(stdin_max=limit), skipped)
    kept = spooled.open().read()
    assert kept == b"first whole line\nsecond whole line\n"
    assert spooled.size == len(kept)
    assert skipped and "whole lines" in skipped[0].reason

"""Hostile inputs: every problem is reported in facts.skipped and nothing raises."""

from __future__ import annotations

import gzip
import io
import os
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

import evidence_samples as S
import pytest

from kb.evidence import inputs
from kb.evidence.limits import MIB, Limits
from kb.evidence.reader import LogPattern, read_evidence


def reasons(bundle) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s.path: s.reason for s in bundle.facts.skipped}


def _tar_add(tf: tarfile.TarFile, name: str, data: bytes, **kw: object) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in kw.items():
        setattr(info, k, v)
    tf.addfile(info, io.BytesIO(data) if data else None)


def gzip_repeated(n_bytes: int, byte: bytes = b"x") -> bytes:
    """A gzip of n copies of one byte, compressed in chunks (never holds the plain data)."""
    co = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = byte * MIB
    out = [co.compress(chunk) for _ in range(n_bytes // MIB)]
    out.append(co.flush())
    return b"".join(out)


def test_hostile_folder(tree, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    root = tree({
        "rank0/train.log": S.WATCHDOG_RANK3.replace("3", "0"),
        "binary.bin": b"\x7fELF\x02\x01\x01\x00" + bytes(100),
        "latin.log": "caf\xe9 ".encode("latin-1") * 400,
        "secret.log": "unreadable\n",
    })  # fmt: skip
    os.symlink("..", root / "rank0" / "loop")  # loop back to the root
    os.symlink("/etc", root / "outside")  # leaves the evidence folder
    os.symlink("missing.log", root / "dangling.log")
    os.mkfifo(root / "pipe")  # would block a naive reader forever
    real_open = inputs._open_binary

    def deny(path: str):  # type: ignore[no-untyped-def]
        # tests run as root, where chmod 000 does not stop reads: simulate EACCES at open()
        if path.endswith("secret.log"):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path)

    monkeypatch.setattr(inputs, "_open_binary", deny)
    bundle = read_evidence(root)
    got = reasons(bundle)
    assert got["binary.bin"] == "binary (NUL bytes in the first 8 KiB)"
    assert got["latin.log"].startswith("bad encoding (")
    assert got["secret.log"] == "unreadable: permission denied"
    assert got["rank0/loop"] == "symlink loop (points to a parent folder)"
    assert got["outside"] == "symlink points outside the evidence folder (not followed)"
    assert got["dangling.log"] == "dangling symlink"
    assert got["pipe"] == "not a regular file (FIFO)"
    assert [(f.path, f.rank) for f in bundle.facts.files] == [("rank0/train.log", 0)]
    assert bundle.facts.watchdog_timeouts[0].rank == 0


def test_tar_with_unsafe_members(tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "logs.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        _tar_add(tf, "rank1/train.log", S.WATCHDOG_RANK3.replace("3", "1").encode())
        _tar_add(tf, "../evil.log", b"x\n")
        _tar_add(tf, "/etc/passwd", b"x\n")
        _tar_add(tf, "link", b"", type=tarfile.SYMTYPE, linkname="/etc/shadow")
        _tar_add(tf, "hard", b"", type=tarfile.LNKTYPE, linkname="rank1/train.log")
        _tar_add(tf, "dev", b"", type=tarfile.CHRTYPE)
        _tar_add(tf, "rank0/pip.txt.gz", gzip.compress(S.PIP_FREEZE.encode()))
    bundle = read_evidence(path)
    got = reasons(bundle)
    assert got == {
        "logs.tar.gz!/../evil.log": "unsafe archive member: path traversal (..)",
        "logs.tar.gz!//etc/passwd": "unsafe archive member: absolute path",
        "logs.tar.gz!/link": "unsafe archive member: symlink to /etc/shadow",
        "logs.tar.gz!/hard": "unsafe archive member: hard link to rank1/train.log",
        "logs.tar.gz!/dev": "unsafe archive member: device file",
    }
    files = {(f.path, f.kind, f.rank) for f in bundle.facts.files}
    assert files == {
        ("logs.tar.gz!/rank1/train.log", "pytorch", 1),
        ("logs.tar.gz!/rank0/pip.txt.gz", "pip-freeze", 0),
    }
    assert bundle.facts.watchdog_timeouts[0].evidence.file == "logs.tar.gz!/rank1/train.log"
    assert not (tmp_path / "evil.log").exists()


def test_zip_slip_and_symlink_member(tmp_path: Path) -> None:
    path = tmp_path / "logs.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("node1/rank2/out.log", S.NCCL_RANK1)
        zf.writestr("../../tmp/evil.sh", "rm -rf /\n")
        link = zipfile.ZipInfo("link")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "/etc/passwd")
    bundle = read_evidence(path)
    assert reasons(bundle) == {
        "logs.zip!/../../tmp/evil.sh": "unsafe archive member: path traversal (..)",
        "logs.zip!/link": "unsafe archive member: symlink",
    }
    (f,) = bundle.facts.files
    assert (f.path, f.kind, f.rank, f.node) == ("logs.zip!/node1/rank2/out.log", "nccl", 2, "node1")


def test_gzip_bomb_stopped(tree) -> None:  # type: ignore[no-untyped-def]
    bomb = gzip_repeated(1024 * MIB)  # 1 GiB of "x" (text, so it is not rejected as binary)
    assert len(bomb) < 8 * MIB
    zeros = gzip_repeated(64 * MIB, b"\0")
    root = tree({"bomb.log.gz": bomb, "zeros.log.gz": zeros, "rank0.log": "step 1\n"})
    bundle = read_evidence(root)  # default limits: the ratio check stops it after 16 MiB
    got = reasons(bundle)
    assert got["bomb.log.gz"].startswith("decompression bomb: ")
    assert "ratio above 200:1" in got["bomb.log.gz"]
    assert got["zeros.log.gz"] == "binary (NUL bytes in the first 8 KiB)"  # stopped at the head
    assert [f.path for f in bundle.facts.files] == ["rank0.log"]


def test_gzip_member_limit_and_total_budget(tree) -> None:  # type: ignore[no-untyped-def]
    big = gzip.compress(
        b"plain line of text\n" * 80_000
    )  # 1.5 MB inflated, ratio below the bomb check
    root = tree({"a.log.gz": big, "b.log.gz": big})
    lim = Limits(member_inflated=1 * MIB)
    got = reasons(read_evidence(root, limits=lim))
    assert (
        got["a.log.gz"] == f"decompression bomb: more than {1 * MIB} bytes inflated from one stream"
    )
    lim = Limits(total_inflated=2 * MIB)
    got = reasons(read_evidence(root, limits=lim))
    assert list(got) == ["b.log.gz"] and "in total" in got["b.log.gz"]


def test_zip_bomb_member(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("zeros.log", "w") as fh:
            chunk = b"x" * MIB
            for _ in range(64):
                fh.write(chunk)
        zf.writestr("ok.log", "step 3\n")
    bundle = read_evidence(path)
    assert reasons(bundle)["bomb.zip!/zeros.log"].startswith("decompression bomb")
    assert [f.path for f in bundle.facts.files] == ["bomb.zip!/ok.log"]


def test_corrupt_archive_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.tar.gz"
    good = io.BytesIO()
    with tarfile.open(fileobj=good, mode="w:gz") as tf:
        _tar_add(tf, "a.log", os.urandom(200_000).hex().encode())
    path.write_bytes(good.getvalue()[:50_000])  # truncated mid-member
    bundle = read_evidence(path)
    assert "broken.tar.gz" in reasons(bundle)


def test_whole_file_source_too_large(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree({"pip.txt": S.PIP_FREEZE * 2000})
    bundle = read_evidence(root, limits=Limits(whole_file_max=16 * 1024))
    assert reasons(bundle)["pip.txt"].startswith("too large for pip-freeze")
    assert bundle.facts.files[0].kind == "text-log"  # still scanned for case patterns


def test_single_file_and_stdin(tree, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    root = tree({"rank3.log": S.WATCHDOG_RANK3})
    single = read_evidence(root / "rank3.log")
    assert [(f.path, f.rank) for f in single.facts.files] == [("rank3.log", 3)]

    class FakeStdin:
        buffer = io.BytesIO(S.WATCHDOG_RANK3.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin)
    piped = read_evidence("-", [LogPattern("wd", r"Watchdog caught")])
    assert piped.root == "<stdin>"
    assert piped.facts.watchdog_timeouts[0].rank == 3
    assert piped.hits["wd"].counts == {"<stdin>": {3: 1}}


def test_stdin_tar_gz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blob = io.BytesIO()
    with tarfile.open(fileobj=blob, mode="w:gz") as tf:
        _tar_add(tf, "rank1/x.log", b"[rank1]: step 7\n")

    class FakeStdin:
        buffer = io.BytesIO(blob.getvalue())

    monkeypatch.setattr(sys, "stdin", FakeStdin)
    bundle = read_evidence("-")
    assert [(f.path, f.rank) for f in bundle.facts.files] == [("<stdin>!/rank1/x.log", 1)]


def test_missing_path_raises_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        read_evidence(tmp_path / "nope")

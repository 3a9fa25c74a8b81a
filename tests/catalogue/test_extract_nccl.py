"""scripts/catalogue/extract_nccl.py on a tiny fake NCCL tree (work tree and git revision)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_nccl.py"


def _load():
    spec = importlib.util.spec_from_file_location("extract_nccl", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["extract_nccl"] = module
    spec.loader.exec_module(module)
    return module


extract_nccl = _load()

NET_IB = r"""
#include "debug.h"
#define WARN(...) ncclDebugLog(NCCL_LOG_WARN, __VA_ARGS__)
static void f(struct ibv_wc* wc, const char* peer) {
  WARN("NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d (%s)%s%s",
       peer, wc->status, wc->opcode, wc->byte_len, wc->vendor_err, "Recv", "", "");
  INFO(NCCL_INIT|NCCL_NET, "NET/IB : Using%s %s; OOB %s:%s", line, ro, ifName, addr);
  WARN(msg);  // not a literal: no template
  WARN("Call to " "ibv_reg_mr" /* name */ " failed with error %s", strerror(errno));
  WARN("size %" PRIu64 " at %p is 100%% {weird}", size, ptr);
}
"""

SOCKET = """
void g() {
  INFO(NCCL_ALL,
       "Call to connect returned %s, retrying",
       strerror(errno));
  WARN("Net : Connection closed by remote peer %s",
       ncclSocketToString(&sock->addr, line));
}
"""


def _tree(root: Path) -> Path:
    (root / "src" / "transport").mkdir(parents=True)
    (root / "src" / "transport" / "net_ib.cc").write_text(NET_IB, encoding="utf-8")
    (root / "src" / "socket.cc").write_text(SOCKET, encoding="utf-8")
    (root / "README.md").write_text('WARN("not source")\n', encoding="utf-8")
    return root


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_printf_conversions_become_typed_gaps() -> None:
    convert = extract_nccl.printf_to_template
    assert convert("rank %d of %5d ranks") == "rank {_:int} of {_:int} ranks"
    assert convert("busId %lx ptr %p") == "busId {_:hex} ptr {_:hex}"
    assert convert("%s:%d %.2f GB/s, 100%%") == "{_}:{_:int} {_:num} GB/s, 100%"
    assert convert("set_ece={supported=%d}") == "set_ece={{supported={_:int}}}"
    assert convert("failed: %m") == "failed: {_}"


def test_work_tree_messages_with_file_line_and_level(tmp_path: Path) -> None:
    found = {(m.path, m.line, m.level, m.template) for m in extract_nccl.extract(_tree(tmp_path))}
    assert found == {
        (
            "src/transport/net_ib.cc",
            5,
            "WARN",
            "NET/IB : Got completion from peer {_} with error {_:int}, opcode {_:int}, "
            "len {_:int}, vendor err {_:int} ({_}){_}",
        ),
        ("src/transport/net_ib.cc", 7, "INFO", "NET/IB : Using{_} {_}; OOB {_}:{_}"),
        ("src/transport/net_ib.cc", 9, "WARN", "Call to ibv_reg_mr failed with error {_}"),
        ("src/transport/net_ib.cc", 10, "WARN", "size {_:int} at {_:hex} is 100% {{weird}}"),
        ("src/socket.cc", 3, "INFO", "Call to connect returned {_}, retrying"),
        ("src/socket.cc", 6, "WARN", "Net : Connection closed by remote peer {_}"),
    }


def test_cli_prints_one_tab_separated_line_per_message(tmp_path: Path) -> None:
    done = _run("--repo", str(_tree(tmp_path)), "--level", "WARN")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "src/socket.cc:6\tWARN\tNet : Connection closed by remote peer {_}" in lines
    assert all(line.split("\t")[1] == "WARN" for line in lines)
    assert len(lines) == 4


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_rev_reads_the_committed_tree_not_the_work_tree(tmp_path: Path) -> None:
    repo = _tree(tmp_path)
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "v1"], check=True)
    subprocess.run([*git, "tag", "v2.99.0-1"], check=True)
    (repo / "src" / "socket.cc").write_text('void h() { WARN("changed %d", 1); }\n')
    at_tag = {m.template for m in extract_nccl.extract(repo, "v2.99.0-1")}
    now = {m.template for m in extract_nccl.extract(repo)}
    assert "Net : Connection closed by remote peer {_}" in at_tag
    assert "changed {_:int}" not in at_tag
    assert "changed {_:int}" in now


def test_bad_arguments_say_what_is_wrong(tmp_path: Path) -> None:
    missing = _run("--repo", str(tmp_path / "nope"))
    assert missing.returncode != 0
    assert "does not exist" in missing.stderr
    assert "Traceback" not in missing.stderr
    not_nccl = _run("--repo", str(tmp_path))
    assert not_nccl.returncode != 0
    assert "is not a directory" in not_nccl.stderr
    assert "Traceback" not in not_nccl.stderr
    assert "usage" in _run("--help").stdout


def test_spans_split_a_template_that_leaves_and_comes_back() -> None:
    msg = extract_nccl.Message

    def at(rev: str, *templates: str) -> tuple[str, list]:
        return rev, [msg("src/a.cc", 10 + i, "WARN", t) for i, t in enumerate(templates)]

    found = extract_nccl.spans(
        [at("v1", "A {_}"), at("v2", "A {_}", "B"), at("v3"), at("v4", "A {_}")]
    )
    assert {(s.template, s.since, s.until) for s in found} == {
        ("A {_}", "v1", "v3"),
        ("A {_}", "v4", ""),
        ("B", "v2", "v3"),
    }
    assert {s.where for s in found if s.template == "B"} == {"src/a.cc:11@v2"}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_cli_with_two_revs_prints_release_spans(tmp_path: Path) -> None:
    repo = _tree(tmp_path)
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "v1"], check=True)
    subprocess.run([*git, "tag", "v1"], check=True)
    (repo / "src" / "socket.cc").write_text('void h() {\n  WARN("changed %d", 1);\n}\n')
    subprocess.run([*git, "commit", "-q", "-am", "v2"], check=True)
    subprocess.run([*git, "tag", "v2"], check=True)
    done = _run("--repo", str(repo), "--rev", "v1", "--rev", "v2", "--level", "WARN")
    assert done.returncode == 0, done.stderr
    rows = {tuple(line.split("\t")) for line in done.stdout.splitlines()}
    assert ("v2", "", "src/socket.cc:2@v2", "WARN", "changed {_:int}") in rows
    assert (
        "v1",
        "v2",
        "src/socket.cc:6@v1",
        "WARN",
        "Net : Connection closed by remote peer {_}",
    ) in rows
    assert all(row[3] == "WARN" for row in rows)

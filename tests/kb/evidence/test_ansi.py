"""Terminal colours in captured consoles: the reader matches, attributes and quotes the text as
the terminal showed it, and no raw ESC reaches a report."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.evidence.ansi import AnsiFree, strip_ansi
from kb.evidence.reader import read_evidence

ROOT = Path(__file__).resolve().parents[3]
# rank 8 alone on node 1 fails to find NCCL_SOCKET_IFNAME=eth0 (a stored case fixture)
RANK8 = (
    ROOT / "cases/nccl-socket-wrong-interface/fixtures/positive"
    "/a800x16-2node-ifname-eth0-but-node1-has-ens-single-rank-log"
)
# what rich and colorlog print around a launcher prefix, and colorlog around a whole line
PREFIX_COLOURED = "\x1b[36m[rank8]\x1b[0m:"
LINE_COLOURED = "\x1b[32m[rank8]:"


def _coloured_console(dest: Path, colour: str) -> Path:
    """The fixture's rank8.log as `console.log` (no rank in the name), its prefixes coloured."""
    dest.mkdir()
    for name in ("notes.md", "ip-br-addr-gpu617.txt"):
        shutil.copy(RANK8 / name, dest / name)
    lines = (RANK8 / "rank8.log").read_text(encoding="utf-8").split("\n")
    if colour == LINE_COLOURED:
        lines = [x.replace("[rank8]:", colour) + "\x1b[0m" if "[rank8]:" in x else x for x in lines]
    else:
        lines = [x.replace("[rank8]:", colour) for x in lines]
    (dest / "console.log").write_text("\n".join(lines), encoding="utf-8")
    return dest


@pytest.mark.parametrize("colour", [PREFIX_COLOURED, LINE_COLOURED])
def test_a_coloured_rank_prefix_names_the_culprit(tmp_path: Path, colour: str, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = _coloured_console(tmp_path / "ev", colour)
    assert "\x1b[" in (folder / "console.log").read_text(encoding="utf-8")
    assert main(["diagnose", "--evidence", str(folder), "--format", "json"]) == 0
    out = capsys.readouterr().out
    best = json.loads(out)["matches"][0]
    assert (best["id"], best["culprit_rank"]) == ("nccl-socket-wrong-interface", 8)
    assert "\x1b" not in out and "\\u001b" not in out


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_no_raw_escape_reaches_a_report(tmp_path: Path, fmt: str, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = _coloured_console(tmp_path / "ev", PREFIX_COLOURED)
    assert main(["diagnose", "--evidence", str(folder), "--format", fmt, "-v"]) == 0
    out = capsys.readouterr().out
    assert "[rank8]: Bootstrap : no socket interface found" in out or "rank 8" in out
    assert "\x1b" not in out


def test_lines_are_quoted_and_attributed_as_the_terminal_showed_them(tree) -> None:  # type: ignore[no-untyped-def]
    text = (
        "\x1b[36m[rank8]\x1b[0m: torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error\n"
    )
    facts = read_evidence(tree({"console.log": text})).facts
    assert facts.files[0].rank == 8  # from the prefix, once the colour is off it
    (line,) = [s for s in facts.suspicious if "DistBackendError" in s.text]
    assert line.rank == 8 and line.text.startswith("[rank8]: torch.distributed.DistBackendError")


def test_a_sequence_cut_by_a_read_is_still_removed() -> None:
    text = b"\x1b[36m[rank8]\x1b[0m: x \x1b]8;;https://pytorch.org\x1b\\docs\x1b]8;;\x07\n" * 40
    want = b"[rank8]: x docs\n" * 40
    for size in (1, 2, 3, 5, 7, 64):
        stream, got = AnsiFree(io.BytesIO(text)), b""
        while chunk := stream.read(size):
            assert len(chunk) <= size
            got += chunk
        assert got == want, size
    assert strip_ansi(want) is want  # a chunk without ESC is passed on as it is


def test_a_sequence_the_file_ends_in_goes_as_far_as_it_was_written() -> None:
    # held back while more may come, then stripped like any other at the end of the file
    assert AnsiFree(io.BytesIO(b"done \x1b[3")).read() == b"done 3"
    stream = AnsiFree(io.BytesIO(b"done \x1b[3"))
    assert stream.read(4) + stream.read(4) + stream.read(4) + stream.read(4) == b"done 3"


def test_a_coloured_prefix_says_where_a_torchrun_log_dir_node_starts(tree) -> None:  # type: ignore[no-untyped-def]
    # 2 nodes x 8 processes, only local ranks 0 and 3 of node 1 copied: node 1 starts at 8
    # because its stderr's first line says [rank8]: (read from the file's head, colour and all)
    run = "node{n}/logs/run_1/attempt_0/{local}/{stream}.log"
    facts = read_evidence(tree({
        run.format(n=0, local=0, stream="stdout"): "step 3 loss 1.0\n",
        run.format(n=1, local=0, stream="stdout"): "step 3 loss 1.1\n",
        run.format(n=1, local=0, stream="stderr"): f"{PREFIX_COLOURED} Traceback (most recent call last):\n",
        run.format(n=1, local=3, stream="stdout"): "step 3 loss 1.2\n",
    })).facts  # fmt: skip
    ranks = {f.path[:5] + "/" + f.path.split("attempt_0/")[1]: f.rank
             for f in facts.files}  # fmt: skip
    assert ranks == {"node0/0/stdout.log": 0, "node1/0/stdout.log": 8, "node1/0/stderr.log": 8,
                     "node1/3/stdout.log": 11}  # fmt: skip

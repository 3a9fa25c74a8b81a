"""Two captures that disagree are an A/B (issue 24, item 5): each value is said with its file
and kept in the facts (`Facts.disagreements`), not only as a "conflict" sentence."""

from __future__ import annotations

from kb.evidence.facts import Disagreement, Sighting
from kb.evidence.reader import read_evidence


def _nccl(version: str, host: str) -> str:
    return (
        f"{host}:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        f"{host}:100:100 [0] NCCL INFO NCCL version {version}+cuda12.2\n"
    )


def test_two_nccl_versions_are_an_ab_with_their_files(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree({"node0.log": _nccl("2.18.1", "node0"), "node1.log": _nccl("2.19.3", "node1")})
    facts = read_evidence(root).facts
    assert facts.disagreements == [
        Disagreement(
            what="nccl version",
            sightings=[
                Sighting(value="2.18.1", file="node0.log", line=2),
                Sighting(value="2.19.3", file="node1.log", line=2),
            ],
        )
    ]
    assert "nccl version: node0.log:2 says 2.18.1, node1.log:2 says 2.19.3" in facts.conflicts
    assert facts.disagreements[0].sentence() == (
        "nccl version: node0.log:2 says 2.18.1, node1.log:2 says 2.19.3"
    )


def test_a_third_capture_joins_the_side_it_agrees_with(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree(
        {
            "node0.log": _nccl("2.18.1", "node0"),
            "node1.log": _nccl("2.19.3", "node1"),
            "node2.log": _nccl("2.18.1", "node2"),
        }
    )
    (ab,) = read_evidence(root).facts.disagreements
    assert [(s.file, s.value) for s in ab.sightings] == [
        ("node0.log", "2.18.1"),
        ("node1.log", "2.19.3"),
        ("node2.log", "2.18.1"),
    ]


def test_one_version_everywhere_is_no_ab(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree({"node0.log": _nccl("2.19.3", "node0"), "node1.log": _nccl("2.19.3", "node1")})
    facts = read_evidence(root).facts
    assert facts.disagreements == [] and facts.conflicts == []
    assert facts.nccl_version == "2.19.3"


def test_two_env_captures_are_an_ab(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree(
        {
            "node0/env.txt": "NCCL_P2P_DISABLE=1\nNCCL_DEBUG=INFO\nPATH=/usr/bin\n",
            "node1/env.txt": "NCCL_P2P_DISABLE=0\nNCCL_DEBUG=INFO\nPATH=/usr/bin\n",
        }
    )
    facts = read_evidence(root).facts
    assert [d.sentence() for d in facts.disagreements] == [
        "env NCCL_P2P_DISABLE: node0/env.txt:1 says 1, node1/env.txt:1 says 0"
    ]


def test_two_package_listings_are_an_ab(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree(
        {"a/pip.txt": "torch==2.1.0\nnumpy==1.26.0\n", "b/pip.txt": "torch==2.3.0\nnumpy==1.26.0\n"}
    )
    facts = read_evidence(root).facts
    assert [d.sentence() for d in facts.disagreements] == [
        "package torch: a/pip.txt:1 says 2.1.0, b/pip.txt:1 says 2.3.0"
    ]

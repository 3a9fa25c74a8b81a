"""`kb triage` on recorded `issues` events (tests/triage/data/, built by make_event.py from
stored real incidents; never delivered by GitHub). No test reaches the network (conftest)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from make_event import event_for

from kb.cli.main import main
from kb.evidence.github_issue import TRIAGE_MARKER
from kb.fixtures import default_roots, knowledge_base_for
from kb.triage import github

DATA = Path(__file__).parent / "data"
# eval-save-collective-deadlock, likely: the script's barrier in a main-only branch is its own
# fact; the reporter's words beside it do not corroborate (the ladder), so not confirmed
LIKELY = DATA / "event-opened-uno-71.json"
WEAK = DATA / "event-opened-lightning-19425.json"  # nccl-p2p-consumer-gpu-hang, possible only
ROOT = Path(__file__).resolve().parents[2]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["triage", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_recorded_payloads_are_what_make_event_builds() -> None:
    for path, folder in (
        (
            LIKELY,
            "eval-save-collective-deadlock/fixtures/positive/gh-uno-71-wait-for-everyone-in-main-branch",
        ),
        (
            WEAK,
            "nccl-p2p-consumer-gpu-hang/fixtures/positive/gh-lightning-19425-tidalpaladin-driver545-p2p",
        ),
    ):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        assert recorded == event_for(ROOT / "cases" / folder)
        assert "not a GitHub delivery" in recorded["_recorded"]


def test_dry_run_prints_one_comment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["triage", "--dry-run", "--event", str(LIKELY)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kb triage (dry run): comment: eval-save-collective-deadlock")
    comment = out.split("--- comment ---\n", 1)[1]
    assert comment.count(TRIAGE_MARKER) == 1
    assert "`eval-save-collective-deadlock`" in comment and "(likely, not yet proven)" in comment
    body = json.loads(LIKELY.read_text(encoding="utf-8"))["issue"]["body"].splitlines()
    cited = [int(n) for n in re.findall(r"issue body, line (\d+)", comment)]
    assert cited and all(n <= len(body) for n in cited)
    # the line cited inside the pasted script is that line of the body, quoted
    line = int(re.search(r"issue body, line (\d+), in `train.py`", comment).group(1))  # type: ignore[union-attr]
    assert "wait_for_everyone" in body[line - 1] and "wait_for_everyone" in comment
    assert "**First fix:" in comment and "/cases/eval-save-collective-deadlock/" in comment
    assert "kb collect" in comment


def test_below_likely_only_a_label_and_one_ask(capsys: pytest.CaptureFixture[str]) -> None:
    code, result = _run(capsys, "--event", str(WEAK))
    assert code == 0
    assert result["action"] == "label" and result["comment"] == ""
    assert result["labels"] == ["needs-evidence"] and result["level"] == "possible"
    assert "nvidia-smi" in result["ask"]


def test_min_level_confirmed_turns_a_likely_comment_into_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = (
        "cases/docker-shm-too-small-nccl/fixtures/positive/gh-spartan-369-docker-64m-shm-bus-error"
    )
    event = tmp_path / "e.json"
    event.write_text(json.dumps(event_for(ROOT / folder)), encoding="utf-8")
    _, likely = _run(capsys, "--event", str(event))
    assert likely["action"] == "comment" and likely["level"] == "likely"
    _, strict = _run(capsys, "--event", str(event), "--min-level", "confirmed")
    assert strict["action"] == "label" and not strict["comment"]
    _, skipped = _run(capsys, "--event", str(event), "--skip-case", "docker-shm-too-small-nccl")
    assert skipped["case"] != "docker-shm-too-small-nccl"


def test_a_marked_comment_in_the_payload_means_no_second_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = json.loads(LIKELY.read_text(encoding="utf-8"))
    event["action"] = "edited"
    event["issue"]["comments"] = [{"body": f"{TRIAGE_MARKER}\nearlier", "user": {"login": "bot"}}]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    _, result = _run(capsys, "--event", str(path))
    assert result["action"] == "none" and "already answered" in result["reason"]


class FakeIssue:
    """GitHub's issue comments and labels, in memory: what `GitHub._call` would reach."""

    def __init__(self) -> None:
        self.comments: list[dict[str, Any]] = []
        self.labels: list[str] = []
        self.calls: list[str] = []

    def call(self, method: str, path: str, payload: Any = None) -> Any:
        self.calls.append(f"{method} {path.split('?')[0]}")
        if method == "GET":
            return self.comments
        if path.endswith("/comments"):
            self.comments.append({"body": payload["body"]})
        else:
            self.labels += payload["labels"]
        return {}


def test_posting_twice_comments_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeIssue()
    monkeypatch.setattr(github.GitHub, "_call", fake.call)
    monkeypatch.setenv("GITHUB_TOKEN", "test-token-not-a-secret")
    args = ("--event", str(LIKELY), "--post", "--repo", "example/project", "--label", "triaged")
    _, first = _run(capsys, *args)
    _, second = _run(capsys, *args)
    assert first["posted"] is True and second["action"] == "none"
    assert len(fake.comments) == 1 and TRIAGE_MARKER in fake.comments[0]["body"]
    assert fake.labels == ["triaged"]
    assert fake.calls.count("POST /issues/1/comments") == 1


def test_post_without_token_fails_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["triage", "--event", str(LIKELY), "--post"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "kb triage: posting needs a token (GITHUB_TOKEN)"


def test_secrets_in_the_body_never_reach_the_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = json.loads(LIKELY.read_text(encoding="utf-8"))
    token = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345"  # a made-up token of the hf_ shape
    lines = event["issue"]["body"].splitlines()
    at = next(i for i, ln in enumerate(lines) if "this step get stucked" in ln)  # cited
    lines[at] += f"  # HF_TOKEN={token}"
    event["issue"]["body"] = "\n".join(lines)
    path = tmp_path / "e.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    _, result = _run(capsys, "--event", str(path))
    assert result["action"] == "comment" and "wait_for_everyone" in result["comment"]
    assert token not in result["comment"] and "[REDACTED]" in result["comment"]


def test_chinese_issue_gets_a_chinese_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = json.loads(LIKELY.read_text(encoding="utf-8"))
    event["issue"]["body"] = (
        "多卡训练在保存检查点时卡住，所有进程都没有报错，等了很久也没有动静。\n\n"
        + event["issue"]["body"].split("\n", 1)[1]
    )
    path = tmp_path / "zh.json"
    path.write_text(json.dumps(event, ensure_ascii=False), encoding="utf-8")
    _, result = _run(capsys, "--event", str(path))
    assert "判断本问题为" in result["comment"]
    case = knowledge_base_for(default_roots()).get("eval-save-collective-deadlock")
    assert case is not None and case.case.title.zh  # the case's own Chinese title is used
    assert f"> {case.case.title.zh}" in result["comment"]
    _, english = _run(capsys, "--event", str(path), "--language", "en")
    assert "reads this issue as" in english["comment"]


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ("{not json", "not a readable JSON event"),
        ('{"action": "opened"}', "no `issue` in the payload"),
        ('{"action": "opened", "issue": {"pull_request": {}, "body": ""}}', "pull request"),
    ],
)
def test_bad_events_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], payload: str, said: str
) -> None:
    path = tmp_path / "e.json"
    path.write_text(payload, encoding="utf-8")
    assert main(["triage", "--event", str(path)]) == 2
    assert said in capsys.readouterr().err


def test_other_actions_and_no_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = json.loads(LIKELY.read_text(encoding="utf-8"))
    event["action"] = "closed"
    path = tmp_path / "closed.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    assert _run(capsys, "--event", str(path))[1]["action"] == "none"
    assert main(["triage"]) == 2
    assert "GITHUB_EVENT_PATH" in capsys.readouterr().err

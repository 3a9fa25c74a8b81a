"""scripts/catalogue/extract_ascend.py on tiny fake torch_npu, hcomm and runtime trees."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_ascend.py"


def _load():
    spec = importlib.util.spec_from_file_location("extract_ascend", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["extract_ascend"] = module
    spec.loader.exec_module(module)
    return module


extract_ascend = _load()


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _found(messages) -> set[tuple[str, str]]:
    return {(m.kind, m.template) for m in messages}


TORCH_NPU = {
    "torch_npu/csrc/core/npu/NPUCachingAllocator.cpp": """
#define TORCH_NPU_WARN(...) warn_(::c10::str(__VA_ARGS__))
#define MY_CHECK(x) TORCH_CHECK(x, "in a macro body", PTA_ERROR(ErrCode::PARAM))
void f() {
    AT_ERROR("NPU out of memory. Tried to allocate ", format_size(n), " (NPU ", device, "; ",
        format_size(total), " total capacity)");
    TORCH_CHECK(false, "Tensors must be NPU and dense", DIST_ERROR(ErrCode::TYPE));
    ASCEND_LOGE("Process group work %s, seq_num %u dispatch timeout. %s", op, seq, info);
    auto msg = c10::str("[Rank ", rank_, "] Watchdog caught collective operation timeout: ",
        *this, " ran for ", ms, " milliseconds before timing out.");
}
""",
    "torch_npu/csrc/core/npu/NPUErrorCodes.h": """
    std::unordered_map<int, std::string> error_code_map = {
        {507014, "The aicore execution times out. \\n\\
        Rectify the fault based on the error information in the ascend log."},
    };
""",
    "torch_npu/utils/check.py": """
import warnings
def check(v):
    if v is None:
        raise RuntimeError("Please run 'source set_env.sh'." + pta_error(ErrCode.NOT_FOUND))
    warnings.warn(f"CANN version {v} is too old {{sic}}")
    print(f"Warning : CANN package version {v} is not matched.")
    print("progress 10%")
""",
}


def test_torch_npu_tree(tmp_path):
    found = _found(extract_ascend.extract(_write(tmp_path, TORCH_NPU)))
    assert found == {
        ("AT_ERROR", "NPU out of memory. Tried to allocate {_} (NPU {_}; {_} total capacity)"),
        ("TORCH_CHECK", "Tensors must be NPU and dense"),
        ("TORCH_CHECK", "in a macro body"),
        ("ASCEND_LOGE", "Process group work {_}, seq_num {_:int} dispatch timeout. {_}"),
        (
            "c10::str",
            "[Rank {_}] Watchdog caught collective operation timeout: {_} ran for {_} "
            "milliseconds before timing out.",
        ),
        ("aclError 507014", "[Error]: The aicore execution times out."),
        ("raise", "Please run 'source set_env.sh'."),
        ("warn", "CANN version {_} is too old {{sic}}"),
        ("print", "Warning : CANN package version {_} is not matched."),
    }


HCOMM = {
    "src/common/error_code/error_code.cc": """
namespace {
const std::string hcomm_g_msg = R"(
{
    "error_info_list": [
    {
      "ErrCode": "EI0006",
      "ErrMessage": "Getting socket times out. Reason: %s",
      "Arglist": "reason"
    }
  ]
}
)";
}
int unrelated() { return 0; }
""",
    "src/algorithm/hccl_socket_manager.cc": """
    HCCL_ERROR("[Wait][LinkEstablish]wait socket establish timeout, role[%u] rank[%u] "
        "timeout[%lld s]", role, rank, timeout);
    HCCL_RUN_INFO("[HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [%d]s", t);
    HCCL_INFO("debug only %d", x);
""",
}


def test_hcomm_tree(tmp_path):
    messages = extract_ascend.extract(_write(tmp_path, HCOMM))
    assert _found(messages) == {
        ("EI0006", "Getting socket times out. Reason: {_}"),
        (
            "HCCL_ERROR",
            "[Wait][LinkEstablish]wait socket establish timeout, role[{_:int}] rank[{_:int}] "
            "timeout[{_:int} s]",
        ),
        ("HCCL_RUN_INFO", "[HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [{_:int}]s"),
    }
    code = next(m for m in messages if m.kind == "EI0006")
    assert (code.path, code.line) == ("src/common/error_code/error_code.cc", 7)


RUNTIME = {
    "src/dfx/error_manager/error_code.json": """{"error_info_list": [
 {"ErrCode": "EL0004", "ErrMessage": "Failed to allocate memory requested by %s module."}
]}""",
    "src/runtime/device_error_proc.cc": """
    RT_LOG_CALL_MSG(ERR_MODULE_HCCL, "The error from device(chipId:%u, dieId:%u), serial number is %"
        PRIu64 ", hccl fftsplus task timeout occurred, stuck notify num:%u.", a, b, c, d);
    ACL_LOG_CALL_ERROR("open device %d failed, runtime result = %d.", id, ret);
""",
}


def test_runtime_tree(tmp_path):
    found = _found(extract_ascend.extract(_write(tmp_path, RUNTIME)))
    assert found == {
        ("EL0004", "Failed to allocate memory requested by {_} module."),
        (
            "RT_LOG_CALL_MSG",
            "The error from device(chipId:{_:int}, dieId:{_:int}), serial number is {_:int}, "
            "hccl fftsplus task timeout occurred, stuck notify num:{_:int}.",
        ),
        ("ACL_LOG_CALL_ERROR", "open device {_:int} failed, runtime result = {_:int}."),
    }


def test_reads_a_git_revision_not_the_work_tree(tmp_path):
    repo = _write(tmp_path / "repo", HCOMM)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "v1"], ["tag", "v1"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, env=env)
    (repo / "src/algorithm/hccl_socket_manager.cc").write_text('HCCL_ERROR("changed %d", x);\n')
    at_tag = _found(extract_ascend.extract(repo, rev="v1"))
    in_tree = _found(extract_ascend.extract(repo))
    assert ("HCCL_RUN_INFO", "[HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [{_:int}]s") in at_tag
    assert ("HCCL_ERROR", "changed {_:int}") in in_tree
    assert ("HCCL_ERROR", "changed {_:int}") not in at_tag


def test_printf_conversions_and_braces():
    template = extract_ascend.printf_to_template("a %d b %s c %#llx d %.2f e %% {x}\n")
    assert template == "a {_:int} b {_} c {_:hex} d {_:num} e % {{x}}"


def test_cli_prints_path_line_kind_template(tmp_path, capsys):
    assert extract_ascend.main(["--repo", str(_write(tmp_path, RUNTIME)), "--kind", "EL0004"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "src/dfx/error_manager/error_code.json:2\tEL0004\t"
        "Failed to allocate memory requested by {_} module."
    ]


def test_a_tree_it_does_not_know_is_a_clear_error(tmp_path, capsys):
    _write(tmp_path, {"README.md": "nothing here\n"})
    assert extract_ascend.main(["--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("extract_ascend: not a torch_npu, hcomm or runtime checkout")


def test_a_missing_repo_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as exit_:
        extract_ascend.main(["--repo", str(tmp_path / "absent")])
    assert exit_.value.code == 2

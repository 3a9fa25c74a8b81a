"""Case folders the site tests write on the fly (never committed as `case.kb` files, so
the case test runner does not pick them up as real cases)."""

from __future__ import annotations

from pathlib import Path

SAMPLE_ID = "site-test-extra-npu-socket-timeout"
SAMPLE_ERROR = "Wait timeout for sockets recv"

SAMPLE = """
case site-test-extra-npu-socket-timeout {
  title "Rank 1 times out waiting for sockets during the first allreduce"
  title.zh "首个 allreduce 中 Rank 1 等待 socket 超时"
  summary "Two-NPU training stops at the first allreduce: rank 1 reports a socket timeout."
  summary.zh "双卡训练停在第一个 allreduce：Rank 1 报 socket 超时。"
  severity high
  tags [hang, site-test]
  components [hccl, site-test-component]
  platforms [ascend]
  hardware ["Site Test Board 9000"]
  affected ["accelerate>=1.0"]
  fixed ["accelerate==0.28.0"]
  references ["https://example.com/site-test"]
  cause "Accelerate 1.0 issues a collective in `prepare()` on the main process only."
  cause.zh "Accelerate 1.0 只在主进程的 `prepare()` 中下发一个通信算子。"
  provenance {
    source "https://example.com/site-test-article"
    date 2026-01-02
    authors ["site tests"]
  }
  symptom "Rank 1 alone reports a socket receive timeout at start" {
    zh "只有 Rank 1 在启动时报 socket 接收超时"
    shows [socket_timeout]
  }
  evidence socket_timeout: log {
    pattern /Wait timeout for sockets recv/
    files ["**/plog-*.log"]
    scope one
    collect ```bash
tar czf plog.tgz ~/ascend/log/debug/plog
```
  }
  evidence new_accelerate: package {
    requires "accelerate>=1.0"
  }
  match {
    require socket_timeout
    support new_accelerate
  }
  remedy "Pin Accelerate to 0.28.0" {
    title.zh "将 Accelerate 固定到 0.28.0"
    step "Install the last good version" {
      title.zh "安装最后一个正常的版本"
      why "0.28.0 runs the collective on every rank."
      option "pip" {
        label.zh "用 pip 安装"
        run ```bash
pip install "accelerate==0.28.0"
```
      }
      option "conda" {
        run ```bash
conda install -c conda-forge accelerate=0.28.0
```
      }
      verify "Both ranks pass the first allreduce."
      verify_run ```bash
python -c "import accelerate; print(accelerate.__version__)"
```
    }
  }
  fixture "positive/two-ranks" {
    expect match
    culprit_rank 1
  }
  fixture "negative/healthy" {
    expect no-match
  }
}
"""

SAMPLE_FIXTURES = {
    "positive/two-ranks/rank0/plog-0.log": "[INFO] HCCL(11,python): init ok\n",
    "positive/two-ranks/rank1/plog-1.log": (
        "[INFO] HCCL(12,python): init ok\n"
        "[INFO] HCCL(12,python): connecting to rank 0\n"
        "[ERROR] HCCL(12,python): [socket.cc:300] Wait timeout for sockets recv, 60s\n"
        "[ERROR] RuntimeError: allreduce failed\n"
    ),
    "positive/two-ranks/pip-freeze.txt": "accelerate==1.0.1\ntorch==2.1.0\n",
    "negative/healthy/plog-0.log": "[INFO] HCCL(11,python): init ok\n",
}

HOSTILE_ID = "site-test-hostile"

# Every string a person could put in a case, aimed at the site.
HOSTILE = r'''
case site-test-hostile {
  title "<script>alert(1)</script>"
  title.zh "<img src=x onerror=alert(2)>"
  summary "<img src=x onerror=alert(3)> and [click](javascript:alert(4)) {: onclick=alert(5) }"
  tags ["<b onmouseover=alert(6)>x</b>", "javascript:alert(7)"]
  components ["<svg onload=alert(8)>"]
  platforms ["\"><script>alert(9)</script>"]
  hardware ["<iframe src=javascript:alert(10)>"]
  references ["javascript:alert(11)", "https://example.com/\"><script>alert(12)</script>"]
  cause """
    </code></pre><script>alert(13)</script> ``` fence ``` and `x</code><script>alert(14)</script>`
    <a href="javascript:alert(15)">a</a> ![i](javascript:alert(16)) [r]: javascript:alert(17)
  """
  provenance {
    source "javascript:alert(18)"
    authors ["<script>alert(19)</script>"]
  }
  symptom "[link](javascript:alert(20)) <b onclick=alert(21)>b</b>" {
    zh "<script>alert(22)</script>"
    shows [evil]
  }
  evidence evil: log {
    pattern /<script>alert\(23\)/
    describe "<b onclick=alert(24)>described</b>"
    files ["*.log", "<img src=x onerror=alert(25)>"]
    collect {
      note "</code><script>alert(26)</script>"
      run ```bash
echo `` `` </code></pre><script>alert(27)</script> ``
```
    }
  }
  match {
    require evil
  }
  remedy "<script>alert(28)</script>" {
    step "<img src=x onerror=alert(29)>" {
      why "[x](javascript:alert(30))"
      option "\"><script>alert(31)</script>" {
        run ```html
</code></pre><script>alert(32)</script>
```
      }
      verify "<script>alert(33)</script>"
    }
  }
  fixture "positive/evil" {
    expect match
  }
}
'''

HOSTILE_FIXTURES = {
    "positive/evil/app.log": "ok\n<script>alert(23)</script> </code></pre>\nok\n",
}


def write_case(root: Path, case_id: str, text: str, fixtures: dict[str, str]) -> Path:
    """Write one case folder under `root` and return the folder."""
    folder = root / case_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.kb").write_text(text.lstrip(), encoding="utf-8")
    for rel, content in fixtures.items():
        path = folder / "fixtures" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return folder

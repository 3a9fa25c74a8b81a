"""No byte of a planted secret reaches the bundle: secrets in the environment (by name and
inside URLs), in config files `kb collect` reads, and in a tool's own output. Every member of
the real archive (and its name) is scanned for every 8-byte window of every secret."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

from launch_fakes import KB, base_env, tool

from kb.redact.names import is_secret_name
from kb.redact.secrets import SecretRedactor

SECRETS = {
    "HF_TOKEN": "hf_PlantedHuggingFaceToken0123456789",
    "WANDB_API_KEY": "wandbplanted0123456789abcdef0123456789",
    "AWS_SECRET_ACCESS_KEY": "AwsPlantedSecretAccessKey/0123456789+ab",
    "AWS_ACCESS_KEY_ID": "AKIAPLANTED012345678",
    "TORCH_HUB_TOKEN": "torchhubplantedtoken987654321",
    "NCCL_PLUGIN_SECRET": "ncclpluginplantedsecret5555",
    "MY_DB_PASSWORD": "dbpasswordPL4NTED4242",
    "OPENAI_KEY": "sk-plantedopenaikey0123456789abcdefgh",
}
URL_PASSWORD = "urlplantedpassw0rd"
QUERY_TOKEN = "queryplantedtoken31337"
BEARER = "bearerplantedtokenABCDEF0123456789"
FILE_KEY = "fileplantedapikey7777777"
YAML_TOKEN = "hf_YamlPlantedToken0123456789abcd"
PRIVATE_KEY_BODY = "MIIEplantedPRIVATEkeyBODYline0123456789"


def _every_window(secret: str, width: int = 8) -> set[bytes]:
    data = secret.encode()
    return {data[i : i + width] for i in range(max(len(data) - width + 1, 1))}


def _plant(tmp_path: Path) -> tuple[dict[str, str], list[str]]:
    bin_dir = tmp_path / "bin"
    home = tmp_path / "home"
    env = base_env(bin_dir, home)
    env.update(SECRETS)
    env["NCCL_PROXY_URL"] = f"https://alice:{URL_PASSWORD}@proxy.example.com:3128/"
    env["TORCH_REMOTE_CACHE"] = f"https://cache.example.com/blob?sig=1&token={QUERY_TOKEN}"
    (home / ".nccl.conf").write_text(
        f"NCCL_IB_HCA=mlx5_0\nNCCL_SOCKET_IFNAME=eth0\nMY_SERVICE_API_KEY={FILE_KEY}\n"
    )
    cfg = home / ".cache/huggingface/accelerate"
    cfg.mkdir(parents=True)
    (cfg / "default_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\n"
        f"num_processes: 2\nhub_token: {YAML_TOKEN}\n"
    )
    # a tool that prints secrets in its own words (a header, a key block, the env token)
    tool(
        bin_dir,
        "accelerate",
        f"""cat <<'EOF2'
Copy-and-paste the text below in your GitHub issue

- `Accelerate` version: 1.0.1
- Platform: Linux-5.15.0-x86_64-with-glibc2.35
- PyTorch version (GPU?): 2.4.0 (False)
- `Accelerate` default config:
	- compute_environment: LOCAL_MACHINE
	- hub_token: {YAML_TOKEN}
Authorization: Bearer {BEARER}
-----BEGIN RSA PRIVATE KEY-----
{PRIVATE_KEY_BODY}
-----END RSA PRIVATE KEY-----
EOF2
echo "logged in with $HF_TOKEN and $WANDB_API_KEY"
""",
    )
    planted = [*SECRETS.values(), URL_PASSWORD, QUERY_TOKEN, BEARER, FILE_KEY, YAML_TOKEN,
               PRIVATE_KEY_BODY]  # fmt: skip
    return env, planted


def test_no_byte_of_any_secret_reaches_the_bundle(tmp_path: Path) -> None:
    env, planted = _plant(tmp_path)
    out = tmp_path / "bundle.tar.gz"
    proc = subprocess.run(
        [*KB, "collect", "-o", str(out), "--python", sys.executable],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    windows = {w: s for s in planted for w in _every_window(s)}
    with tarfile.open(out) as tar:
        members = tar.getmembers()
        assert len(members) >= 5
        for member in members:
            data = member.name.encode()
            handle = tar.extractfile(member)
            if handle is not None:
                data += handle.read()
            leaked = sorted({s[:4] + "…" for w, s in windows.items() if w in data})
            assert not leaked, f"{member.name} holds part of planted secret(s) {leaked}"
        names = {m.name.split("/", 1)[1] for m in members}
    # the captures that held the secrets were written (redacted), not dropped
    assert {"env.txt", "nccl-conf.txt", "accelerate-env.txt"} <= names
    assert "accelerate-config/default_config.yaml" in names
    # the printed output has no secret either, and names what was redacted
    for secret in planted:
        assert secret not in proc.stdout and secret not in proc.stderr
    assert "env.txt: NCCL_PLUGIN_SECRET (secret variable)" in proc.stdout
    assert "TORCH_HUB_TOKEN (secret variable)" in proc.stdout
    assert "value of a secret variable" in proc.stdout  # the tool echoed HF_TOKEN
    assert "MY_SERVICE_API_KEY (secret variable)" in proc.stdout
    assert "credentials in a URL" in proc.stdout


def test_the_redacted_captures_still_say_what_is_set(tmp_path: Path) -> None:
    env, _ = _plant(tmp_path)
    out = tmp_path / "folder-bundle"
    proc = subprocess.run(
        [*KB, "collect", "-o", str(out), "--python", sys.executable],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    env_txt = (out / "env.txt").read_text()
    assert "HF_TOKEN" not in env_txt  # not a job variable: left out entirely
    assert "TORCH_HUB_TOKEN=[REDACTED]" in env_txt
    assert "NCCL_PROXY_URL=https://alice:[REDACTED]@proxy.example.com:3128/" in env_txt
    assert "NCCL_IB_HCA=mlx5_0" in (out / "nccl-conf.txt").read_text()


def test_secret_names() -> None:
    assert all(is_secret_name(n) for n in SECRETS)
    assert not any(is_secret_name(n) for n in ("NCCL_DEBUG", "PATH", "TORCH_NCCL_BLOCKING_WAIT",
                                               "CUDA_VISIBLE_DEVICES", "KEYBOARD"))  # fmt: skip


def test_a_short_secret_is_masked_where_it_is_assigned() -> None:
    r = SecretRedactor({"API_TOKEN": "abc"})
    assert r.text("f", "API_TOKEN=abc\nabc is a word\n") == "API_TOKEN=[REDACTED]\nabc is a word\n"
    assert r.summary() == ["f: API_TOKEN (secret variable)"]


def test_a_models_forward_pass_in_prose_is_not_a_password() -> None:
    """`pass` after forward/backward with a colon is the model's pass (a stored fixture's notes
    lost "FSDP2's" to the mask); `pass:` alone, `db_pass:` and `pass=` still go."""
    from kb.redact.secrets import SecretRedactor

    r = SecretRedactor()
    prose = "The run dies on the first forward pass: FSDP2's lazy initialisation rejects it"
    assert r.line("notes.md", prose) == prose
    assert "hunter22x" not in r.line("x", "pass: hunter22x")
    assert "hunter22x" not in r.line("x", "db_pass: hunter22x")
    assert "abc123def" not in r.line("x", "the backward pass=abc123def")

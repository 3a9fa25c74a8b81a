"""Host names and IP addresses replaced *consistently*, for evidence that becomes a fixture in a
public repository: the same host becomes the same `host-N` and the same address the same
documentation-range address (RFC 5737 / RFC 3849) in every file, so cross-rank logs still line
up after redaction. Public domains, loopback and documentation addresses stay.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%\w+)?(?![\w:])")
# NCCL: `gpu-node-07:12345:12399 [0] NCCL INFO ...`
_NCCL_PREFIX = re.compile(r"^(?:\[[^\]]*\]:?\s*)?([A-Za-z][\w.-]*):\d+:\d+ \[\d+\]", re.M)
# torchrun's failure table: `  host      : gpu-node-07.cluster.local`
_TABLE_HOST = re.compile(r"^\s*(?:host|hostname|node)\s*:\s*([A-Za-z][\w.-]*)\s*$", re.M | re.I)
_ASSIGNED_HOST = re.compile(
    r"(?i)(?:MASTER_ADDR|master[_-]addr|rdzv[_-]endpoint|HOSTNAME|SLURM_NODELIST|"
    r"main_process_ip)[\"']?\s*[=: ]\s*[\"']?([A-Za-z][\w.-]*)"
)
_BRACKET_HOST = re.compile(r"\[([A-Za-z][\w-]*(?:\.[\w-]+)*)\]:\d+")
_TLDS = (
    "local",
    "internal",
    "lan",
    "corp",
    "cluster",
    "intra",
    "private",
    "home",
    "com",
    "net",
    "org",
    "io",
    "ai",
    "cn",
    "edu",
    "cloud",
    "dev",
)
_FQDN = re.compile(
    r"(?<![\w./@-])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){2,}"
    r"(?:" + "|".join(_TLDS) + r"))(?![\w.-]*\w)"
)
PUBLIC_DOMAINS = (
    "github.com",
    "githubusercontent.com",
    "huggingface.co",
    "pytorch.org",
    "nvidia.com",
    "python.org",
    "pypi.org",
    "hiascend.com",
    "microsoft.com",
    "google.com",
    "readthedocs.io",
    "csdn.net",
    "anaconda.org",
    "conda.io",
)
NOT_HOSTS = {"localhost", "unknown", "none", "null", "true", "false", "rank", "node", "host"}


def _documentation_ipv4(n: int) -> str:
    nets = ("192.0.2", "198.51.100", "203.0.113")
    return f"{nets[(n - 1) // 254 % 3]}.{(n - 1) % 254 + 1}"


@dataclass
class HostRedactor:
    """Remembers every host and address it replaced, so all files share one mapping."""

    hosts: dict[str, str] = field(default_factory=dict)
    ipv4: dict[str, str] = field(default_factory=dict)
    ipv6: dict[str, str] = field(default_factory=dict)

    def learn_hosts(self, text: str) -> None:
        """First pass over every file: collect host names from the places logs print them."""
        for rx in (_NCCL_PREFIX, _TABLE_HOST, _ASSIGNED_HOST, _BRACKET_HOST, _FQDN):
            for match in rx.finditer(text):
                self._add_host(match.group(1))

    def _add_host(self, name: str) -> None:
        name = name.rstrip(".")
        if (
            name.lower() in NOT_HOSTS
            or self._is_ip(name)
            or name.startswith("host-")
            or any(name == d or name.endswith("." + d) for d in PUBLIC_DOMAINS)
        ):
            return
        short = name.split(".", 1)[0]
        placeholder = self.hosts.get(name) or self.hosts.get(short)
        if placeholder is None:
            placeholder = f"host-{len(set(self.hosts.values())) + 1}"
        self.hosts.setdefault(name, placeholder)
        if short.lower() not in NOT_HOSTS and len(short) >= 3:
            self.hosts.setdefault(short, placeholder)

    @staticmethod
    def _is_ip(text: str) -> bool:
        try:
            ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            return False
        return True

    def redact(self, text: str) -> str:
        """Second pass: hosts (longest name first), then addresses."""
        for name in sorted(self.hosts, key=len, reverse=True):
            rx = re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-]|\.\w)")
            text = rx.sub(self.hosts[name], text)
        text = _IPV4.sub(self._v4, text)
        return _IPV6.sub(self._v6, text)

    def _v4(self, match: re.Match[str]) -> str:
        raw = match.group(0)
        try:
            addr = ipaddress.IPv4Address(raw)
        except ValueError:
            return raw  # 999.1.2.3 is a version or an id, not an address
        if (
            addr.is_loopback
            or addr.is_unspecified
            or raw.startswith(("192.0.2.", "198.51.100.", "203.0.113."))
        ):
            return raw
        if raw not in self.ipv4:
            self.ipv4[raw] = _documentation_ipv4(len(self.ipv4) + 1)
        return self.ipv4[raw]

    def _v6(self, match: re.Match[str]) -> str:
        raw = match.group(0)
        base, _, zone = raw.partition("%")
        try:
            addr = ipaddress.IPv6Address(base)
        except ValueError:
            return raw  # 12:30:01 is a time
        if addr.is_loopback or addr.is_unspecified or base.lower().startswith("2001:db8:"):
            return raw
        if base not in self.ipv6:
            self.ipv6[base] = f"2001:db8::{len(self.ipv6) + 1:x}"
        return self.ipv6[base] + (f"%{zone}" if zone else "")

    def redact_path(self, relative: str) -> str:
        """File names carry host names too (NCCL_DEBUG_FILE=nccl.%h.%p.log)."""
        for name in sorted(self.hosts, key=len, reverse=True):
            rx = re.compile(r"(?<![A-Za-z0-9-])" + re.escape(name) + r"(?![A-Za-z0-9-])")
            relative = rx.sub(self.hosts[name], relative)
        return "/".join(_IPV6.sub(self._v6, _IPV4.sub(self._v4, p)) for p in relative.split("/"))

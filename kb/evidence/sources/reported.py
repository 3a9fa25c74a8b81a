"""Facts a user states in prose: accelerators with their count, and versions.

Real reports carry the hardware and versions in a sentence ("4xRTX 4090, torch 2.1",
"8×A800, NCCL 2.18.3", "Atlas 800T A2 with CANN 8.0") far more often than as an nvidia-smi or
pip freeze capture. They feed the same facts as the captures, marked as reported: a device's
`source` is "notes", a package list's tool is "notes".

>>> [(n, d) for n, d in devices_in("Training on 4xRTX 4090 hangs; 2080tis work")]
[(4, 'NVIDIA GeForce RTX 4090'), (1, 'NVIDIA GeForce RTX 2080 Ti')]
>>> devices_in("hangs with multiple RTX 4090 GPUs")
[(2, 'NVIDIA GeForce RTX 4090')]
>>> [(n, d) for n, d in devices_in("two nodes of 8×A800 80GB")]
[(8, 'NVIDIA A800')]
>>> devices_in("Atlas 800T A2 (910B3), 8 NPUs")
[(8, 'Ascend 910B3')]
>>> devices_in("昇腾 Atlas 800T A2 两机16卡")
[(16, 'Ascend 910B')]
>>> versions_in("torch 2.1.0+cu121, accelerate==1.0.1, NCCL 2.18.3, CANN 8.0.RC2")
[('torch', '2.1.0'), ('accelerate', '1.0.1'), ('nccl', '2.18.3'), ('cann', '8.0.RC2')]
>>> versions_in("the installed accelerate is 1.0.1")
[('accelerate', '1.0.1')]
>>> versions_in("pytorch 1.7.x (torch1.6 is ok)")
[('torch', '1.7'), ('torch', '1.6')]
"""

from __future__ import annotations

import re

from kb.evidence.lazy_pattern import lazy

_COUNT_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "six": 6,
    "eight": 8,
    "sixteen": 16,
    "dual": 2,
    "quad": 4,
    "multiple": 2,
    "several": 2,
    "multi": 2,
    "两": 2,
    "二": 2,
    "四": 4,
    "八": 8,
    "单": 1,
}
_COUNT = r"(?:(?P<n>\d{1,3}|one|two|three|four|six|eight|sixteen|dual|quad|multiple|several|multi|两|二|四|八|单)\s*(?:[x×*]|张|卡|块)?\s*(?:(?:nvidia|geforce|tesla)\s+)*)?"
_NVIDIA = (
    r"(?P<rtx>(?:rtx\s*|gtx\s*)?(?:[1-5]0[5-9]0)(?:\s*ti|\s*super)?s?\b)"
    r"|(?P<ws>rtx\s*pro\s*\d{4}|rtx\s*a[2-6]000|\ba[2-6]000\b|rtx\s*\d{4}\s*ada|l40s?\b|\bl4\b|\ba10g?\b|\ba40\b|\bt4\b)"
    r"|(?P<dc>\b(?:a100|a800|h100|h800|h200|h20|v100|p100|b200|gb200|gh200)\b)"
    r"|(?P<titan>titan\s*(?:rtx|v|xp?))"
)
_ASCEND = r"(?P<npu>(?:ascend\s*)?910(?:b[1-4]?|a|c)?\b|atlas\s*(?:800|900|300)\w*(?:\s*a[23])?|昇腾\s*910\w*)"
_DEVICE = lazy(rf"{_COUNT}(?:{_NVIDIA}|{_ASCEND})s?", re.IGNORECASE)

_PACKAGES = {
    "torch": r"(?:py)?torch", "accelerate": r"accelerate", "deepspeed": r"deepspeed",
    "transformers": r"transformers", "torch-npu": r"torch[_-]npu", "vllm": r"vllm",
    "nccl": r"nccl", "cann": r"cann", "cuda": r"cuda", "driver": r"(?:nvidia\s+)?driver",
}  # fmt: skip
_VERSION = lazy(
    r"(?<![\w-])(?P<name>" + "|".join(f"(?:{v})" for v in _PACKAGES.values()) + r")"
    r"\s*(?:version\s*)?(?:(?:is|was|at)\s+)?(?:==|=|:|\s+v?|v)?\s*(?P<version>\d+\.\d+(?:\.\d+)?(?:\.?(?:rc|RC|post|a|b)\d*)?)",
    re.IGNORECASE,
)
MAX_FACTS = 32


def _canonical(m: re.Match[str]) -> tuple[str, str]:
    """(kind, model) as the vendor's tool prints the model name."""
    text = re.sub(r"\s+", " ", m.group(0)[len(m.group("n") or "") :]).strip()
    if m.group("rtx"):
        digits = re.search(r"[1-5]0[5-9]0", m.group("rtx"))
        suffix = " Ti" if re.search(r"ti(?:s)?\b", m.group("rtx"), re.I) else ""
        suffix = " SUPER" if re.search(r"super", m.group("rtx"), re.I) else suffix
        family = (
            "GTX"
            if re.match(r"(?i)gtx", m.group("rtx").strip())
            or (digits and digits.group(0).startswith("1"))
            else "RTX"
        )
        return "gpu", f"NVIDIA GeForce {family} {digits.group(0) if digits else text}{suffix}"
    if m.group("ws"):
        return "gpu", "NVIDIA " + re.sub(r"(?i)^rtx\s*", "RTX ", m.group("ws").upper())
    if m.group("dc"):
        return "gpu", f"NVIDIA {m.group('dc').upper()}"
    if m.group("titan"):
        return "gpu", f"NVIDIA TITAN {m.group('titan')[5:].strip().upper()}"
    npu = m.group("npu")
    chip = re.search(r"910\w*", npu)
    if chip:
        return "npu", f"Ascend {chip.group(0).upper()}"
    # Atlas servers by generation: A2 carries 910B, A3 910C, the first generation 910
    generation = re.search(r"a([23])\s*$", npu, re.IGNORECASE)
    return "npu", "Ascend " + {"2": "910B", "3": "910C"}.get(
        generation.group(1) if generation else "", "910"
    )


def devices_in(text: str) -> list[tuple[int, str]]:
    """(count, canonical model) for each accelerator a sentence names, in order, once each."""
    return [(n, model) for n, _kind, model in device_mentions(text)]


_GENERIC_COUNT = lazy(
    r"(?<![\d.])(\d{1,3})\s*(?:[x×*]\s*)?(?:npus?|gpus?|cards?|卡|张卡|块卡)\b", re.IGNORECASE
)


def device_mentions(text: str) -> list[tuple[int, str, str]]:
    """(count, kind, model); a bare "8 NPUs" gives the count of the one model named."""
    out: dict[str, tuple[int, str, str]] = {}
    for m in _DEVICE.finditer(text):
        kind, model = _canonical(m)
        raw = (m.group("n") or "").lower()
        count = int(raw) if raw.isdigit() else _COUNT_WORDS.get(raw, 1)
        if not 1 <= count <= 64:
            count = 1
        if (model not in out and len(out) < MAX_FACTS) or (model in out and count > out[model][0]):
            out[model] = (count, kind, model)
    for model in list(out):  # "Atlas 800T A2 (910B3)": the chip's name says more
        if any(other != model and other.startswith(model) for other in out):
            del out[model]
    generic = _GENERIC_COUNT.search(text)
    if generic and len(out) == 1:
        ((model, (count, kind, _)),) = out.items()
        if count == 1:
            out[model] = (min(int(generic.group(1)), 64) or 1, kind, model)
    return list(out.values())


def versions_in(text: str) -> list[tuple[str, str]]:
    """(name, version) for each version a sentence states, in order, without repeats."""
    out: list[tuple[str, str]] = []
    for m in _VERSION.finditer(text):
        raw = m.group("name").lower().replace("_", "-")
        name = next(k for k, v in _PACKAGES.items() if re.fullmatch(v, raw, re.IGNORECASE))
        version = m.group("version")
        if name == "cann" and "." in version:
            version = re.sub(r"\.(rc)", r".RC", version, flags=re.I)
        if (name, version) not in out and len(out) < MAX_FACTS:
            out.append((name, version))
    return out

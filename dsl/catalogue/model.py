"""The catalogue's declarations as typed values: messages, the user's words, regressions."""

from __future__ import annotations

from pydantic import Field

from dsl.span import Node
from dsl.values import Regex, Text

ROLES = ("decisive", "shared", "context")
SEVERITIES = ("error", "warn", "info")
# Who prints the messages; a new emitter is one word here and a folder under catalogue/messages.
EMITTERS = (
    "nccl",
    "pytorch",
    "torch-npu",
    "hccl",
    "cann",
    "deepspeed",
    "accelerate",
    "lightning",
    "transformers",
    "megatron",
    "horovod",
    "nvidia-driver",
    "cuda",
    "rdma-core",
    "mellanox-ofed",
    "nvshmem",
    "aws-ofi-nccl",
    "libfabric",
    "linux",
    "glibc",
    "libstdcxx",
    "openmpi",
    "mpich",
    "ucx",
    "hip",
    "slurm",
    "vllm",
    "sglang",
    "tensorrt-llm",
    "ray",
    "python",
    "rust",
    "kubernetes",
    "docker",
    "nvidia-container",
    "openssh",
    "pdsh",
    "yolov5",
)
UNKNOWN_CAUSE = "unknown"


class Wording(Node):
    """One way the message was printed, in the releases `since` (inclusive) to `until`."""

    template: str | None = None  # the emitter's format string with named fields
    pattern: Regex | None = None  # an explicit regex when no single template fits
    regex: str = ""  # what the scanner runs: named groups, one per field
    required: str = ""  # the regex of what every match holds (a template's start): prefilters
    fields: list[str] = Field(default_factory=list)
    since: str | None = None
    until: str | None = None
    source: str = ""  # "path:line@tag" in the emitter's repository, or a documentation URL


class Sample(Node):
    """A real line as printed, and where it was seen (a public report or a fixture line)."""

    text: str
    origin: str = ""


class Message(Node):
    """A message an emitter prints: what it means, how it was worded, which causes print it."""

    id: str
    emitter: str
    component: str = ""
    severity: str = "error"
    means: Text
    role: str
    causes: list[str] = Field(default_factory=list)
    fields: dict[str, str] = Field(default_factory=dict)  # field name -> what it holds
    wordings: list[Wording] = Field(default_factory=list)
    samples: list[Sample] = Field(default_factory=list)
    see: list[str] = Field(default_factory=list)
    # messages the same emitter prints on its way to this one, in one failure: one fact
    after: list[str] = Field(default_factory=list)

    @property
    def decisive(self) -> bool:
        return self.role == "decisive"

    def field_names(self) -> list[str]:
        names: dict[str, None] = {}
        for w in self.wordings:
            names.update(dict.fromkeys(w.fields))
        return list(names)


class Words(Node):
    """One idea users express in their own words, in English and Chinese phrasings."""

    id: str
    means: Text
    en: list[Regex] = Field(default_factory=list)
    zh: list[Regex] = Field(default_factory=list)
    samples: list[str] = Field(default_factory=list)
    unlike: list[str] = Field(default_factory=list)  # prose it must not match

    def patterns(self) -> list[Regex]:
        return [*self.en, *self.zh]


class Regression(Node):
    """A release of a component known to break something, and the release that fixed it."""

    id: str
    component: str
    affected: str  # a requirement specifier, e.g. ">=2.19.0,<2.19.4"
    fixed_in: str | None = None
    means: Text
    signature: list[str] = Field(default_factory=list)  # message ids that show it
    source: str = ""


class Catalogue(Node):
    messages: dict[str, Message] = Field(default_factory=dict)
    words: dict[str, Words] = Field(default_factory=dict)
    regressions: dict[str, Regression] = Field(default_factory=dict)
    fingerprint: str = ""  # hash of every catalogue file read, for the compile cache

    def __len__(self) -> int:
        return len(self.messages) + len(self.words) + len(self.regressions)

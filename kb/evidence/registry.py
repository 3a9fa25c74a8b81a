"""Every evidence source, by name. Case queries name sources this way (`sources ["nccl"]`).

Classification is by content first: each source scores the file's head (`sniff`); the name
only breaks ties or nudges. The order below decides ties: specific formats before logs, the
generic text log last.

>>> classify("node-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\\n", "out.txt")
'nccl'
>>> classify("torch==2.1.0\\naccelerate==0.28.0\\n", "whatever")
'pip-freeze'
>>> classify("hello\\n", "x.log")
'text-log'
"""

from __future__ import annotations

from kb.evidence.sources.accelerate_config import AccelerateConfigSource
from kb.evidence.sources.accelerate_env import AccelerateEnvSource
from kb.evidence.sources.base import LineSource, Source, WholeFileSource
from kb.evidence.sources.collect_env import CollectEnvSource
from kb.evidence.sources.command import CommandSource
from kb.evidence.sources.environment import EnvDumpSource
from kb.evidence.sources.flight_recorder import FlightRecorderSource
from kb.evidence.sources.nccl import NcclSource
from kb.evidence.sources.notes import NotesSource
from kb.evidence.sources.npu_smi import NpuSmiSource
from kb.evidence.sources.nvidia_smi import NvidiaSmiSource
from kb.evidence.sources.nvidia_topo import NvidiaTopoSource
from kb.evidence.sources.packages import CondaListSource, PipFreezeSource, PipListSource
from kb.evidence.sources.plog import PlogSource
from kb.evidence.sources.python_source import PythonSource
from kb.evidence.sources.pytorch import PyTorchSource
from kb.evidence.sources.stack_dump import StackDumpSource
from kb.evidence.sources.text_log import TextLogSource
from kb.evidence.sources.torchrun import TorchrunSource

_ORDER: tuple[type[Source], ...] = (
    CollectEnvSource,
    AccelerateEnvSource,
    PipListSource,
    CondaListSource,
    PipFreezeSource,
    NvidiaSmiSource,
    NvidiaTopoSource,
    NpuSmiSource,
    AccelerateConfigSource,
    PythonSource,
    CommandSource,
    EnvDumpSource,
    StackDumpSource,
    PlogSource,
    NcclSource,
    PyTorchSource,
    TorchrunSource,
    NotesSource,
    TextLogSource,
    FlightRecorderSource,  # binary (pickled): read by the file reader, never sniffed as text
)

SOURCES: dict[str, type[Source]] = {cls.name: cls for cls in _ORDER}
LINE_SOURCES: tuple[type[LineSource], ...] = tuple(
    cls for cls in _ORDER if issubclass(cls, LineSource)
)
WHOLE_FILE_SOURCES: tuple[type[WholeFileSource], ...] = tuple(
    cls for cls in _ORDER if issubclass(cls, WholeFileSource)
)


def classify(head: str, name: str) -> str:
    """The source name that best explains a file, from its head text and base name."""
    best, best_score = TextLogSource.name, 0.0
    for cls in _ORDER:
        score = cls.sniff(head, name)
        if score > best_score:
            best, best_score = cls.name, score
    return best

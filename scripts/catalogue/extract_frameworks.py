"""List the messages distributed-training frameworks and launchers print, so the catalogue can follow new releases.

Reads a checkout of one emitter (the work tree, or a release tag with --rev, no checkout needed)
and prints every message template found in the source areas that `catalogue/messages/<emitter>/`
was extracted from, in the catalogue's template syntax:

  Python emitters (deepspeed, accelerate, lightning, transformers, vllm, ray): logger calls,
    warnings.warn, rank_zero_*, print, `raise …Error(…)` and `assert …, msg`, parsed with `ast`
    (f-string fields -> `{name}`, `%d` -> `{_:int}`, `%s` -> `{_}`, `.format` slots -> `{_}`);
  C emitters (slurm, mpich): printf-style calls (`error`, `info`, `verbose`, `HYDU_dump_noprefix`,
    `printf` …), `%d` -> `{_:int}`, `%s` -> `{_}`, `%x` -> `{_:hex}`;
  Open MPI (openmpi): the `[topic]` sections of its help-*.txt files, one template per line.

    python scripts/catalogue/extract_frameworks.py --emitter deepspeed --repo DeepSpeed.git --rev v0.16.4
    python scripts/catalogue/extract_frameworks.py --emitter slurm --repo slurm.git --rev slurm-24-11-0-1
    python scripts/catalogue/extract_frameworks.py --emitter vllm --repo ~/src/vllm --path vllm/distributed

Each output line is `path:line<TAB>site<TAB>template` (site: the logging call, `raise X`, the C
function, or the help topic). Diff two releases' output, or grep it for a catalogue wording, to
see which wordings moved. Standard library only.
Exit status: 0 listed, 2 bad arguments, unreadable checkout or no source file found.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_messages import Printer, printf_to_template
from c_messages import find_messages as find_c_messages
from py_messages import Found, PyTree, SourceError
from py_messages import find_messages as find_py_messages


@dataclass(frozen=True)
class Profile:
    language: str  # "python", "c" or "help"
    paths: tuple[str, ...]
    printers: tuple[Printer, ...] = ()


PROFILES: dict[str, Profile] = {
    "deepspeed": Profile(
        "python",
        (
            "deepspeed/launcher",
            "deepspeed/comm",
            "deepspeed/utils/distributed.py",
            "deepspeed/runtime/utils.py",
            "deepspeed/runtime/config.py",
            "deepspeed/runtime/engine.py",
            "deepspeed/runtime/zero",
            "deepspeed/elasticity",
        ),
    ),
    "accelerate": Profile(
        "python",
        (
            "src/accelerate/commands",
            "src/accelerate/state.py",
            "src/accelerate/accelerator.py",
            "src/accelerate/utils/launch.py",
            "src/accelerate/utils/operations.py",
        ),
    ),
    "lightning": Profile(
        "python",
        (
            "src/lightning/fabric/utilities/distributed.py",
            "src/lightning/fabric/plugins/environments",
            "src/lightning/fabric/strategies",
            "src/lightning/pytorch/strategies",
            "src/lightning/pytorch/trainer/connectors",
            "src/lightning/pytorch/trainer/setup.py",
            "src/lightning/pytorch/accelerators",
            "pytorch_lightning",  # releases before 1.7 (and the 0.x line)
        ),
    ),
    "transformers": Profile(
        "python", ("src/transformers/trainer.py", "src/transformers/training_args.py")
    ),
    "vllm": Profile(
        "python",
        (
            "vllm/distributed",
            "vllm/executor",
            "vllm/v1/executor",
            "vllm/worker/worker_base.py",
            "vllm/utils",
            "vllm/utils.py",
        ),
    ),
    "ray": Profile("python", ("python/ray/exceptions.py", "python/ray/train/torch")),
    "slurm": Profile(
        "c",
        (
            "src/slurmd/slurmstepd",
            "src/srun",
            "src/api/step_launch.c",
            "src/plugins/task/cgroup",
            "src/plugins/launch/slurm",
        ),
        (Printer("error", 0), Printer("info", 0), Printer("verbose", 0), Printer("fatal", 0)),
    ),
    "mpich": Profile(
        "c",
        ("src/pm/hydra/mpiexec", "src/mpi/init/init_impl.c", "src/mpi/errhan/errutil.c"),
        (
            Printer("HYDU_dump_noprefix", 1),
            Printer("HYDU_dump", 1),
            Printer("printf", 0),
            Printer("snprintf", 2),
            Printer("MPL_snprintf", 2),
        ),
    ),
    "openmpi": Profile(
        "help",
        (
            "orte/tools/orterun",
            "orte/mca/errmgr",
            "orte/mca/rmaps/base",
            "orte/mca/state/base",
            "ompi/mpi/help-mpi-api.txt",
            "opal/mca/btl/tcp",
            "opal/mca/btl/openib/connect",
            "src/docs/show-help-files",  # PRRTE (github:openpmix/prrte), mpirun of Open MPI 5.x
        ),
    ),
}

_TOPIC = re.compile(r"^\[([^\]]+)\]\s*$")


def help_messages(path: str, text: str) -> Iterator[Found]:
    """One Found per text line of each `[topic]` section of an Open MPI help file."""
    topic = ""
    for number, line in enumerate(text.splitlines(), start=1):
        found = _TOPIC.match(line)
        if found:
            topic = found.group(1)
            continue
        if not topic or line.startswith("#") or not line.strip():
            continue
        template = printf_to_template(line).strip()
        yield Found(path, number, f"[{topic}]", template)


def _slurm_step_id(template: str) -> str:
    """Slurm's own `%ps` conversion prints a step id (`StepId=12.0`); the printf reader sees a
    pointer followed by an `s`."""
    return template.replace("{_:hex}s", "{_}")


def messages(tree: PyTree, profile: Profile, paths: tuple[str, ...]) -> list[Found]:
    """Every message of the emitter's source areas `paths` in `tree`."""
    suffixes = {"python": (".py",), "c": (".c", ".h"), "help": (".txt",)}[profile.language]
    files = tree.files(paths, suffixes)
    if profile.language == "help":
        files = [path for path in files if path.rpartition("/")[2].startswith("help-")]
    if not files:
        raise SourceError(f"no source file found under {', '.join(paths)}")
    found: list[Found] = []
    for path in files:
        text = tree.read(path)
        if profile.language == "python":
            found.extend(find_py_messages(path, text))
        elif profile.language == "help":
            found.extend(help_messages(path, text))
        else:
            found.extend(
                Found(item.path, item.line, item.printer, _slurm_step_id(item.template))
                for item in find_c_messages(path, text, profile.printers, {})
                if item.template
            )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 listed, 2 bad arguments, unreadable checkout or no source file found.",
    )
    parser.add_argument("--emitter", required=True, choices=sorted(PROFILES), help="which emitter")
    parser.add_argument("--repo", required=True, type=Path, help="the emitter's checkout")
    parser.add_argument("--rev", help="a tag or commit to read instead of the work tree")
    parser.add_argument(
        "--path",
        action="append",
        dest="paths",
        help="a file or folder to read (repeatable; default: the emitter's source areas)",
    )
    args = parser.parse_args(argv)
    profile = PROFILES[args.emitter]
    try:
        found = messages(PyTree(args.repo, args.rev), profile, tuple(args.paths or profile.paths))
    except SourceError as exc:
        print(f"extract_frameworks: {exc}", file=sys.stderr)
        return 2
    for item in found:
        print(f"{item.path}:{item.line}\t{item.site}\t{item.template}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Naming conventions: kebab-case tags and fixture folders, components from a known list.

Fixture folder names become pytest ids and site anchors, so they stay URL- and shell-safe.

`KNOWN_COMPONENTS` is a plain set so a case pack can extend it
(`kb.lint.conventions.KNOWN_COMPONENTS.add("megatron")`) or a PR can add a name here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SLUG = re.compile(r"^[a-z0-9]+([.-][a-z0-9]+)*$")  # kebab-case; dots allowed for versions

KNOWN_COMPONENTS: set[str] = {
    "accelerate",
    "apex",
    "docker",
    "kubernetes",
    "ray",
    "efa",
    "infiniband",
    "roce",
    "bitsandbytes",
    "cann",
    "colossalai",
    "cuda",
    "deepspeed",
    "driver",
    "fsdp",
    "gloo",
    "hccl",
    "horovod",
    "jax",
    "lightning",
    "megatron",
    "mpi",
    "nccl",
    "peft",
    "python",
    "rccl",
    "rocm",
    "slurm",
    "torch",
    "torch-npu",
    "torchrun",
    "transformers",
    "trl",
    "ucx",
    "vllm",
    "xla",
}


class TagNotKebabCase(Rule):
    code = "lint/tag-not-kebab-case"
    severity = Severity.ERROR
    description = "A tag or platform is not kebab-case (lower-case letters, digits and `-`)."

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        for field_name, words in (("tags", case.tags), ("platforms", case.platforms)):
            for index, word in enumerate(words):
                if not KEBAB.match(word):
                    fixed = re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")
                    yield self.report(
                        case.item_span(field_name, index),
                        f"{field_name[:-1]} `{word}` is not kebab-case",
                        help=f"write `{fixed}`" if fixed else None,
                    )


class UnknownComponent(Rule):
    code = "lint/unknown-component"
    severity = Severity.WARNING
    description = "A component is not in the known list (typo, or a new name to add)."

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        for index, name in enumerate(case.components):
            if name.upper().startswith("TODO") or name in KNOWN_COMPONENTS:
                continue
            near = difflib.get_close_matches(name, sorted(KNOWN_COMPONENTS), n=1)
            yield self.report(
                case.item_span("components", index),
                f"component `{name}` is not a known component",
                help=(
                    f"did you mean `{near[0]}`?"
                    if near
                    else "add it to KNOWN_COMPONENTS in kb/lint/conventions.py"
                ),
            )


class FixtureNameNotKebabCase(Rule):
    code = "lint/fixture-name-not-kebab-case"
    severity = Severity.ERROR
    description = "A fixture folder name is not kebab-case (dots allowed for versions)."

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        from kb.fixtures import fixtures_of

        if not case.folder:
            return
        for spec in fixtures_of(case):
            name = spec.path.rpartition("/")[2]
            if not SLUG.match(name):
                yield self.report(
                    case.fixture_span(spec.path), f"fixture folder `{spec.path}` is not kebab-case"
                )

"""`package`: an installed distribution and its version, from any package list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dsl.fields import TEXT, Field
from dsl.kinds.base import Code, Lowering, Phrase, Query, QueryKind

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class PackageQuery(Query):
    kind: Literal["package"] = "package"
    package: str  # normalized distribution name
    specifier: str  # PEP 440 specifier set, "" = installed at any version


FIELDS = (Field("requires", TEXT, 'A requirement: "accelerate>=1.0" (PEP 440).'),)

# A requirement such as "accelerate>=1.0,<1.2" is short; a 5,000-digit version would make
# `packaging` raise a plain ValueError from deep inside.
MAX_REQUIREMENT = 200


def requirement_problem(text: str) -> str | None:
    """Why `text` is not a pip requirement the runtime can compare with, or None."""
    from packaging.requirements import InvalidRequirement, Requirement

    if len(text) > MAX_REQUIREMENT:
        return f"longer than {MAX_REQUIREMENT} characters"
    try:
        str(Requirement(text).specifier)
    except InvalidRequirement as err:
        return str(err).splitlines()[0]  # packaging adds its own caret lines
    except ValueError as err:
        return str(err)[:120]
    return None


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> PackageQuery | None:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    requirement = v["requires"]
    reason = requirement_problem(requirement)
    if reason is not None:
        from dsl import syntax as s  # only for a requirement that is wrong

        span = next(
            (
                i.value.span
                for i in node.items
                if isinstance(i, s.AttributeNode) and i.name == "requires"
            ),
            node.span,
        )
        lowering.error(
            span,
            f"invalid requirement {requirement[:80]!r}: {reason}",
            "bad-version",
            help='write it as in pip: "accelerate>=1.0,<1.2"',
        )
        return None
    req = Requirement(requirement)
    return PackageQuery(
        package=str(canonicalize_name(req.name)), specifier=str(req.specifier), **common
    )


def describe(q: PackageQuery) -> Phrase:
    if not q.specifier:
        return (Code(q.package), " installed, at any version")
    return (Code(q.package), " installed at a version matching ", Code(q.specifier))


KIND = QueryKind(
    name="package",
    model=PackageQuery,
    fields=FIELDS,
    required=("requires",),
    lower=lower,
    describe=describe,
    words="installed package",
    reads="pip freeze / pip list / conda list / collect_env / accelerate env",
)

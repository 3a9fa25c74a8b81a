"""Never silent: when no case explains a folder, the report still names the catalogued
messages it holds, what each means and who can print it."""

from __future__ import annotations

from pathlib import Path

from dsl.compiler import load_knowledge_base
from kb.match.diagnose import diagnose_bundle, read_bundle
from kb.report.text import render_text

LINE = "[trainer0|0]:ncclInternalError: Internal check failed.\n"


def _diagnose(folder: Path):  # type: ignore[no-untyped-def]
    kb = load_knowledge_base(with_env=False)
    bundle = read_bundle(kb, str(folder), workers=1)
    return kb, bundle, diagnose_bundle(kb, bundle)


def test_a_known_message_no_case_explains_is_named_with_its_meaning(tmp_path: Path) -> None:
    (tmp_path / "trainer.log").write_text("step 1\n" + LINE, encoding="utf-8")
    kb, bundle, d = _diagnose(tmp_path)
    assert not d.matches
    (known,) = [k for k in d.known_messages if k.line.where == "trainer.log:2"]
    assert "internal" in known.means.lower() and known.causes
    text = render_text(d, kb, facts=bundle.facts, width=100)
    assert "messages the catalogue knows" in text
    assert "trainer.log:2" in text and "means:" in text and "printed by:" in text


def test_the_cases_a_message_names_are_possible_from_the_catalogue_alone(tmp_path: Path) -> None:
    """No case's clauses reach a level, but the catalogue lists cases among the causes of a
    message that was printed: those cases are named, at possible and no higher, and say so."""
    (tmp_path / "trainer.log").write_text("step 1\n" + LINE, encoding="utf-8")
    _, _, d = _diagnose(tmp_path)
    (known,) = [k for k in d.known_messages if k.line.where == "trainer.log:2"]
    named = [c for c in known.causes if c != "unknown"]
    assert named and [v.id for v in d.possible] == named  # each cause it names, none else
    for v in d.possible:
        assert v.level == "possible" and not v.matched
        assert v.stopped.startswith("possible, from the catalogue alone") and known.id in v.stopped
        assert [ln.where for _, ln in v.evidence][:1] == ["trainer.log:2"]


def test_plain_progress_names_no_message(tmp_path: Path) -> None:
    (tmp_path / "trainer.log").write_text("step 1 loss=0.5\nstep 2 loss=0.4\n", encoding="utf-8")
    kb, bundle, d = _diagnose(tmp_path)
    assert d.known_messages == []
    assert "messages the catalogue knows" not in render_text(d, kb, facts=bundle.facts, width=100)


def test_no_index_pattern_starts_with_a_lazy_dot() -> None:
    """A wording that starts with a field (`{op} : invalid root …`) compiled to `(?:.*?) :…`,
    quadratic in the line's length: a fuzzed 2,000-character line took 12 s of CPU in
    known_messages. Presence needs no leading dot."""
    from dsl.catalogue.index import message_index

    patterns = [m.pattern for m in message_index().messages]
    assert patterns
    assert not [p for p in patterns if p.startswith(("(?:(?:.*?)", "(?:.*?", "(?:(?:.*)"))]
    leading = [m for m in message_index().messages if m.id == "nccl.argcheck.invalid-root-type-op"]
    # the field dropped: blanks before the fixed text, or the line's start (a paste cut there)
    assert leading and leading[0].pattern.startswith("(?:(?:\\s+|^[ \\t]*):\\s+invalid")


def test_a_message_that_does_not_look_like_an_error_line_is_still_read(tmp_path: Path) -> None:
    """nvidia-smi's lost-handle line has no `Error:` shape the suspicious-line scan knows, but
    a case's query found it: the catalogue's causes of it are named, at possible."""
    (tmp_path / "nvidia-smi.txt").write_text(
        "$ nvidia-smi\nUnable to determine the device handle for GPU0000:07:00.0: Unknown Error\n",
        encoding="utf-8",
    )
    _, _, d = _diagnose(tmp_path)
    (known,) = [k for k in d.known_messages if k.line.where == "nvidia-smi.txt:2"]
    named = [c for c in known.causes if c != "unknown"]
    assert named and set(named) <= {v.id for v in d.possible}
    assert all(v.level == "possible" for v in d.possible)


def test_a_message_quoted_in_the_users_prose_is_not_read_as_printed(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(
        "After a reboot nvidia-smi says Unable to determine the device handle for "
        "GPU0000:07:00.0: Unknown Error, and I do not know why.\n",
        encoding="utf-8",
    )
    _, _, d = _diagnose(tmp_path)
    assert d.known_messages == []


def test_a_message_the_user_quotes_names_its_causes_at_possible(tmp_path: Path) -> None:
    """The same message in backticks is what the user says was printed: log queries read such
    quotes, and so does the never-silent path, at possible and no higher."""
    (tmp_path / "notes.md").write_text(
        "After a reboot nvidia-smi says "
        "`Unable to determine the device handle for GPU0000:07:00.0: Unknown Error`.\n",
        encoding="utf-8",
    )
    _, _, d = _diagnose(tmp_path)
    (known,) = [k for k in d.known_messages if k.line.where == "notes.md:1"]
    assert known.line.text.startswith("Unable to determine")  # the quote, not the sentence
    named = [c for c in known.causes if c != "unknown"]
    assert named and set(named) <= {v.id for v in d.possible}
    assert all(v.level == "possible" for v in d.possible)


def test_a_message_printed_after_almost_any_failure_names_no_cause(tmp_path: Path) -> None:
    """torchrun's "closing signal SIGTERM" follows whatever killed a rank: the catalogue lists
    most causes for it, so it is shown with its meaning but names none of them."""
    sigterm = (
        "W0806 20:07:54.552742 148486 torch/distributed/elastic/multiprocessing/api.py:897] "
        "Sending process 148594 closing signal SIGTERM\n"
    )
    (tmp_path / "console.log").write_text("step 1\n" + sigterm, encoding="utf-8")
    _, _, d = _diagnose(tmp_path)
    (known,) = [k for k in d.known_messages if k.line.where == "console.log:2"]
    assert len([c for c in known.causes if c != "unknown"]) > 6
    assert d.possible == [] and d.matches == []

"""The built search worker gets lunr's TokenSet key fix once, and a changed Material fails
the build loudly instead of shipping the bug (kb.site.search_worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.site.search_worker import BUGGY, MARK, WORKERS, WorkerNotFound, fix_worker


def _site(tmp_path: Path, body: str) -> Path:
    (tmp_path / WORKERS).mkdir(parents=True)
    (tmp_path / WORKERS / "search.abc123.min.js").write_text(body, encoding="utf-8")
    return tmp_path


def test_the_fix_is_appended_once(tmp_path: Path) -> None:
    site = _site(tmp_path, f"t.{BUGGY}function(){{}};self.lunr=Y.default;\n//# sourceMappingURL=x")
    worker = fix_worker(site)
    fix_worker(site)
    text = worker.read_text(encoding="utf-8")
    assert text.count(MARK) == 1
    assert text.index("sourceMappingURL") < text.index(MARK)  # after the bundle has run


def test_a_worker_without_lunr_fails_the_build(tmp_path: Path) -> None:
    with pytest.raises(WorkerNotFound, match="found"):
        fix_worker(_site(tmp_path, "self.somethingElse = 1;"))
    with pytest.raises(WorkerNotFound):
        fix_worker(tmp_path / "no-site")


def test_the_installed_material_worker_is_found(tmp_path: Path) -> None:
    """The worker Material ships is the one the build fixes (a changed Material fails the
    build instead); the browser test proves the fix (test_search_lines)."""
    import shutil

    import material

    workers = Path(material.__file__).parent / "templates" / WORKERS
    shutil.copytree(workers, tmp_path / WORKERS)
    fixed = fix_worker(tmp_path)
    assert fixed.read_text(encoding="utf-8").count(MARK) == 1

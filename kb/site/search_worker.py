"""A fix to the search worker's lunr, appended to the built worker script.

Lunr 2.3.9 (bundled in Material's search worker) minimises its word automaton by keying
each node on `toString()`: the node's final flag, then each edge's label and target id run
together. With digits as labels the keys collide ("1" to node 123 reads as "1" to node 1
and "2" to node 3), two different nodes merge, and the automaton then holds words the
index does not: a query for such a word ("2", "rank 2", any pasted line with a short
number, depending on the index's words) throws `Cannot read properties of undefined
(reading '_index')` and the reader sees no results at all. A separator after each id
makes the key unambiguous (a label is one character, an id only digits).
"""

from __future__ import annotations

from pathlib import Path

WORKERS = Path("assets") / "javascripts" / "workers"
MARK = "/* kb: lunr TokenSet key fix */"
BUGGY = "TokenSet.prototype.toString="

FIX = (
    MARK
    + """
(function () {
  "use strict";
  var TokenSet = self.lunr && self.lunr.TokenSet;
  if (!TokenSet) throw new Error("kb: the search worker has no lunr.TokenSet to fix");
  TokenSet.prototype.toString = function () {
    if (this._str) return this._str;
    var key = this.final ? "1" : "0", labels = Object.keys(this.edges).sort();
    for (var i = 0; i < labels.length; i++) key += labels[i] + this.edges[labels[i]].id + ",";
    return key;
  };
})();
"""
)


class WorkerNotFound(RuntimeError):
    """The built site has no search worker holding lunr's TokenSet: Material changed."""


def fix_worker(site_dir: Path) -> Path:
    """Append `FIX` to the built search worker (once); return the worker's path."""
    texts = {
        p: p.read_text(encoding="utf-8") for p in sorted((site_dir / WORKERS).glob("search*.js"))
    }
    workers = [p for p, text in texts.items() if BUGGY in text]
    if len(workers) != 1:
        raise WorkerNotFound(
            f"expected one search worker defining lunr's {BUGGY!r} under {site_dir / WORKERS}, "
            f"found {[p.name for p in workers]}"
        )
    (worker,) = workers
    text = texts[worker]
    if MARK not in text:
        worker.write_text(text.rstrip("\n") + "\n;" + FIX, encoding="utf-8")
    return worker

"""A pasted log line, matched against every case's own patterns in the browser.

Full-text search ranks pages by shared words, and a real error line shares most of its
words ("error", "rank", "timeout") with many cases. The cases' patterns know better: the
site ships each case's signal patterns (`require`/`likely`/`possible`/`support` log and
stack queries, plus `rule_out` ones) and a script scores a pasted line as `kb diagnose`
would weigh a single line: each matching pattern adds its role's weight (require 3,
likely or possible 2, support 1, rule-out -3; a query only under a `not` counts for
nothing) times the longest plain-text run of the pattern found in the matched text, so a
specific message outweighs a pattern that matches anything around a generic word. A case is
listed only when the line matches one of its `require` patterns: a line that shows none of
what a case needs (only that NCCL is in use, say) is no reason to put it above the search
results. On a tie a general case goes before
the cases that specialise it: one line cannot show what makes the special case. Cases scoring above zero are listed first
in the search results, best first; the full-text results follow. `score()` is the same rule in Python, for the tests.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from dsl import model as m
from kb.site import messages

WEIGHTS = {
    m.Role.REQUIRED: 3,
    m.Role.LIKELY: 2,
    m.Role.POSSIBLE: 2,
    m.Role.SUPPORTING: 1,
    m.Role.RULING_OUT: -3,
}
MIN_WORDS = 3  # a query of fewer words is a search, not a pasted line
MAX_LINE = 4000  # characters of a pasted line the browser matches
MAX_PATTERN = 4000
MAX_SHOWN = 3
MAX_MESSAGES = 2  # catalogue messages shown for one pasted line
_INLINE_FLAGS = re.compile(r"^\(\?([ims]+)\)")


@dataclass(frozen=True)
class CasePattern:
    source: str
    flags: str  # JavaScript flags: "i", "s", "m"
    weight: int
    runs: tuple[str, ...]  # its plain-text runs, lowercased: what makes a match specific


def _runs(source: str) -> tuple[str, ...]:
    return tuple(sorted({r.lower() for r in messages.literal_runs(source)}, key=len))


def specificity(matched: str, runs: tuple[str, ...]) -> int:
    """The longest plain-text run of the pattern inside the text it matched (at least 1)."""
    text = matched.lower()
    return max((len(r) for r in runs if r in text), default=1)


def _positive_refs(node: m.Expr, negated: bool = False) -> set[str]:
    """Query names an expression needs to hold (those under a `not` are left out)."""
    if isinstance(node, m.Ref):
        return set() if negated else {node.name}
    if isinstance(node, m.Not):
        return _positive_refs(node.operand, not negated)
    out: set[str] = set()
    for o in node.operands:
        out |= _positive_refs(o, negated)
    return out


def weights(case: m.Case) -> dict[str, int]:
    """Each query's weight: the largest of the clauses that need it to hold."""
    out: dict[str, int] = {}
    for clause in case.condition.clauses:
        for name in _positive_refs(clause.expr):
            out[name] = max(out.get(name, -99), WEIGHTS[clause.role])
    return out


def _pattern(value: m.Regex) -> tuple[str, str]:
    """A pattern and its flags as both Python and JavaScript read them."""
    source, flags = value.pattern, set(value.flags) & set("ims")
    found = _INLINE_FLAGS.match(source)
    if found:
        flags |= set(found.group(1))
        source = source[found.end() :]
    return source, "".join(sorted(flags))


def case_patterns(case: m.Case) -> list[CasePattern]:
    """The log and stack patterns of a case that a single log line can show."""
    weight = weights(case)
    out = []
    for q in case.queries:
        if q.name not in weight:
            continue
        if isinstance(q, m.LogQuery) and "notes" not in q.sources:
            value = q.pattern
        elif isinstance(q, m.StackQuery):
            value = q.frame
        else:
            continue
        source, flags = _pattern(value)
        if not browser_safe(source):
            continue
        out.append(CasePattern(source, flags, weight[q.name], _runs(source)))
    return out


def _python(p: CasePattern) -> re.Pattern[str] | None:
    flags = 0
    for letter, flag in (("i", re.I), ("m", re.M), ("s", re.S)):
        if letter in p.flags:
            flags |= flag
    return _compiled(p.source, flags)


@functools.cache
def _compiled(source: str, flags: int) -> re.Pattern[str] | None:
    """Each case pattern compiled once: the cases hold more patterns than `re`'s own cache
    (512), so scoring a line against every case recompiled them all, every line."""
    try:
        return re.compile(source, flags)
    except re.error:
        return None


def score(line: str, cases: list[m.Case]) -> list[tuple[int, str]]:
    """(score, case id) of every case the line speaks for, best first, ties by id."""
    out = []
    for case in cases:
        total, needed = 0, False
        for p in case_patterns(case):
            compiled = _python(p)
            found = compiled.search(line) if compiled is not None else None
            if found is not None:
                total += p.weight * specificity(found.group(0), p.runs)
                needed |= p.weight == WEIGHTS[m.Role.REQUIRED]
        if total > 0 and needed:
            out.append((total, case.id))
    special = {c.id for c in cases if c.specializes}
    return sorted(out, key=lambda s: (-s[0], s[1] in special, s[1]))


def _nested_repeat(items: Any, inside: bool = False) -> bool:
    for op, av in items:
        if op in (messages.sre.MAX_REPEAT, messages.sre.MIN_REPEAT):
            _low, high, sub = av
            repeats = high is messages.sre.MAXREPEAT or high > 1
            if repeats and inside:
                return True
            if _nested_repeat(sub, inside or repeats):
                return True
        elif op is messages.sre.SUBPATTERN:
            if _nested_repeat(av[-1], inside):
                return True
        elif op is messages.sre.BRANCH:
            if inside:
                return True
            if any(_nested_repeat(b, inside) for b in av[1]):
                return True
    return False


@functools.cache  # parsing a pattern is the slow part of scoring a line against every case
def browser_safe(source: str) -> bool:
    """Whether a backtracking engine (the browser's) runs the pattern in bounded time.

    Case patterns are RE2, which never backtracks; JavaScript's engine does, and a repeat
    inside a repeat (`(a+)+`) or an alternation under a repeat can take exponential time on
    a pasted line. Such patterns are left out of the browser's matcher (kb diagnose still
    uses them).
    """
    if len(source) > MAX_PATTERN:
        return False
    try:
        tree = messages.sre_parse.parse(source)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return False
    return not _nested_repeat(list(tree))


def javascript_source(source: str) -> str:
    """RE2/Python named groups `(?P<name>…)` in JavaScript's spelling `(?<name>…)`."""
    return source.replace("(?P<", "(?<")


def data(cases: list[m.Case]) -> list[dict[str, object]]:
    return [
        {
            "id": case.id,
            "title": case.title.en,
            "summary": case.summary.en,
            "special": bool(case.specializes),
            "patterns": [
                [javascript_source(p.source), p.flags, p.weight, list(p.runs)]
                for p in case_patterns(case)
            ],
        }
        for case in cases
    ]


def javascript(cases: list[m.Case], catalogue: list[dict[str, object]] | None = None) -> str:
    """The cases' patterns, the catalogue's messages (`kb.site.paste_messages`) and the
    script that lists what a pasted line shows above the results."""
    payload = json.dumps(data(cases), ensure_ascii=True).replace("</", "<\\/")
    found = json.dumps(catalogue or [], ensure_ascii=True).replace("</", "<\\/")
    return (
        "// Generated by kb/site/paste.py from the cases and the catalogue: do not edit.\n"
        f"window.kbPasteCases = {payload};\n"
        f"window.kbPasteMessages = {found};\n"
        f"window.kbPasteLimits = {{minWords: {MIN_WORDS}, shown: {MAX_SHOWN}, "
        f"messages: {MAX_MESSAGES}, maxLine: {MAX_LINE}, "
        f"required: {WEIGHTS[m.Role.REQUIRED]}}};\n" + SCRIPT
    )


SCRIPT = r"""
(function () {
  "use strict";
  var here = document.currentScript ? document.currentScript.src : "";
  var base = here.replace(/javascripts\/kb-paste\.js.*$/, "");
  var cases = (window.kbPasteCases || []).map(function (c) {
    var compiled = [];
    c.patterns.forEach(function (p) {
      try { compiled.push([new RegExp(p[0], p[1]), p[2], p[3]]); } catch (e) { /* not JS */ }
    });
    return { id: c.id, title: c.title, summary: c.summary, special: c.special,
             patterns: compiled };
  });
  function match(line) {
    line = line.slice(0, window.kbPasteLimits.maxLine);
    if (line.trim().split(/\s+/).length < window.kbPasteLimits.minWords) return [];
    var out = [];
    cases.forEach(function (c) {
      var total = 0, needed = false;
      c.patterns.forEach(function (p) {
        var found = p[0].exec(line);
        if (!found) return;
        var text = found[0].toLowerCase(), best = 1;
        p[2].forEach(function (r) { if (r.length > best && text.indexOf(r) >= 0) best = r.length; });
        total += p[1] * best;
        if (p[1] === window.kbPasteLimits.required) needed = true;
      });
      if (total > 0 && needed) out.push([total, c]);
    });
    out.sort(function (a, b) {
      return b[0] - a[0] || (a[1].special - b[1].special) ||
        (a[1].id < b[1].id ? -1 : a[1].id > b[1].id ? 1 : 0);
    });
    return out.slice(0, window.kbPasteLimits.shown).map(function (s) { return s[1]; });
  }
  window.kbPasteMatch = match;
  var titles = {};
  cases.forEach(function (c) { titles[c.id] = c.title; });
  var catalogue = (window.kbPasteMessages || []).map(function (m) {
    try { return { m: m, re: new RegExp(m.pattern, "m") }; } catch (e) { return null; }
  }).filter(function (x) { return x; });
  function messagesIn(line) {
    line = line.slice(0, window.kbPasteLimits.maxLine);
    if (line.trim().split(/\s+/).length < window.kbPasteLimits.minWords) return [];
    var lower = line.toLowerCase();
    return catalogue.filter(function (x) {
      return (!x.m.literal || lower.indexOf(x.m.literal) >= 0) && x.re.test(line);
    }).map(function (x) { return x.m; });
  }
  window.kbPasteMessagesIn = messagesIn;
  // What the line shows, as cards: the cases its patterns speak for, each saying how far this
  // one line goes for it, then each catalogue message it holds (a shared one names every
  // cause that can print it, ranked as its page ranks them).
  function cards(line) {
    var out = [], said = {}, shown = [];
    messagesIn(line).slice(0, window.kbPasteLimits.messages).forEach(function (m) {
      var names = m.causes.map(function (id) { return titles[id] || id; });
      var text = m.decisive
        ? "Only one known cause prints this message: " + names[0] + "."
        : "Can be printed by: " + names.join("; ") +
          (m.others ? "; or a cause no case covers yet" : "") +
          ". kb diagnose --evidence ./logs tells them apart.";
      shown.push({ href: base + "messages/" + m.id.replace(/\./g, "-") + "/", title: m.text,
                   text: text, kind: "message", only: m.decisive ? m.causes[0] : null });
      m.causes.forEach(function (id) {
        if (!said[id]) said[id] = m.decisive ? "only" : "shared";
      });
    });
    match(line).forEach(function (c) {
      if (said[c.id] === "only") {
        // the message card already says this case alone prints the line's message: the
        // case takes its place, so it is listed once
        shown = shown.filter(function (s) { return s.only !== c.id; });
      }
      var lead = said[c.id] === "only" ? "Only this case prints this line's message. "
        : said[c.id] === "shared" ? "One of the causes that can print this line. "
        : "This line matches the case's own patterns. ";
      out.push({ href: base + "cases/" + encodeURIComponent(c.id) + "/", title: c.title,
                 text: lead + c.summary, kind: "case" });
    });
    // the cases in the Python rule's order first (paste.score), then the messages
    return out.concat(shown).map(function (card) {
      return { href: card.href, title: card.title, text: card.text, kind: card.kind };
    });
  }
  window.kbPasteCards = cards;
  // Card text is the cases' Markdown: `code` spans become code elements, a lone backtick
  // is dropped, so no raw backtick reaches the reader. Returns [code?, text] pieces.
  function inline(text) {
    var parts = String(text).split("`"), out = [];
    if (parts.length % 2 === 0) {  // an odd number of backticks: the last one is lone
      parts[parts.length - 2] += parts.pop();
    }
    parts.forEach(function (part, i) { if (part) out.push([i % 2 === 1, part]); });
    return out;
  }
  window.kbPasteInline = inline;
  function fill(node, text) {
    inline(text).forEach(function (piece) {
      if (!piece[0]) { node.append(piece[1]); return; }
      var code = document.createElement("code");
      code.textContent = piece[1];
      node.append(code);
    });
  }
  function item(card) {
    var li = document.createElement("li");
    li.className = "md-search-result__item kb-paste-match kb-paste-" + card.kind;
    var a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = card.href;
    var article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    var icon = document.createElement("div");
    icon.className = "md-search-result__icon md-icon";
    var h = document.createElement("h1");
    fill(h, card.title);
    var p = document.createElement("p");
    fill(p, card.text);
    article.append(icon, h, p);
    a.append(article);
    li.append(a);
    return li;
  }
  function refresh(list, input) {
    list.querySelectorAll(":scope > .kb-paste-match").forEach(function (n) { n.remove(); });
    var found = cards(input.value || "");
    for (var i = found.length - 1; i >= 0; i--) list.prepend(item(found[i]));
    // "No matching documents" would sit above the cards that answer the line: hidden
    // while the cards are all there is (kb.css)
    var meta = document.querySelector(".md-search-result__meta");
    var docs = list.querySelectorAll(":scope > li:not(.kb-paste-match)").length;
    if (meta) meta.classList.toggle("kb-paste-only", found.length > 0 && docs === 0);
  }
  function setup() {
    var list = document.querySelector(".md-search-result__list");
    var input = document.querySelector("input.md-search__input");
    if (!list || !input) return;
    var busy = false;
    var observer = new MutationObserver(function () {
      if (busy) return;
      busy = true;
      refresh(list, input);
      busy = false;
      observer.takeRecords();
    });
    observer.observe(list, { childList: true });
    input.addEventListener("input", function () {
      busy = true; refresh(list, input); busy = false; observer.takeRecords();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
"""

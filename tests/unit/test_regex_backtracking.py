"""Every regex of the package that page text can reach runs in time linear in the text: checked on the
patterns' structure (re._parser), not by timing. A search whose start can recur inside an unbounded repeat that
must be followed by more backtracks over the run from each start (quadratic: `\\s+$` on a line of spaces, or
spaced.py's old `(?:^|\\.)ab\\.(?:[^\\n]*\\.)?cd$` on `ab.ab.ab…x(y)`); a repeat of a body that ends in a
repeat able to run into the body's next turn is exponential (`(a+)+`)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path
from re import _constants as K
from re import _parser as P

import pytest

import docs_mcp

SAMPLE = [chr(c) for c in range(128)] + list("éж中\u00a0\u2028\u3000")
CATS = {
    K.CATEGORY_DIGIT: r"\d",
    K.CATEGORY_NOT_DIGIT: r"\D",
    K.CATEGORY_SPACE: r"\s",
    K.CATEGORY_NOT_SPACE: r"\S",
    K.CATEGORY_WORD: r"\w",
    K.CATEGORY_NOT_WORD: r"\W",
}
CHAR_OPS = (K.LITERAL, K.NOT_LITERAL, K.ANY, K.IN)
UNBOUNDED = K.MAXREPEAT


def _in(item, ch, flags):
    op, av = item
    if flags & re.IGNORECASE and ch.lower() != ch.upper():
        return _in(item, ch.lower(), flags & ~re.IGNORECASE) or _in(item, ch.upper(), flags & ~re.IGNORECASE)
    if op is K.LITERAL:
        return ord(ch) == av
    if op is K.NOT_LITERAL:
        return ord(ch) != av
    if op is K.ANY:
        return ch != "\n" or bool(flags & re.DOTALL)
    neg, hit = False, False
    for o, a in av:
        if o is K.NEGATE:
            neg = True
        elif o is K.LITERAL:
            hit |= ord(ch) == a
        elif o is K.RANGE:
            hit |= a[0] <= ord(ch) <= a[1]
        elif o is K.CATEGORY:
            hit |= bool(re.fullmatch(CATS.get(a, r"[\s\S]"), ch))
    return hit != neg


def chars_of(item, flags):
    return frozenset(c for c in SAMPLE if _in(item, c, flags))


def first(seq, flags):
    """(chars a match of the sequence can start with, whether it can match empty)."""
    out = set()
    for item in seq:
        f, nullable = first_item(item, flags)
        out |= f
        if not nullable:
            return frozenset(out), False
    return frozenset(out), True


def first_item(item, flags):
    op, av = item
    if op in CHAR_OPS:
        return chars_of(item, flags), False
    if op is K.SUBPATTERN:
        return first(av[3], flags | av[1])
    if op is K.ATOMIC_GROUP:
        return first(av, flags)
    if op is K.BRANCH:
        parts = [first(b, flags) for b in av[1]]
        return frozenset().union(*(p[0] for p in parts)), any(p[1] for p in parts)
    if op in (K.MAX_REPEAT, K.MIN_REPEAT, K.POSSESSIVE_REPEAT):
        f, nullable = first(av[2], flags)
        return f, nullable or av[0] == 0
    if op is K.GROUPREF:
        return frozenset(SAMPLE), True
    if op is K.AT and (av is K.AT_BEGINNING_STRING or (av is K.AT_BEGINNING and not flags & re.MULTILINE)):
        return frozenset(), False  # matches at the text's start only: no later start goes this way
    return frozenset(), True  # other anchors, lookarounds: zero-width


def all_chars(seq, flags):
    """Every sampled char any part of the sequence can consume."""
    out = set()
    for op, av in seq:
        if op in CHAR_OPS:
            out |= chars_of((op, av), flags)
        elif op is K.SUBPATTERN:
            out |= all_chars(av[3], flags | av[1])
        elif op is K.ATOMIC_GROUP:
            out |= all_chars(av, flags)
        elif op is K.BRANCH:
            for b in av[1]:
                out |= all_chars(b, flags)
        elif op in (K.MAX_REPEAT, K.MIN_REPEAT, K.POSSESSIVE_REPEAT):
            out |= all_chars(av[2], flags)
        elif op is K.GROUPREF:
            out |= set(SAMPLE)
    return out


def _anchored(seq, flags):
    """Whether every match must start at the text's start (^ without MULTILINE, or \\A)."""
    for op, av in seq:
        if op is K.AT:
            return av is K.AT_BEGINNING_STRING or (av is K.AT_BEGINNING and not flags & re.MULTILINE)
        if op is K.SUBPATTERN:
            return _anchored(av[3], flags | av[1])
        if op is K.BRANCH:
            return all(_anchored(b, flags) for b in av[1])
        return False
    return False


def _guard(seq, flags):
    """Chars that cannot precede a match's start: a leading negative lookbehind of one char class, or a
    line start (^ with MULTILINE: only a newline may precede)."""
    for op, av in seq:
        if op is K.ASSERT_NOT and av[0] == -1 and len(av[1]) == 1 and av[1][0][0] in CHAR_OPS:
            return chars_of(av[1][0], flags)
        if op is K.AT and av is K.AT_BEGINNING and flags & re.MULTILINE:
            return frozenset(SAMPLE) - {"\n"}
        if op is K.AT and av is K.AT_BOUNDARY:  # \b before a word char: no start inside a word
            after, _ = first(seq[1:], flags)
            word = frozenset(c for c in SAMPLE if re.fullmatch(r"\w", c))
            return word if after and after <= word else frozenset()
        if op is K.SUBPATTERN:
            return _guard(av[3], flags | av[1])
        return frozenset()
    return frozenset()


def problems(pattern: str, flags: int = 0, searched: bool = True) -> list[str]:
    """What in the pattern can take time growing faster than the text (empty: none found)."""
    tree = P.parse(pattern, flags)
    flags = tree.state.flags
    seq = list(tree)
    out = []
    branches = seq[0][1][1] if len(seq) == 1 and seq[0][0] is K.BRANCH else [seq]
    for branch in branches:  # a search's starts, branch by branch: the prefix leading to each repeat
        start, _ = first(branch, flags)
        searched_here = searched and not _anchored(branch, flags)
        _walk(branch, flags, False, start, searched_here, out, _guard(branch, flags))
    return out


def _walk(seq, flags, required_after, start, searched, out, guard=frozenset()):
    for i, (op, av) in enumerate(seq):
        rest_required = required_after or _required(seq[i + 1 :], flags)
        if op is K.SUBPATTERN:
            _walk(av[3], flags | av[1], rest_required, start, searched, out, guard)
        elif op is K.ATOMIC_GROUP:
            _walk(av, flags, rest_required, start, searched, out, guard)
        elif op is K.BRANCH:
            for b in av[1]:
                _walk(
                    b,
                    flags,
                    rest_required,
                    start,
                    searched and not (i == 0 and _anchored(b, flags)),
                    out,
                    guard,
                )
        elif op in (K.MAX_REPEAT, K.MIN_REPEAT, K.POSSESSIVE_REPEAT):
            body = av[2]
            unbounded = av[1] == UNBOUNDED
            if unbounded and op is not K.POSSESSIVE_REPEAT:
                run = all_chars(body, flags)
                if searched and rest_required and (start & run) - guard:
                    out.append(
                        f"quadratic: a search's every start ({_show(start)}) recurs inside a repeat of "
                        f"{_show(run)} that must be followed by more"
                    )
                _nested(body, flags, out)
            _walk(body, flags, rest_required, start, searched, out, guard)


def _required(seq, flags):
    """Whether what follows can fail: an item that must consume, or an anchor or lookaround ($ after a run)."""
    return any(op in (K.AT, K.ASSERT, K.ASSERT_NOT) or not first_item((op, av), flags)[1] for op, av in seq)


def _nested(body, flags, out, nxt=None):
    """A repeat of a body that ends in an unbounded repeat able to run into the body's next turn."""
    nxt = first(body, flags)[0] if nxt is None else nxt
    for op, av in reversed(body):
        if op in (K.MAX_REPEAT, K.MIN_REPEAT) and av[1] == UNBOUNDED:
            if all_chars(av[2], flags) & nxt:
                out.append(f"exponential: a repeat of a repeat of {_show(all_chars(av[2], flags))}")
            return
        if op is K.SUBPATTERN:
            return _nested(av[3], flags | av[1], out, nxt)
        if not first_item((op, av), flags)[1]:
            return


def _show(chars):
    chars = sorted(chars)
    return repr("".join(chars[:12])) + ("…" if len(chars) > 12 else "")


SRC = Path(docs_mcp.__file__).parent
CALLS = frozenset({"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"})


def from_modules():
    out = {}
    for m in pkgutil.walk_packages([str(SRC)], "docs_mcp."):
        if m.name.endswith("__main__"):
            continue
        mod = importlib.import_module(m.name)
        for name, value in vars(mod).items():
            vals = (
                value
                if isinstance(value, (tuple, list))
                else value.values()
                if isinstance(value, dict)
                else [value]
            )
            for v in vals:
                if isinstance(v, re.Pattern) and isinstance(v.pattern, str):
                    out[(v.pattern, v.flags & ~re.UNICODE)] = f"{m.name}.{name}"
    return out


def from_source():
    out = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in CALLS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out[(node.args[0].value, 0)] = f"{path.relative_to(SRC)}:{node.lineno} re.{node.func.attr}"
    return out


#: Patterns the check flags that page text never reaches, or reaches with one start or a bounded length: why.
SAFE = {
    "docs_mcp.cli.reference._BLOCK": "the project's own README, not page text",
    "docs_mcp.convert.selectors._SIMPLE": "themes' selectors (the package's data), and with fullmatch",
    "docs_mcp.convert.selectors._PART": "themes' selectors (the package's data)",
    "docs_mcp.convert.markdown._MARKER_ONLY": "fullmatch on one line: one start",
    "docs_mcp.transport.door._AUTHORITY": "fullmatch on a Host header: one start",
}


def _safe_patterns() -> set[str]:
    out = set()
    for dotted in SAFE:
        module, name = dotted.rsplit(".", 1)
        out.add(getattr(importlib.import_module(module), name).pattern)
    return out


def test_no_regex_of_the_package_backtracks_over_the_text_more_than_linearly():
    patterns = {**from_source(), **from_modules()}
    assert len(patterns) > 60  # the scan finds them
    safe = _safe_patterns()
    flagged = {
        where: found
        for (pattern, flags), where in patterns.items()
        if pattern not in safe and (found := problems(pattern, flags))
    }
    assert flagged == {}


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?:^|\.)ab\.(?:[^\n]*\.)?cd$",  # spaced.py's before issue 43 (58 s on one page's names)
        r"\[([^\]]*)\]\(([^)\s]+)\)",  # llms.txt links before: 2.2 s on 32,000 "["
        r"[ \t]+$",  # trailing blanks before: 4 s on a line of 32,000 spaces
        r"(\w+\s?)*$",
        r"^(a+)+b",
    ],
)
def test_the_check_finds_patterns_that_backtrack_more_than_linearly(pattern):
    assert problems(pattern, re.M if "$" in pattern else 0)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?<![ \t])[ \t]+$",
        r"\[([^\[\]]*)\]\(([^)\s\[]+)\)",
        r"foo\d+",
        r"\s+",
        r"^[ \t]*\w+$",
        r"[^\W_]+(?:['’][^\W_]+)?",
    ],
)
def test_the_check_passes_patterns_that_run_in_linear_time(pattern):
    assert problems(pattern, re.M) == []

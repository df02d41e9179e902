"""The portable pattern subset: regexes that RE2 and JavaScript both accept, with the same meaning.

`analyse(pattern)` scans a pattern once with a small recursive-descent parser and returns:
  - `problems`: each construct outside the subset, with its position and the portable way to write it
    (the check RGX005 reports them);
  - `js_source`, `js_flags`: the same pattern for JavaScript's `RegExp(source, flags)` (always the `u` flag,
    plus `i` for a leading `(?i)`), rewritten where the two dialects spell one meaning differently;
  - `literals`: a prefilter. Every match contains at least one of these strings (case-insensitively when
    `ignore_case`); empty when no such text of useful length exists (the check RGX006 refuses those);
  - `specificity`: how many literal characters the pattern spells out, and `anchored`: it starts with `^` or
    ends with `$` (ranking signals; generator.match.rules says what they weigh).

The subset, and why (RE2 syntax: https://github.com/google/re2/wiki/Syntax; JavaScript: ECMA-262 with `u`):
  - no back-references (`\\1`, `\\k<n>`), look-around (`(?=`, `(?!`, `(?<=`, `(?<!`), atomic groups `(?>` or
    possessive quantifiers (`a++`): RE2 has none of them (they need backtracking);
  - no named groups, in either spelling (`(?P<n>` is RE2-only; `(?<n>` differs in what names are allowed):
    `{}` placeholders are filled in by group position, so a plain `( )` says the same;
  - no inline flags except one leading `(?i)` (JavaScript's `i` flag); no `(?s)`, `(?m)`, `(?U)`, `(?i:...)`;
  - no `\\A`, `\\z`, `\\Z`, `\\Q...\\E`, `\\C`, `\\x{...}`, octal or `\\0` escapes, POSIX classes `[[:alpha:]]`,
    one-letter `\\pL`; `\\p{...}` only for general categories and a few scripts (`\\p{Han}` becomes
    `\\p{Script=Han}` in JavaScript);
  - no repetition of a group that itself repeats without bound (`(a+)+`, `(\\w+\\.)*`): harmless in RE2, but
    JavaScript's backtracking engine can take exponential time on it, and the site runs patterns in browsers;
  - no `\\b`/`\\B` with `(?i)`: with `iu` JavaScript counts `ſ` and the Kelvin sign as word characters, RE2 does not;
  - `{`, `}` and `]` that are not syntax must be escaped (JavaScript's `u` mode refuses them bare), and a `]`
    may not open a class (`[]a]` is a class in RE2, an empty class in JavaScript); `\\S` may not stand inside a
    class (JavaScript's `\\S` is a different set, and a negated set cannot be spliced into a class).
Rewritten for JavaScript (same meaning, other spelling): `.` -> `[^\\n]` (JavaScript's `.` also stops at `\\r`,
U+2028, U+2029); `\\s` -> `[\\t\\n\\f\\r ]` and `\\S` -> `[^\\t\\n\\f\\r ]` (JavaScript's `\\s` adds Unicode spaces);
escaped punctuation that JavaScript's `u` mode refuses (`\\-`, `\\:`, `\\'`...) is written bare.
"""

from __future__ import annotations

import re

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from . import redos, regextree
from .regextree import Alt, Assert, Cat, Chars, CharSet, Lit, Rep

# Prefilter literals: at most this many alternatives, each at most this long (longer ones are cut: any match
# that contains the whole literal contains its prefix too).
MAX_ALTERNATIVES = 16
MAX_LITERAL = 64

_JS_SYNTAX = set("^$\\.*+?()[]{}|/")
_CLASS_SPECIAL = set("\\]^-[")
_SPECIAL = set("\\[](){}|.*+?^$")
_SPACE = "\\t\\n\\f\\r "
_CATEGORIES = {
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe",
    "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "Cc", "Cf",
}
_SCRIPTS = {"Han", "Latin", "Greek", "Cyrillic", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew", "Thai"}
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_HEX = set("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class Problem:
    """One construct outside the portable subset: where (0-based index into the pattern), what, and the fix."""

    pos: int
    construct: str
    hint: str
    slow: bool = False  # portable, but slow in a backtracking engine (generator.match.redos)

    def __str__(self) -> str:
        return f"{self.construct} at position {self.pos}; {self.hint}"


@dataclass
class Analysis:
    problems: list[Problem]
    js_source: str
    js_flags: str
    literals: list[str]
    specificity: int
    ignore_case: bool
    anchored: bool
    broken: bool = False  # the parser gave up (unbalanced syntax): RE2's own error says why
    tree: object = None  # the pattern as a tree (generator.match.redos), when it parsed

    @property
    def portable(self) -> bool:
        return not self.problems and not self.broken


@dataclass
class _Node:
    """What the analysis needs of a piece of pattern: its JavaScript spelling and its literal content."""

    js: str
    exact: set[str] | None = None  # every string the piece can match, when few and known
    required: set[str] | None = None  # one of these is inside every match (best factor found)
    literal_chars: int = 0
    can_repeat: bool = True
    nodes: list = field(default_factory=list)
    unbounded: bool = False  # holds a repetition without an upper bound (`*`, `+`, `{n,}`)
    ast: object = None  # the piece as a tree (generator.match.redos), for the backtracking checks


def _js_char(c: str, in_class: bool = False) -> str:
    """A literal character, spelled for JavaScript's `u` mode."""
    if c in (_CLASS_SPECIAL if in_class else _JS_SYNTAX):
        return "\\" + c
    code = ord(c)
    if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or code in (0x2028, 0x2029):
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{{{code:x}}}"
    return c


def _cross(left: set[str], right: set[str]) -> set[str] | None:
    if len(left) * len(right) > MAX_ALTERNATIVES:
        return None
    out = {a + b for a, b in product(left, right)}
    return out if all(len(s) <= 4 * MAX_LITERAL for s in out) else None


def _strength(lits: set[str] | None) -> tuple[int, int]:
    """How good a prefilter a literal set is: longest shortest member, then fewest members."""
    if not lits:
        return (0, 0)
    return (min(len(s) for s in lits), -len(lits))


def _best(*candidates: set[str] | None) -> set[str] | None:
    best = max(candidates, key=_strength, default=None)
    return best if best and _strength(best)[0] > 0 else None


class _Parser:
    def __init__(self, pattern: str):
        self.p = pattern
        self.i = 0
        self.problems: list[Problem] = []
        self.ignore_case = False
        self.broken = False
        self.anchored = False

    # -- helpers ---------------------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def problem(self, pos: int, construct: str, hint: str, slow: bool = False) -> None:
        self.problems.append(Problem(pos, construct, hint, slow))

    # -- grammar ---------------------------------------------------------------------------------------------
    def parse(self) -> _Node:
        if self.p.startswith("(?i)"):
            self.ignore_case = True
            self.i = 4
        node = self.alternation()
        if self.i < len(self.p):  # a stray ')'
            self.broken = True
        return node

    def alternation(self) -> _Node:
        start = self.i
        branches = [self.concat()]
        sources = [self.p[start:self.i]]
        while self.peek() == "|":
            self.i += 1
            branch_start = self.i
            branches.append(self.concat())
            sources.append(self.p[branch_start:self.i])
        if len(branches) == 1:
            return branches[0]
        tree = Alt([b.ast for b in branches], start, self.p[start:self.i], sources)
        exact: set[str] | None = set()
        for b in branches:
            exact = exact | b.exact if exact is not None and b.exact is not None else None
        if exact is not None and len(exact) > MAX_ALTERNATIVES:
            exact = None
        required: set[str] | None = set()
        for b in branches:
            lits = _best(b.required, b.exact)
            required = required | lits if required is not None and lits else None
        if required is not None and len(required) > MAX_ALTERNATIVES:
            required = None
        return _Node("|".join(b.js for b in branches), exact, required, sum(b.literal_chars for b in branches),
                     unbounded=any(b.unbounded for b in branches), ast=tree)

    def concat(self) -> _Node:
        items: list[_Node] = []
        while self.i < len(self.p) and self.peek() not in "|)":
            run = self.plain_run()
            if run is not None:
                items.append(run)
                continue
            atom_start = self.i
            atom = self.atom()
            if atom is None:
                break
            items.append(self.quantified(atom, atom_start))
        js = "".join(n.js for n in items)
        run: set[str] | None = {""}
        candidates: list[set[str] | None] = []
        whole = True  # every item so far is exact and the combinations stayed few
        for n in items:
            if n.exact is not None:
                joined = _cross(run, n.exact)
                if joined is None:  # too many combinations: what we had is one factor, start another
                    candidates.append(run)
                    whole = False
                    run = set(n.exact)
                else:
                    run = joined
                continue
            whole = False
            candidates.append(run)
            candidates.append(n.required)
            run = {""}
        candidates.append(run)
        exact = run if whole else None
        tree = items[0].ast if len(items) == 1 else Cat([n.ast for n in items])
        return _Node(js, exact, _best(*candidates), sum(n.literal_chars for n in items), unbounded=any(n.unbounded for n in items), ast=tree)

    def plain_run(self) -> _Node | None:
        """A run of ordinary characters as one node (the common case, and much faster than one per character).
        The last character stays out when a quantifier follows it."""
        j = self.i
        while j < len(self.p) and self.p[j] not in _SPECIAL:
            j += 1
        if j < len(self.p) and self.p[j] in "*+?{":
            j -= 1
        if j - self.i < 2:
            return None
        text = self.p[self.i:j]
        self.i = j
        js = text if _PLAIN_JS.fullmatch(text) else "".join(_js_char(c) for c in text)
        return _Node(js, exact={text}, literal_chars=len(text), ast=Lit(text))

    def quantified(self, atom: _Node, atom_start: int) -> _Node:
        start = self.i
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{":
            if not self.repetition(probe=True):
                return atom  # a literal brace: atom() reports it
            lo, hi = self.repetition()
        else:
            return atom
        if not atom.can_repeat:
            self.broken = True
        suffix = self.p[start:self.i]
        lazy = False
        if self.peek() == "?":
            self.i += 1
            suffix += "?"
            lazy = True
        elif self.peek() == "+":
            self.problem(self.i, f"possessive quantifier `{suffix}+`", "RE2 has no possessive quantifiers: drop the second `+`")
            self.i += 1
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self.repetition(probe=True)):
            self.broken = True  # a repeated repetition; RE2 refuses it
        exact = None
        if atom.exact is not None and hi == lo and lo <= 8:
            exact = {""}
            for _ in range(lo):
                exact = _cross(exact, atom.exact) if exact is not None else None
        if atom.unbounded and (hi is None or hi > 1):
            # RE2 does not care, but JavaScript backtracks: `(a+)+$` on a long run of `a` takes exponential time.
            self.problem(start, f"a repetition `{suffix}` around a group that repeats without bound",
                         "nested repetition makes browsers' regex engines backtrack exponentially: repeat one class instead (e.g. `[\\w.]+` for `(\\w+\\.)*\\w+`), or bound the inner repetition",
                         slow=True)
        required = _best(atom.required, atom.exact) if lo >= 1 else None
        js = atom.js + suffix
        tree = Rep(atom.ast if atom.ast is not None else Lit(""), lo, hi, lazy, atom_start, self.p[atom_start:self.i])
        return _Node(js, exact, required, atom.literal_chars * max(lo, 1) if lo else 0, can_repeat=False,
                     unbounded=atom.unbounded or hi is None, ast=tree)

    def repetition(self, probe: bool = False) -> tuple[int, int | None] | None:
        """`{n}`, `{n,}`, `{n,m}` at self.i; None (and a problem) for a brace that is not one."""
        j = self.i + 1
        digits = ""
        while j < len(self.p) and self.p[j].isascii() and self.p[j].isdigit():
            digits += self.p[j]
            j += 1
        hi_digits: str | None = digits
        if j < len(self.p) and self.p[j] == ",":
            j += 1
            hi_digits = ""
            while j < len(self.p) and self.p[j].isascii() and self.p[j].isdigit():
                hi_digits += self.p[j]
                j += 1
        if digits and j < len(self.p) and self.p[j] == "}":
            if probe:
                return (0, 0)
            self.i = j + 1
            return int(digits), (int(hi_digits) if hi_digits else None)
        if not probe:
            self.problem(self.i, "a `{` that is not a repetition", "escape a literal brace as `\\{` (JavaScript's `u` mode refuses it bare; `{,n}` is not a repetition in RE2)")
        return None

    def atom(self) -> _Node | None:
        c = self.peek()
        pos = self.i
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.escape(in_class=False)
        self.i += 1
        if c == ".":
            return _Node("[^\\n]", ast=Chars(regextree.NOT_NEWLINE))
        if c in ("^", "$"):
            # Anchored (a ranking signal): the pattern starts with `^` or ends with `$`.
            if (c == "^" and pos == (4 if self.ignore_case else 0)) or (c == "$" and pos == len(self.p) - 1):
                self.anchored = True
            return _Node(c, exact={""}, can_repeat=False, ast=Assert(c))
        if c in ("*", "+", "?"):
            self.broken = True  # nothing to repeat
            return _Node(c, ast=Lit(""))
        if c == "{":
            self.i = pos
            if self.repetition(probe=True):
                self.broken = True
                self.i = pos + 1
                return _Node("\\{", ast=Lit("{"))
            self.repetition()  # records the problem
            self.i = pos + 1
            return self._literal("{")
        if c == "}":
            self.problem(pos, "a bare `}`", "escape a literal brace as `\\}` (JavaScript's `u` mode refuses it bare)")
            return self._literal("}")
        if c == "]":
            self.problem(pos, "a bare `]`", "escape a literal bracket as `\\]` (JavaScript's `u` mode refuses it bare)")
            return self._literal("]")
        return self._literal(c)

    def _literal(self, c: str) -> _Node:
        return _Node(_js_char(c), exact={c}, literal_chars=1, ast=Lit(c))

    def group(self) -> _Node:
        start = self.i
        self.i += 1
        prefix = "("
        if self.peek() == "?":
            rest = self.p[self.i:self.i + 4]
            if rest.startswith("?:"):
                self.i += 2
                prefix = "(?:"
            else:
                self._special_group(start)
                prefix = "(?:"
        inner = self.alternation()
        if self.peek() != ")":
            self.broken = True
            return _Node(prefix + inner.js, ast=inner.ast)
        self.i += 1
        return _Node(prefix + inner.js + ")", inner.exact, _best(inner.required, inner.exact), inner.literal_chars, unbounded=inner.unbounded,
                     ast=inner.ast)

    def _special_group(self, start: int) -> None:
        """`(?...` other than `(?:`: record what it is, then skip to the group's body."""
        rest = self.p[self.i:]
        table = [
            ("?=", "look-ahead `(?=`", "RE2 has no look-around: match the text itself, or make a counter-example of what must not follow"),
            ("?!", "negative look-ahead `(?!`", "RE2 has no look-around: list the forms that do match, or add a counter-example"),
            ("?<=", "look-behind `(?<=`", "RE2 has no look-around: include the preceding text in the pattern"),
            ("?<!", "negative look-behind `(?<!`", "RE2 has no look-around: include the preceding text in the pattern, or add a counter-example"),
            ("?>", "atomic group `(?>`", "RE2 has no atomic groups (it never backtracks): use a plain group `(?:...)`"),
            ("?P<", "named group `(?P<name>`", "JavaScript has no `(?P<`: use a plain group `(...)`; placeholders are filled by position"),
            ("?P=", "named back-reference `(?P=`", "RE2 has no back-references: spell the repeated text out, or capture both and compare outside the pattern"),
            ("?<", "named group `(?<name>`", "use a plain group `(...)`; `{}` placeholders are filled by position"),
            ("?#", "comment group `(?#`", "neither engine supports comments in patterns: remove it"),
        ]
        for prefix, construct, hint in table:
            if rest.startswith(prefix):
                self.problem(start, construct, hint)
                self.i += len(prefix)
                if prefix in ("?P<", "?<") and not rest.startswith(("?<=", "?<!")):
                    end = self.p.find(">", self.i)
                    self.i = end + 1 if end >= 0 else len(self.p)
                elif prefix in ("?P=", "?#"):
                    end = self.p.find(")", self.i)
                    self.i = end if end >= 0 else len(self.p)
                return
        # inline flags: (?i) (?s) (?-i) (?i:...)
        j = self.i + 1
        while j < len(self.p) and (self.p[j].isalpha() or self.p[j] == "-"):
            j += 1
        flags = self.p[self.i + 1:j]
        if start == 0 and flags == "i":
            hint = "only `(?i)` at the very start is portable"
        else:
            hint = "the only portable flag is a leading `(?i)` for the whole pattern; write case variants as `[Ee]rror`"
        if j < len(self.p) and self.p[j] == ":":
            self.problem(start, f"scoped flags `(?{flags}:`", hint)
            self.i = j + 1
        else:
            self.problem(start, f"inline flags `(?{flags})`", hint)
            self.i = j  # the body is empty; the closing ')' ends the group

    def char_class(self) -> _Node:
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        out = ["[^" if negated else "["]
        if self.peek() == "]":
            self.problem(self.i, "a `]` first in a class", "escape it as `\\]` (RE2 reads `[]a]` as a class holding `]`, JavaScript as an empty class)")
            self.i += 1
            out.append("\\]")
        members: list[str] = []
        chars = regextree.NONE  # what the class matches, for the backtracking checks
        range_from: str | None = None  # the `a` of `a-z` once its `-` was read
        last_char: str | None = None
        non_space = False  # `\S` is in the class
        while self.i < len(self.p) and self.peek() != "]":
            c = self.peek()
            if c == "[" and self.peek(1) == ":":
                end = self.p.find(":]", self.i + 2)
                name = self.p[self.i + 2:end] if end > 0 else ""
                self.problem(self.i, f"POSIX class `[:{name}:]`", "JavaScript has no POSIX classes: write the range, e.g. `[A-Za-z]` for `[:alpha:]`, `[0-9]` for `[:digit:]`")
                self.i = end + 2 if end > 0 else len(self.p)
                continue
            if c == "\\":
                if self.peek(1) == "S":
                    self.i += 2
                    non_space = True
                    chars |= ~regextree.SPACE
                    if negated:
                        self.problem(self.i - 2, "`\\S` inside a negated class", "JavaScript's `\\S` is another set: list the characters the class should match instead, e.g. `[\\t ]`")
                    continue
                node = self.escape(in_class=True)
                out.append(node.js)
                members.append(node.js)
                if isinstance(node.ast, Lit) and len(node.ast.text) == 1:
                    chars, last_char, range_from = _class_add(chars, node.ast.text, range_from), node.ast.text, None
                elif isinstance(node.ast, Chars):
                    chars, last_char, range_from = chars | node.ast.chars, None, None
                continue
            self.i += 1
            if c == "-" and members and self.peek() != "]":
                out.append("-")
                range_from = last_char
                continue
            out.append(_js_char(c, in_class=True))
            members.append(c)
            chars, last_char, range_from = _class_add(chars, c, range_from), c, None
        if self.peek() != "]":
            self.broken = True
            return _Node("".join(out))
        self.i += 1
        out.append("]")
        js = "".join(out)
        if negated:
            chars = ~chars
        if non_space and not negated:
            # `[\S...]` is "not RE2-space, or one of ...": spelled as a group, since JavaScript's `\S` differs.
            rest = js[1:-1]
            js = f"(?:[^{_SPACE}]|[{rest}])" if rest else f"[^{_SPACE}]"
            return _Node(js, ast=Chars(chars))
        # A class of one literal character is that character (`[.]`, `[ ]`), so literal runs can go through it.
        body = self.p[start + 1:self.i - 1]
        if not negated and len(members) == 1 and len(members[0]) == 1 and body in (members[0], "\\" + members[0]):
            return _Node(js, exact={members[0]}, literal_chars=1, ast=Lit(members[0]))
        return _Node(js, ast=Chars(chars))

    def escape(self, in_class: bool) -> _Node:
        pos = self.i
        self.i += 1
        c = self.peek()
        self.i += 1
        if c == "":
            self.broken = True
            return _Node("\\\\")
        if c in "dDwW":
            base = regextree.DIGIT if c in "dD" else regextree.WORD
            return _Node("\\" + c, ast=Chars(base if c.islower() else ~base))
        if c == "s":
            return _Node(_SPACE if in_class else f"[{_SPACE}]", ast=Chars(regextree.SPACE))
        if c == "S":  # (inside a class, char_class handles it)
            return _Node(f"[^{_SPACE}]", ast=Chars(~regextree.SPACE))
        if c in "bB":
            if in_class:
                self.problem(pos, "`\\b` inside a class", "write a backspace as `\\x08`")
                return _Node("\\x08")
            if self.ignore_case:
                self.problem(pos, f"`\\{c}` with `(?i)`", "with `(?i)` JavaScript's word boundary also counts `ſ` and the Kelvin sign as letters, RE2's does not: drop `\\b` or drop `(?i)` and write case variants as `[Ee]rror`")
            return _Node("\\" + c, exact={""}, can_repeat=False, ast=Assert(c))
        if c in _SIMPLE_ESCAPES:
            ch = _SIMPLE_ESCAPES[c]
            return _Node(_js_char(ch, in_class), exact={ch}, literal_chars=1, ast=Lit(ch))
        if c == "x":
            h = self.p[self.i:self.i + 2]
            if len(h) == 2 and set(h) <= _HEX:
                self.i += 2
                ch = chr(int(h, 16))
                return _Node(_js_char(ch, in_class), exact={ch}, literal_chars=1, ast=Lit(ch))
            self.problem(pos, "`\\x{...}`" if self.peek() == "{" else "`\\x` without two hex digits", "write the character itself, or `\\xHH` with exactly two hex digits")
            if self.peek() == "{":
                end = self.p.find("}", self.i)
                self.i = end + 1 if end >= 0 else len(self.p)
            return _Node("")
        if c in "pP":
            return self._unicode_class(pos, c, in_class)
        if c.isascii() and c.isdigit():
            self.problem(pos, f"`\\{c}`", "back-references and octal escapes are not portable: RE2 has no back-references; write a character as `\\xHH`")
            return _Node("")
        named = {
            "A": ("`\\A`", "use `^` (patterns are matched one line at a time)"),
            "z": ("`\\z`", "use `$`"),
            "Z": ("`\\Z`", "use `$`"),
            "Q": ("`\\Q...\\E` quoting", "escape each special character with a backslash instead"),
            "E": ("`\\E`", "escape each special character with a backslash instead"),
            "C": ("`\\C` (any byte)", "use `.` (any character)"),
            "k": ("named back-reference `\\k`", "RE2 has no back-references: spell the repeated text out"),
            "a": ("`\\a`", "write the bell character as `\\x07`"),
            "e": ("`\\e`", "write escape as `\\x1b`"),
            "u": ("`\\u`", "write the character itself, or `\\xHH` below 0x100"),
            "c": ("`\\c`", "write the control character as `\\xHH`"),
        }
        if c in named:
            construct, hint = named[c]
            self.problem(pos, construct, hint)
            return _Node("")
        if c.isascii() and c.isalnum():
            self.problem(pos, f"`\\{c}`", "this escape means different things, or nothing, in RE2 and JavaScript: remove the backslash or use `\\xHH`")
            return _Node("")
        # An escaped symbol is that symbol in both engines; JavaScript's `u` mode only refuses the spelling.
        return _Node(_js_char(c, in_class), exact={c}, literal_chars=1, ast=Lit(c))

    def _unicode_class(self, pos: int, c: str, in_class: bool) -> _Node:
        if self.peek() != "{":
            self.problem(pos, f"one-letter `\\{c}{self.peek()}`", f"write it with braces: `\\{c}{{{self.peek()}}}`")
            self.i += 1
            return _Node("")
        end = self.p.find("}", self.i)
        if end < 0:
            self.broken = True
            return _Node("")
        name = self.p[self.i + 1:end]
        self.i = end + 1
        negate = name.startswith("^")
        bare = name[1:] if negate else name
        letter = ("P" if c == "p" else "p") if negate else c
        tree = Chars(regextree.unicode_class(bare, letter == "P"))
        if bare in _CATEGORIES:
            return _Node(f"\\{letter}{{{bare}}}", ast=tree)
        if bare in _SCRIPTS:
            return _Node(f"\\{letter}{{Script={bare}}}", ast=tree)
        self.problem(pos, f"`\\{c}{{{name}}}`", f"use a Unicode general category (e.g. `\\p{{L}}`, `\\p{{Nd}}`) or one of the scripts {', '.join(sorted(_SCRIPTS))}")
        return _Node("")


def prefilter_literal(literals: Sequence[str]) -> str:
    """The one literal a prefilter looks for when it takes one of `analyse`'s: the longest (of equals, the greatest),
    "" for none. The harvest writes it as a catalog entry's `literal`, with the spaces around it: "running " is not
    in "#running-req", "running" is."""
    return max(literals, key=lambda s: (len(s), s), default="")


def _class_add(chars: CharSet, c: str, range_from: str | None) -> CharSet:
    """The class so far plus `c`, or plus the range from `range_from` to `c`."""
    return chars | (CharSet.of((range_from, c)) if range_from is not None else CharSet.of(c))


def analyse(pattern: str, backtracking: bool = True) -> Analysis:
    """Scan `pattern` once: portability problems, its JavaScript form and its prefilter literals. Without
    `backtracking`, the shapes that backtrack (most of the time taken) are not looked for: for patterns a
    check has already passed, when only the JavaScript form and the literals are wanted."""
    parser = _Parser(pattern)
    try:
        node = parser.parse()
    except RecursionError:
        parser.broken = True
        node = _Node("")
    if backtracking and not parser.broken and not parser.problems and node.ast is not None:
        for shape in redos.static_problems(node.ast, pattern, parser.ignore_case):
            parser.problem(shape.pos, shape.construct, shape.hint, slow=True)
    literals = _best(node.required, node.exact) or set()
    if parser.ignore_case:
        literals = {s.lower() for s in literals}
    literals = {s[:MAX_LITERAL] for s in literals}
    # A literal that contains another is redundant in an "any of these" set.
    kept = sorted(s for s in literals if not any(o != s and o in s for o in literals))
    return Analysis(
        problems=parser.problems,
        js_source=node.js,
        js_flags="iu" if parser.ignore_case else "u",
        literals=kept,
        specificity=node.literal_chars,
        ignore_case=parser.ignore_case,
        anchored=parser.anchored,
        broken=parser.broken,
        tree=None if parser.broken else node.ast,
    )


# The shapes the catalog's harvest writes (generator/harvest/templates.py): escaped syntax characters, plain
# characters, `.` for a control character, and holes `(.+?)`, `(.+)`, `([^c\n]+?)`.
_HOLE_CLASS = r"\[\^(?:\\[\\\]^\-\[]|[^\\\]\n\[^\-])\\n\]"
_FAST = re.compile(r"(\\[^\n])|(\.)|(\((?:\.|" + _HOLE_CLASS + r")\+\??\))|([^\\\[\](){}|.*+?^$]+)")
_PLAIN_JS = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029/]*")  # characters _js_char leaves as they are (outside a class)


def js_source_fast(pattern: str) -> str | None:
    """`analyse(pattern).js_source` for a pattern made only of the shapes the harvest writes, without parsing it
    into a tree (a build converts tens of thousands); None for any other pattern, which `analyse` then reads.
    tests/test_portable_fast.py holds the two to the same answer over the whole catalog."""
    out, pos = [], 0
    for m in _FAST.finditer(pattern):
        if m.start() != pos:
            return None
        pos = m.end()
        esc, dot, hole, char = m.groups()
        if esc is not None:
            if esc[1] in _SIMPLE_ESCAPES:
                out.append(_js_char(_SIMPLE_ESCAPES[esc[1]]))
            elif esc[1] in _JS_SYNTAX:
                out.append(esc)
            else:
                return None
        elif dot is not None:
            out.append("[^\\n]")
        elif hole is not None:
            lazy = "?" if hole.endswith("?)") else ""
            if hole.startswith("(."):
                out.append(f"([^\\n]+{lazy})")
            else:
                c = hole[3:hole.rindex("\\n]")]
                c = c[1:] if c.startswith("\\") else c
                out.append(f"([^{_js_char(c, True)}\\x0a]+{lazy})")
        else:
            out.append(char if _PLAIN_JS.fullmatch(char) else "".join(_js_char(c) for c in char))
    return "".join(out) if pos == len(pattern) and pattern else None


# A pattern that is only text: plain characters (no control, surrogate or line separator) and ASCII punctuation or
# `\t`, `\n`, `\r`, `\f`, `\v` after a backslash, which RE2 and JavaScript read as the same characters.
_TEXT_ONLY = re.compile(r"(?:\\[!-/:-@\[-^`{-~ntrfv]|[^\\\[\](){}|.*+?^$\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff])+")
_ESCAPED = re.compile(r"\\(.)")


def literal_text(pattern: str) -> str | None:
    """The text `pattern` stands for when it is nothing but text (the shape the harvest writes for a message with
    no hole: most of the catalog), else None. Such a pattern is portable, cannot backtrack and matches exactly
    where its text occurs, so the catalog's checks read it without a parse or RE2 (generator.checks.catalog);
    tests/test_portable_fast.py holds this to `analyse` and RE2 over the whole catalog."""
    if not _TEXT_ONLY.fullmatch(pattern):
        return None
    return _ESCAPED.sub(lambda m: _SIMPLE_ESCAPES.get(m.group(1), m.group(1)), pattern)


TAIL_HOLE = "(.+)"  # the hole the harvest writes for a message that ends in a value
INNER_HOLE = "(.+?)"  # ... and between two texts when the second starts with a letter, a digit or `_`


def text_shape(pattern: str) -> tuple[tuple[str, ...], bool] | None:
    """(texts, value after) for the catalog's simplest shapes: text alone (`literal_text`), text then one `(.+)`,
    or two texts with one `(.+?)` between them; None for any other pattern (one repetition at most: none of these
    can backtrack). Such a pattern matches where its first text occurs, then its second after at least one
    character, then, with a value after, one character more, all on one line (`shape_found`)."""
    tail = pattern.endswith(TAIL_HOLE)
    parts = (pattern[:-len(TAIL_HOLE)] if tail else pattern).split(INNER_HOLE)
    if len(parts) > 2 or (tail and len(parts) == 2):
        return None
    texts = tuple(literal_text(part) for part in parts)
    return None if None in texts else (texts, tail)  # type: ignore[return-value]


def shape_literal(shape: tuple[tuple[str, ...], bool]) -> str:
    """The prefilter literal `analyse` gives a pattern of `shape` (text_shape), without a parse: its longest text (of
    equals, the first), cut to MAX_LITERAL characters; tests/test_portable_fast.py holds it to `analyse`."""
    return max(shape[0], key=len)[:MAX_LITERAL]


def shape_found(shape: tuple[tuple[str, ...], bool], line: str) -> bool:
    """Whether a pattern of `shape` (text_shape) matches somewhere in `line`, a line with no line break."""
    return shape_match(shape[0], shape[1], line) is not None


def shape_match(texts: tuple[Any, ...], tail: bool, line: Any) -> tuple[int, int, tuple[Any, ...]] | None:
    """(start, end, values) of the match RE2 finds of a pattern of a text shape (text_shape: `texts`, `tail`) in
    `line` (text, or bytes with the texts as bytes), a line with no line break; None when there is none. Its first
    text's first occurrence leaves the most room for what follows, so it is where the match starts; the lazy hole
    between two texts ends at the second's first occurrence at least one character on; a value after takes the
    rest of the line. tests/test_portable_fast.py holds it to RE2."""
    at = line.find(texts[0])
    if at < 0:
        return None
    end = at + len(texts[0])
    if len(texts) == 2:
        close = line.find(texts[1], end + 1)
        return None if close < 0 else (at, close + len(texts[1]), (line[end:close],))
    if tail:
        return (at, len(line), (line[end:],)) if end < len(line) else None
    return at, end, ()

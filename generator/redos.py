"""Patterns that backtrack too long: found by structure (RGX005) and by running them (RGX007).

RE2 runs every pattern in linear time, but the site runs them in browsers, whose engines backtrack: a pattern
that can match one piece of text in many ways makes them try every way before they give up. Two shapes do it:

  - exponential: a repetition whose body can match the same text in more than one way, so that each
    iteration doubles the ways: nested repetition (`(a+)+`, `(?:a{1,20}){1,20}`), a repeated alternation whose
    branches overlap (`(?:\\d|\\w)*`, `(?:\\w|[^"])*`), a repeated body whose end can give characters to its
    next iteration (`(?:a?b?)*`);
  - polynomial: two unbounded repetitions in a row whose characters overlap, with nothing between them that
    only one of them can match (`\\d*\\d*`, `\\w+\\d+`, `.*.*`, `.*x.*` on `xxxx`): each added one multiplies
    the work by the length of the line.

`static_problems(ast)` finds those shapes in the parsed pattern (generator.portable builds the tree);
`slow_input(ast)` runs the pattern in a small backtracking engine with JavaScript's semantics for the portable
subset, on inputs made from the pattern's own structure (a repeated piece pumped many times, then a character
that makes the match fail), counting steps; a count that grows faster than the input, or passes a budget,
is a pattern the browser would hang on. Steps, not seconds: the verdict is the same on every machine.
"""

from __future__ import annotations

import sys
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

MAX_CHAR = 0x10FFFF


# -- character sets ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CharSet:
    """A set of code points as sorted, disjoint, inclusive ranges."""

    ranges: tuple[tuple[int, int], ...] = ()

    @staticmethod
    def of(*items: str | tuple[str, str]) -> CharSet:
        return CharSet.build((ord(x), ord(x)) if isinstance(x, str) else (ord(x[0]), ord(x[1])) for x in items)

    @staticmethod
    def build(ranges) -> CharSet:
        out: list[list[int]] = []
        for lo, hi in sorted(ranges):
            if lo > hi:
                continue
            if out and lo <= out[-1][1] + 1:
                out[-1][1] = max(out[-1][1], hi)
            else:
                out.append([lo, hi])
        return CharSet(tuple((a, b) for a, b in out))

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __or__(self, other: CharSet) -> CharSet:
        return CharSet.build(self.ranges + other.ranges)

    def __and__(self, other: CharSet) -> CharSet:
        out, i, j = [], 0, 0
        a, b = self.ranges, other.ranges
        while i < len(a) and j < len(b):
            lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        return CharSet(tuple(out))

    def __invert__(self) -> CharSet:
        out, start = [], 0
        for lo, hi in self.ranges:
            if lo > start:
                out.append((start, lo - 1))
            start = hi + 1
        if start <= MAX_CHAR:
            out.append((start, MAX_CHAR))
        return CharSet(tuple(out))

    def __contains__(self, c: str) -> bool:
        code = ord(c)
        i = bisect_right(self.ranges, (code, MAX_CHAR + 1)) - 1
        return i >= 0 and self.ranges[i][0] <= code <= self.ranges[i][1]

    def pick(self, prefer: str) -> str:
        """A member: the first of `prefer` that is in the set, else the smallest printable one."""
        for c in prefer:
            if c in self:
                return c
        for lo, hi in self.ranges:
            for code in range(max(lo, 0x21), min(hi, 0x21 + 256) + 1):
                return chr(code)
        return chr(self.ranges[0][0])

    def folded(self) -> CharSet:
        """Closed under case (what `(?i)` makes of it); outside ASCII it counts every character, to be safe."""
        extra: list[tuple[int, int]] = []
        for lo, hi in self.ranges:
            for code in range(max(lo, 0x41), min(hi, 0x7A) + 1):
                c = chr(code)
                if c.isalpha():
                    extra.append((ord(c.swapcase()), ord(c.swapcase())))
            if hi >= 0x80:
                extra.append((0x80, MAX_CHAR))
        if self & CharSet.of("k", "K", "s", "S"):
            extra.append((0x80, MAX_CHAR))  # the Kelvin sign and the long s fold to k and s
        return self | CharSet.build(extra)

    def show(self) -> str:
        c = self.pick("1a_ .-:/\"'")
        return repr(c)


NONE = CharSet()
ANY = CharSet(((0, MAX_CHAR),))
DIGIT = CharSet.of(("0", "9"))
WORD = CharSet.of(("0", "9"), ("A", "Z"), "_", ("a", "z"))
SPACE = CharSet.of("\t", "\n", "\f", "\r", " ")
NOT_NEWLINE = ~CharSet.of("\n")
NON_ASCII = CharSet(((0x80, MAX_CHAR),))


def unicode_class(name: str, negated: bool) -> CharSet:
    """`\\p{name}`: exact over ASCII, every non-ASCII character (more than the truth: safe for these checks)."""
    if name in ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps",
                "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "Cc", "Cf"):
        ascii_members = [chr(c) for c in range(0x80) if unicodedata.category(chr(c)).startswith(name)]
    else:  # a script: only Latin has ASCII members
        ascii_members = [chr(c) for c in range(0x80) if chr(c).isalpha()] if name == "Latin" else []
    inside = CharSet.of(*ascii_members)
    if negated:
        inside = ~inside & CharSet(((0, 0x7F),))
    return inside | NON_ASCII


# -- the pattern as a tree ---------------------------------------------------------------------------------------
@dataclass(eq=False)
class Lit:
    text: str


@dataclass(eq=False)
class Chars:
    chars: CharSet


@dataclass(eq=False)
class Cat:
    items: list


@dataclass(eq=False)
class Alt:
    branches: list
    pos: int = 0
    source: str = ""
    sources: list[str] = field(default_factory=list)  # each branch as written


@dataclass(eq=False)
class Rep:
    child: object
    lo: int
    hi: int | None
    lazy: bool
    pos: int = 0  # where the repeated atom starts
    source: str = ""  # the atom and its quantifier, as written

    @property
    def repeats(self) -> bool:
        return self.hi is None or self.hi > 1


@dataclass(eq=False)
class Assert:
    kind: str  # ^ $ b B


# -- structure -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    """A construct that backtracks, with its position and how to fix it."""

    pos: int
    construct: str
    hint: str


@dataclass
class _Props:
    chars: CharSet
    first: CharSet
    nullable: bool
    head_loop: CharSet = NONE  # characters of unbounded repetitions a match can start in
    tail_loop: CharSet = NONE  # ... and end in
    head_elastic: CharSet = NONE  # the same for any repetition of variable count (`?`, `{1,3}`, `*`)
    tail_elastic: CharSet = NONE
    unbounded: bool = False
    latent: list[Shape] = field(default_factory=list)  # harmless once, exponential when repeated
    pending: list[Shape] = field(default_factory=list)  # polynomial if something after this can fail


_HINT_PAIR = ("two repetitions in a row that can match the same characters make a backtracking engine try every "
              "split of the text between them: merge them into one (`\\d+` for `\\d*\\d+`), or put between them a "
              "character only one of them matches")
_HINT_ALT = ("a repeated alternation whose branches can match the same text makes a backtracking engine try every "
             "combination: make the branches disjoint (`[\\w-]` for `(?:\\w|-)`, `[^\"]` for `(?:\\w|[^\"])`)")
_HINT_NESTED = ("a repetition of something whose length varies makes a backtracking engine try every way to cut the "
                "text into iterations: repeat one class instead (`a{1,400}` for `(?:a{1,20}){1,20}`), or end the "
                "repeated part with a character its start cannot match (`(?:\\d{1,3}\\.){3}`)")


class _Static:
    def __init__(self, pattern: str, fold: bool):
        self.pattern, self.fold = pattern, fold
        self.problems: list[Shape] = []

    def cs(self, chars: CharSet) -> CharSet:
        return chars.folded() if self.fold else chars

    def props(self, node) -> _Props:
        if isinstance(node, Lit):
            chars = self.cs(CharSet.of(*node.text)) if node.text else NONE
            return _Props(chars, self.cs(CharSet.of(node.text[0])) if node.text else NONE, not node.text)
        if isinstance(node, Chars):
            chars = self.cs(node.chars)
            return _Props(chars, chars, False)
        if isinstance(node, Assert):
            return _Props(NONE, NONE, True)
        if isinstance(node, Alt):
            return self.alternation(node)
        if isinstance(node, Cat):
            return self.concat(node)
        if isinstance(node, Rep):
            return self.repetition(node)
        raise TypeError(node)

    def alternation(self, node: Alt) -> _Props:
        ps = [self.props(b) for b in node.branches]
        out = _Props(NONE, NONE, any(p.nullable for p in ps))
        for p in ps:
            out.chars |= p.chars
            out.first |= p.first
            out.head_loop |= p.head_loop
            out.tail_loop |= p.tail_loop
            out.head_elastic |= p.head_elastic
            out.tail_elastic |= p.tail_elastic
            out.unbounded |= p.unbounded
            out.latent += p.latent
            out.pending += p.pending
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                common = self.overlap(node.branches[i], node.branches[j], ps[i], ps[j])
                if common is not None:
                    out.latent.append(Shape(node.pos, f"an alternation `{node.source}` whose branches `{_src(node, i)}` "
                                            f"and `{_src(node, j)}` can both match {common}", _HINT_ALT))
        return out

    def overlap(self, a, b, pa: _Props, pb: _Props) -> str | None:
        """Something both branches can match (as it would be shown), or None."""
        la, lb = _literal_text(a), _literal_text(b)
        if la is not None and lb is not None:
            if self.fold:
                la, lb = la.lower(), lb.lower()
            if la.startswith(lb) or lb.startswith(la):  # `a|ab`: one is a way to start the other
                return repr(min(la, lb, key=len))
            return None
        if pa.nullable and pb.nullable:
            return "the empty string"
        common = pa.first & pb.first
        return common.show() if common else None

    def concat(self, node: Cat) -> _Props:
        ps = [self.props(n) for n in node.items]
        out = _Props(NONE, NONE, all(p.nullable for p in ps))
        for p in ps:
            out.chars |= p.chars
            out.unbounded |= p.unbounded
            out.latent += p.latent
        for p in ps:
            out.first |= p.first
            out.head_loop |= p.head_loop
            out.head_elastic |= p.head_elastic
            if not p.nullable:
                break
        for p in reversed(ps):
            out.tail_loop |= p.tail_loop
            out.tail_elastic |= p.tail_elastic
            if not p.nullable:
                break
        # A pending shape inside an item becomes real when a later item can fail.
        for k, p in enumerate(ps):
            if p.pending:
                if any(self.can_fail(q, n) for q, n in zip(ps[k + 1:], node.items[k + 1:])):
                    self.problems.extend(p.pending)
                else:
                    out.pending += p.pending
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                for loops, kind in ((ps[i].tail_loop & ps[j].head_loop, "loop"), (ps[i].tail_elastic & ps[j].head_elastic, "elastic")):
                    if not loops or not all(self.passes(n, loops) for n in node.items[i + 1:j]):
                        continue
                    left, right = _tail_rep(node.items[i]), _head_rep(node.items[j])
                    shape = Shape(right.pos if right else 0,
                                  f"repetitions `{left.source if left else '?'}` and `{right.source if right else '?'}` in a row that can both match {loops.show()}",
                                  _HINT_PAIR)
                    if kind == "elastic":
                        out.latent.append(shape)
                    elif any(self.can_fail(q, n) for q, n in zip(ps[j + 1:], node.items[j + 1:])):
                        self.problems.append(shape)
                    else:
                        out.pending.append(shape)
                    break
        return out

    def can_fail(self, p: _Props, node) -> bool:
        return not p.nullable or _has_assert(node)

    def passes(self, node, chars: CharSet) -> bool:
        """Can `node` match some text made only of `chars` (so it does not separate two repetitions)?"""
        if isinstance(node, Lit):
            return all(self.cs(CharSet.of(c)) & chars for c in node.text)
        if isinstance(node, Chars):
            return bool(self.cs(node.chars) & chars)
        if isinstance(node, Assert):
            return True
        if isinstance(node, Cat):
            return all(self.passes(n, chars) for n in node.items)
        if isinstance(node, Alt):
            return any(self.passes(b, chars) for b in node.branches)
        if isinstance(node, Rep):
            return node.lo == 0 or self.passes(node.child, chars)
        return True

    def repetition(self, node: Rep) -> _Props:
        p = self.props(node.child)
        out = _Props(p.chars, p.first, node.lo == 0 or p.nullable, p.head_loop, p.tail_loop, p.head_elastic,
                     p.tail_elastic, p.unbounded or node.hi is None, list(p.latent), list(p.pending))
        if node.hi is None:
            out.head_loop = out.tail_loop = out.head_loop | p.chars
        if node.hi is None or node.hi > node.lo:
            out.head_elastic = out.tail_elastic = out.head_elastic | p.chars
        if not node.repeats:
            return out
        # Repeated: what was harmless once multiplies with every iteration.
        self.problems.extend(out.pending)
        out.pending = []
        if p.unbounded:
            return out  # nested unbounded repetition: generator.portable reports it
        self.problems.extend(Shape(s.pos, f"{s.construct}, repeated by `{node.source}`", s.hint) for s in p.latent)
        out.latent = []
        common = p.tail_elastic & p.first
        if common and not p.latent:
            inner = next((r for r in _tail_reps(node.child) if self.props(r.child).chars & p.first), None)
            if inner is not None:
                common = self.props(inner.child).chars & p.first
            what = f"`{inner.source}`" if inner else "a part whose length varies"
            self.problems.append(Shape(node.pos, f"nested repetition: `{node.source}` repeats {what}, so one iteration can end "
                                       f"with a {common.show()} the next could start with", _HINT_NESTED))
        return out


def _src(node: Alt, i: int) -> str:
    return node.sources[i] if i < len(node.sources) else "…"


def _literal_text(node) -> str | None:
    if isinstance(node, Lit):
        return node.text
    if isinstance(node, Cat) and all(isinstance(n, Lit) for n in node.items):
        return "".join(n.text for n in node.items)
    return None


def _has_assert(node) -> bool:
    if isinstance(node, Assert):
        return node.kind != "^"
    if isinstance(node, (Cat, Alt)):
        return any(_has_assert(n) for n in (node.items if isinstance(node, Cat) else node.branches))
    if isinstance(node, Rep):
        return _has_assert(node.child)
    return False


def _has_end_anchor(node) -> bool:
    if isinstance(node, Assert):
        return node.kind == "$"
    if isinstance(node, (Cat, Alt)):
        return any(_has_end_anchor(n) for n in (node.items if isinstance(node, Cat) else node.branches))
    if isinstance(node, Rep):
        return _has_end_anchor(node.child)
    return False


def _tail_reps(node) -> Iterator[Rep]:
    """The variable repetitions a match of `node` can end in, last first."""
    if isinstance(node, Rep):
        if node.hi is None or node.hi > node.lo:
            yield node
        if node.hi is None or node.hi > node.lo or node.lo == 0:
            yield from _tail_reps(node.child)
    elif isinstance(node, Cat):
        for n in reversed(node.items):
            yield from _tail_reps(n)
            if not (isinstance(n, Assert) or isinstance(n, Rep) and n.lo == 0):
                return
    elif isinstance(node, Alt):
        for b in node.branches:
            yield from _tail_reps(b)


def _tail_rep(node) -> Rep | None:
    """The variable repetition a match of `node` can end in (for messages)."""
    if isinstance(node, Rep):
        if node.hi is None or node.hi > node.lo:
            return node
        return _tail_rep(node.child)
    if isinstance(node, Cat):
        for n in reversed(node.items):
            r = _tail_rep(n)
            if r is not None:
                return r
            if not isinstance(n, Assert):
                return None
    if isinstance(node, Alt):
        for b in node.branches:
            r = _tail_rep(b)
            if r is not None:
                return r
    return None


def _head_rep(node) -> Rep | None:
    if isinstance(node, Rep):
        if node.hi is None or node.hi > node.lo:
            return node
        return _head_rep(node.child)
    if isinstance(node, Cat):
        for n in node.items:
            r = _head_rep(n)
            if r is not None:
                return r
            if not isinstance(n, Assert):
                return None
    if isinstance(node, Alt):
        for b in node.branches:
            r = _head_rep(b)
            if r is not None:
                return r
    return None


def static_problems(ast, pattern: str = "", ignore_case: bool = False) -> list[Shape]:
    """The backtracking shapes in a parsed pattern, each once, in order of position."""
    s = _Static(pattern, ignore_case)
    s.props(ast)  # latent and pending shapes left at the top run once, with nothing after them to fail: harmless
    seen, out = set(), []
    for shape in sorted(s.problems, key=lambda x: x.pos):
        if (shape.pos, shape.construct) not in seen:
            seen.add((shape.pos, shape.construct))
            out.append(shape)
    return out


# -- running it ----------------------------------------------------------------------------------------------------
class _OutOfSteps(Exception):
    pass


class Backtracker:
    """A backtracking matcher for the tree, with JavaScript's order of trying (greedy or lazy, branches left
    to right, an iteration that matches nothing ends a loop) and no shortcuts, counting the steps it takes.
    The tree is turned into closures once; each takes a position and what to do next (a continuation)."""

    def __init__(self, ast, ignore_case: bool, budget: int):
        self.fold, self.budget = ignore_case, budget
        self.steps = 0
        self.text = self.lower = ""
        self.run = self._compile(ast)

    def attempt(self, text: str, start: int = 0) -> int:
        """Steps one match attempt at `start` takes (the budget plus one when it runs out)."""
        self.steps = 0
        self.text = text
        self.lower = text.lower() if self.fold else text
        try:
            self.run(start, lambda p: True)
        except _OutOfSteps:
            return self.budget + 1
        return self.steps

    def _compile(self, node) -> Callable[[int, Callable[[int], bool]], bool]:
        kind = type(node)
        if kind is Lit:
            lit, size = (node.text.lower() if self.fold else node.text), len(node.text)

            def f(pos, k):
                self.steps += 1
                if self.steps > self.budget:
                    raise _OutOfSteps
                return self.lower.startswith(lit, pos) and k(pos + size)
            return f
        if kind is Chars:
            chars = node.chars.folded() if self.fold else node.chars
            known: dict[str, bool] = {}  # membership by character (a few distinct ones per text)

            def f(pos, k):
                self.steps += 1
                if self.steps > self.budget:
                    raise _OutOfSteps
                if pos >= len(self.text):
                    return False
                c = self.text[pos]
                inside = known.get(c)
                if inside is None:
                    inside = known[c] = c in chars
                return inside and k(pos + 1)
            return f
        if kind is Cat:
            parts = [self._compile(n) for n in node.items]
            if not parts:
                return lambda pos, k: k(pos)
            f = parts[-1]
            for g in reversed(parts[:-1]):
                f = (lambda g, h: lambda pos, k: g(pos, lambda p: h(p, k)))(g, f)
            return f
        if kind is Alt:
            branches = [self._compile(b) for b in node.branches]
            return lambda pos, k: any(b(pos, k) for b in branches)
        if kind is Rep:
            return self._repetition(node)
        if kind is Assert:
            which = node.kind

            def f(pos, k):
                t = self.text
                if which == "^":
                    ok = pos == 0
                elif which == "$":
                    ok = pos == len(t)
                else:
                    before = pos > 0 and t[pos - 1] in WORD
                    after = pos < len(t) and t[pos] in WORD
                    ok = (before != after) == (which == "b")
                return ok and k(pos)
            return f
        raise TypeError(node)

    def _repetition(self, node: Rep):
        child, lo, hi, lazy = self._compile(node.child), node.lo, node.hi, node.lazy

        def rep(count: int, pos: int, k) -> bool:
            self.steps += 1
            if self.steps > self.budget:
                raise _OutOfSteps
            if count < lo:
                return child(pos, lambda p: rep(count + 1, p, k))
            if hi is not None and count >= hi:
                return k(pos)
            if lazy:
                return k(pos) or child(pos, lambda p: p != pos and rep(count + 1, p, k))
            return child(pos, lambda p: p != pos and rep(count + 1, p, k)) or k(pos)

        return lambda pos, k: rep(0, pos, k)


SIZES = (16, 32, 64)  # how many times the repeated piece is pumped
BUDGET = 100_000  # steps for one attempt: a linear pattern needs a few hundred at these sizes
PREFER = ("1a_ .:/-\"'", "a1_ .:/-\"'", " a1_.:/-\"'")  # which member of a class stands for it


def _witness(node, target, pump: int, prefer: str, out: list[str], full: bool = False, every: bool = False) -> bool:
    """Append the shortest text `node` matches, with `target` (a repetition) pumped `pump` times; True once the
    target has been written (the rest of the pattern is then left out, so that the match fails). `full`: take
    each optional part once (the pumped piece must not be empty); `every`: the pumped piece takes every branch
    of its alternations in turn (`(?:a|b|ab)*` is slow on `abab`, not on `aaaa`)."""
    if node is target:
        piece: list[str] = []
        _witness(node.child, None, 0, prefer, piece, full=every, every=every)
        if not "".join(piece):
            piece = []
            _witness(node.child, None, 0, prefer, piece, full=True)
        out.append("".join(piece) * pump)
        return True
    if isinstance(node, Lit):
        out.append(node.text)
    elif isinstance(node, Chars):
        out.append(node.chars.pick(prefer) if node.chars else "")
    elif isinstance(node, Cat):
        for n in node.items:
            if _witness(n, target, pump, prefer, out, full, every):
                return True
    elif isinstance(node, Alt):
        inside = next((b for b in node.branches if _contains(b, target)), None)
        if inside is not None or not every:
            return _witness(inside or node.branches[0], target, pump, prefer, out, full, every)
        for b in node.branches:
            _witness(b, None, 0, prefer, out, full, every)
    elif isinstance(node, Rep):
        times = max(node.lo, 1) if full or _contains(node.child, target) else node.lo
        for _ in range(times):
            if _witness(node.child, target, pump, prefer, out, full, every):
                return True
    return False


def _contains(node, target) -> bool:
    if target is None:
        return False
    if node is target:
        return True
    if isinstance(node, Cat):
        return any(_contains(n, target) for n in node.items)
    if isinstance(node, Alt):
        return any(_contains(b, target) for b in node.branches)
    if isinstance(node, Rep):
        return _contains(node.child, target)
    return False


def _text(node) -> str:
    out: list[str] = []
    _witness(node, None, 0, PREFER[0], out)
    return "".join(out)


def _repetitions(node, after: str = "") -> Iterator[tuple[Rep, str]]:
    """Each repetition, with a short text of what follows it in the pattern."""
    if isinstance(node, Rep):
        if node.repeats:
            yield node, after
        yield from _repetitions(node.child, _text(node.child) + after if node.repeats else after)
    elif isinstance(node, Cat):
        for i, n in enumerate(node.items):
            yield from _repetitions(n, "".join(_text(m) for m in node.items[i + 1:]) + after)
    elif isinstance(node, Alt):
        for b in node.branches:
            yield from _repetitions(b, after)


def _alphabet(node) -> CharSet:
    if isinstance(node, Lit):
        return CharSet.of(*node.text) if node.text else NONE
    if isinstance(node, Chars):
        return node.chars
    if isinstance(node, (Cat, Alt)):
        out = NONE
        for n in node.items if isinstance(node, Cat) else node.branches:
            out |= _alphabet(n)
        return out
    if isinstance(node, Rep):
        return _alphabet(node.child)
    return NONE


@dataclass(frozen=True)
class Attack:
    """One adversarial input family: the text that reaches `rep`, its body pumped n times, then `end`."""

    ast: object
    rep: Rep
    prefer: str
    end: str
    every: bool = False  # the pumped piece takes every branch of its alternations

    def text(self, n: int) -> str:
        parts: list[str] = []
        _witness(self.ast, self.rep, n, self.prefer, parts, every=self.every)
        return "".join(parts) + self.end


def attacks(ast, ignore_case: bool = False) -> Iterator[Attack]:
    """For each repetition: each class spelled by a digit, a letter, a space, or the text that follows the
    repetition (`.*x.*!` is slow on `xxxx`, not on `1111`); the text ends with a character the pattern never
    matches (or, when it matches them all, nothing, or a line break before a `$`), so that every way of
    matching fails. The pumped piece is the shortest text the
    repeated part matches, or one that takes every branch of its alternations."""
    alphabet = _alphabet(ast).folded() if ignore_case else _alphabet(ast)
    outside = next((c for c in "\x00!~" if c not in alphabet), "")
    # Without such a character the text just ends there; a `$` would accept that, a line break it may not.
    ends = (outside,) if outside else ("", "\n") if _has_end_anchor(ast) else ("",)
    seen: set[str] = set()
    for rep, after in _repetitions(ast):
        for every in (False, True):
            for prefer in (*PREFER, after + PREFER[0]):
                for end in ends:
                    attack = Attack(ast, rep, prefer, end, every)
                    key = attack.text(SIZES[0])
                    if key not in seen:
                        seen.add(key)
                        yield attack


@dataclass(frozen=True)
class Slow:
    """An input on which the pattern backtracks too long: what was pumped, and the steps it took."""

    attack: Attack
    steps: tuple[int, ...]

    @property
    def rep(self) -> Rep:
        return self.attack.rep

    @property
    def text(self) -> str:
        return self.attack.text(SIZES[len(self.steps) - 1])

    def __str__(self) -> str:
        text = self.text
        shown = text if len(text) <= 60 else text[:40] + "…" + text[-12:]
        grow = ", ".join(f"{s:,}" if s <= BUDGET else f"over {BUDGET:,}" for s in self.steps)
        times = ", ".join(str(n) for n in SIZES[:len(self.steps)])
        return f"`{self.rep.source}` repeated {times} times ({shown!r}) takes a backtracking engine {grow} steps"


def slow_input(ast, ignore_case: bool = False, budget: int = BUDGET) -> Slow | None:
    """Run the pattern on adversarial inputs (`attacks`), each pumped 16, 32 and 64 times; the first on which
    it backtracks too long, or None. Too long means: over `budget` steps in one attempt, or work that grows
    faster than the text (the growth from 32 to 64 more than 3 times that from 16 to 32; linear work doubles)."""
    engine = Backtracker(ast, ignore_case, budget)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        for attack in attacks(ast, ignore_case):
            steps: list[int] = []
            for n in SIZES:
                steps.append(engine.attempt(attack.text(n)))
                if steps[-1] > budget:
                    return Slow(attack, tuple(steps))
            d1, d2 = steps[-2] - steps[-3], steps[-1] - steps[-2]
            if d2 > 3 * max(d1, 1) and d2 > 64:
                return Slow(attack, tuple(steps))
    finally:
        sys.setrecursionlimit(limit)
    return None

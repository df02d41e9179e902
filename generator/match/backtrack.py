"""Running a pattern in a small backtracking engine with JavaScript's order of trying, counting steps (RGX007).

See generator.match.redos for the shapes this catches and why; `slow_input(ast)` is the entry point.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .redos import has_end_anchor
from .regextree import Alt, Assert, Cat, CharSet, Chars, Lit, NONE, Rep, WORD


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
    ends = (outside,) if outside else ("", "\n") if has_end_anchor(ast) else ("",)
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

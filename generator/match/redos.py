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

`static_problems(ast)` finds those shapes in the parsed pattern (generator.match.portable builds the tree);
`slow_input(ast)` runs the pattern in a small backtracking engine with JavaScript's semantics for the portable
subset, on inputs made from the pattern's own structure (a repeated piece pumped many times, then a character
that makes the match fail), counting steps; a count that grows faster than the input, or passes a budget,
is a pattern the browser would hang on. Steps, not seconds: the verdict is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .regextree import Alt, Assert, Cat, CharSet, Chars, Lit, NONE, Rep


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
            chars = self.cs(CharSet.of_text(node.text)) if node.text else NONE
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
        # only items that end in a repetition, before items that start in one, can make a pair (the rest intersect
        # in nothing): a run of plain text is tens of items, none of them either
        ends = [i for i, p in enumerate(ps) if p.tail_loop or p.tail_elastic]
        starts = [j for j, p in enumerate(ps) if p.head_loop or p.head_elastic]
        for i in ends:
            for j in (j for j in starts if j > i):
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
            return out  # nested unbounded repetition: generator.match.portable reports it
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


def has_end_anchor(node) -> bool:
    if isinstance(node, Assert):
        return node.kind == "$"
    if isinstance(node, (Cat, Alt)):
        return any(has_end_anchor(n) for n in (node.items if isinstance(node, Cat) else node.branches))
    if isinstance(node, Rep):
        return has_end_anchor(node.child)
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


def _edge_rep(node, last: bool) -> Rep | None:
    """The variable repetition a match of `node` can end in (`last`) or start with (for messages)."""
    if isinstance(node, Rep):
        if node.hi is None or node.hi > node.lo:
            return node
        return _edge_rep(node.child, last)
    if isinstance(node, Cat):
        for n in (reversed(node.items) if last else node.items):
            r = _edge_rep(n, last)
            if r is not None:
                return r
            if not isinstance(n, Assert):
                return None
    if isinstance(node, Alt):
        for b in node.branches:
            r = _edge_rep(b, last)
            if r is not None:
                return r
    return None


def _tail_rep(node) -> Rep | None:
    return _edge_rep(node, last=True)


def _head_rep(node) -> Rep | None:
    return _edge_rep(node, last=False)
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

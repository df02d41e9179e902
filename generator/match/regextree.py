"""A parsed pattern as a tree, and the character sets its leaves match: what the backtracking checks work on.

generator.match.portable builds the tree while it parses; generator.match.redos reads its shape and generator.match.backtrack
runs it.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache


MAX_CHAR = 0x10FFFF


# -- character sets ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CharSet:
    """A set of code points as sorted, disjoint, inclusive ranges."""

    ranges: tuple[tuple[int, int], ...] = ()

    @staticmethod
    @lru_cache(maxsize=8192)  # a set is immutable: the same characters give one shared set
    def of(*items: str | tuple[str, str]) -> CharSet:
        return CharSet.build((ord(x), ord(x)) if isinstance(x, str) else (ord(x[0]), ord(x[1])) for x in items)

    @staticmethod
    @lru_cache(maxsize=65536)  # the same runs of text (words, separators) recur across a catalog's patterns
    def of_text(text: str) -> CharSet:
        """The characters of a text (a literal run: each distinct code point once, merged into ranges)."""
        return CharSet.build((code, code) for code in set(map(ord, text)))

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
        if not other.ranges or other.ranges == self.ranges:
            return self
        if not self.ranges:
            return other
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

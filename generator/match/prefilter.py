"""The matcher's literal prefilter: which lines of a block can hold a match at all, found in one pass.

Every portable pattern has fixed strings one of which every match contains (generator.match.portable). The prefilter
finds the lines of a block that hold a part of one of those literals (a window of KEY_CHARS characters, a key); only
those lines are tried with the patterns whose literals hold that key (generator.match.engine), which check the rest. Two
engines give the same lines: Hyperscan (one compiled database, serialisable, so a knowledge bundle ships it ready) and
RE2 (a set of every key, a DFA, then `bytes.find`), the fallback where Hyperscan is not installed. `Tables` is what
the matcher derives from its patterns, as plain data.
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import re2

from .rules import RULES, exception_name, partial_text
from .portable import analyse

# A key is a window of KEY_CHARS characters of a literal (the whole literal when shorter): thousands of catalog messages
# share their words, and one key for all of them keeps Hyperscan's database small (97,932 literals, 88,566 keys).
# Hyperscan's literal matcher sifts a text by the last bytes of its keys, and a key that ends as most text does (in a
# space or a lowercase letter) is confirmed at most positions of a log; so of a literal's windows the key is the
# first whose last character ranks lowest in KEY_END_RANK (a space 3, a lowercase letter 2, a digit or common
# punctuation 1, anything else 0). A cut-off line holds only the start of a message, so the key of its partial text
# is a window of that start. Against the literals' first KEY_CHARS characters, Hyperscan scans 20 MB of the bench log
# or of Python source in about 0.85x the time, and a whole `errdex match` of the bench log runs in 0.96x.
# RE2 looks for at most PREFILTER_CHARS of each key: its automaton for thousands of long keys outgrows its memory
# budget and falls back to a slow engine; 16 keeps it a fast DFA (>400 MB/s).
KEY_CHARS = 24
KEY_END_RANK = {" ": 3, **dict.fromkeys("abcdefghijklmnopqrstuvwxyz", 2), **dict.fromkeys("0123456789.,:/-'\"", 1)}
PREFILTER_CHARS = 16
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_BIG = re2.Options()  # thousands of literals in one automaton need a larger DFA budget than RE2's default 8 MiB
_BIG.log_errors = False
_BIG.max_mem = 256 << 20


@dataclass(frozen=True)
class Tables:
    """What the matcher derives from its patterns, as plain data: a knowledge bundle stores it, so that a matcher
    over tens of thousands of patterns starts without analysing any of them (`Matcher(..., tables=...)`).

    Per pattern: its specificity, whether it is anchored, its exception class's short name and the literals one of
    which every match holds (empty when case-folded). `keys` are the prefilter's keys as [text, folded], a window of
    each literal (`key_of`; Hyperscan looks for them whole, RE2 for their first PREFILTER_CHARS), `owners[k]` the
    patterns with a literal that holds key k (or a partial text that starts with it), in order, `always` the
    patterns without one."""

    specificity: list[int]
    anchored: list[bool]
    exception_names: list[str | None]
    full_literals: list[list[str]]
    partials: list[str]
    keys: list[list[Any]]
    owners: list[list[int]]
    always: list[int]

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Tables":
        return cls(**{name: doc[name] for name in cls.__dataclass_fields__})


def compile_tables(patterns: Sequence[Any], partial_min: int = RULES["partial_min_chars"]) -> Tables:
    """The matcher's tables for `patterns` (analysed with generator.match.portable where they carry no literals).
    A pattern's partial text (generator.match.rules.partial_text) is a key too, by its first `partial_min`
    characters: a cut-off line holds no more of it."""
    t = Tables([], [], [], [], [], [], [], [])
    key_index: dict[tuple[str, bool], int] = {}
    for index, p in enumerate(patterns):
        if p.literals is None or p.specificity is None or p.anchored is None:
            a = analyse(p.regex)
            literals, ignore_case, specificity, anchored = (() if a.broken else tuple(a.literals)), a.ignore_case, a.specificity, a.anchored
        else:
            literals, ignore_case, specificity, anchored = p.literals, p.ignore_case, p.specificity, p.anchored
        t.specificity.append(specificity)
        t.anchored.append(anchored)
        t.exception_names.append(exception_name(p.exception_class))
        t.full_literals.append([] if ignore_case else list(literals))
        run = "" if ignore_case else partial_text(p.message or "", partial_min)
        t.partials.append(run if utf8(run) else "")
        if not all(utf8(x) for x in literals):  # a lone surrogate: no UTF-8 line holds it, the pattern never runs
            continue
        if not literals:
            t.always.append(index)
            continue
        # A cut-off line holds the partial text's first `partial_min` characters (rules.partial_at): its key is a
        # window of those, and serves every literal that holds it too (most start with the partial text).
        head = key_of(t.partials[-1][:partial_min]) if t.partials[-1] else ""
        probes = [(head, False)] if head else []
        probes += [(key_of(lit, bool(ignore_case)), bool(ignore_case)) for lit in literals if not head or head not in lit]
        for key in probes:
            if key not in key_index:
                key_index[key] = len(t.keys)
                t.keys.append([key[0], key[1]])
                t.owners.append([])
            if not t.owners[key_index[key]] or t.owners[key_index[key]][-1] != index:
                t.owners[key_index[key]].append(index)
    return t


def key_of(literal: str, folded: bool = False) -> str:
    """The prefilter's key for `literal`: of its windows of KEY_CHARS characters, the first whose last character
    ranks lowest in KEY_END_RANK (as a lowercase letter when `folded`: the key matches either case); the literal
    itself when it is no longer."""
    if len(literal) <= KEY_CHARS:
        return literal
    best, end = 4, KEY_CHARS
    for at in range(KEY_CHARS, len(literal) + 1):
        rank = KEY_END_RANK.get(literal[at - 1].lower() if folded else literal[at - 1], 0)
        if rank < best:
            best, end = rank, at
            if not rank:
                break
    return literal[end - KEY_CHARS:end]


class Re2Literals:
    """The prefilter in RE2: one set of every literal (a DFA, one pass over a block says which occur), then
    `bytes.find` (or the folded literal's own RE2) locates each occurrence."""

    name = "re2"

    def __init__(self, keys: list[list[Any]]):
        self.finders: list[tuple[bytes, Any]] = []
        self.set = re2.Set.SearchSet(_BIG)
        for text, folded in keys:
            text = text[:PREFILTER_CHARS]  # a line that holds the start of a literal is a candidate; the matcher checks the rest
            key = f"(?i:{re2.escape(text)})" if folded else re2.escape(text)
            self.set.Add(key)  # in order: the set's indices are the keys' indices
            self.finders.append((text.encode("utf-8"), re2.compile(key, _OPTIONS) if folded else None))
        self.set.Compile()

    def lines(self, block: bytes, quiet: Container[bytes] = ()) -> list[tuple[int, int, set[int]]]:
        """(start, end, key indices) of each line of `block` that holds a key, in order; a line whose bytes are in
        `quiet` is left out."""
        lines: dict[int, tuple[int, set[int]]] = {}
        for li, pos in self.found(block):
            _line_at(block, pos, lines, quiet)[1][1].add(li)
        return _in_order(lines)

    def found(self, block: bytes) -> Iterator[tuple[int, int]]:
        """(key index, a byte offset inside the occurrence) of every occurrence of every key in `block`."""
        for li in self.set.Match(block) or ():
            literal, folded = self.finders[li]
            if folded is None:
                for pos in find_all(block, literal):
                    yield li, pos
            else:
                pos = 0
                while (m := folded.search(block, pos)) is not None:
                    yield li, m.start()
                    pos = m.start() + 1


class HyperscanLiterals:
    """The prefilter in Hyperscan: one database of every literal, compiled once (a knowledge bundle stores it
    serialised) and scanned a block at a time; it reports every occurrence's end, overlapping ones included,
    which is what Re2Literals finds, so both give the same lines."""

    name = "hyperscan"

    def __init__(self, tables: Tables, serialised: bytes | None = None):
        import hyperscan

        self.database = None
        if serialised:
            try:
                self.database = hyperscan.loadb(serialised, hyperscan.HS_MODE_BLOCK)
            except Exception:  # made by another Hyperscan or for another CPU: compile here instead
                self.database = None
        if self.database is None:
            self.database = hyperscan_database(tables.keys)
        self.scratch = hyperscan.Scratch(self.database) if self.database is not None else None

    def lines(self, block: bytes, quiet: Container[bytes] = ()) -> list[tuple[int, int, set[int]]]:
        """(start, end, key indices) of each line of `block` that holds a key, in order; a line whose bytes are in
        `quiet` is left out. Each occurrence is put on its line as Hyperscan reports it (by its last byte: on the
        line that holds the occurrence); occurrences come by their end, so most fall on the line of the one
        before, which costs one comparison."""
        if self.database is None:
            return []
        lines: dict[int, tuple[int, set[int]]] = {}
        last = [1, 0, _QUIET]  # the line of the occurrence before: start, end, its keys

        def on_match(key: int, start: int, end: int, flags: int, context: Any) -> None:
            pos = end - 1
            if last[0] <= pos <= last[1]:
                last[2].add(key)
                return
            low, (stop, keys) = _line_at(block, pos, lines, quiet)
            last[0], last[1], last[2] = low, stop, keys
            keys.add(key)

        self.database.scan(block, match_event_handler=on_match, scratch=self.scratch)
        return _in_order(lines)


class _Dropped(set):
    """The key set of a line left out: keys added to it are dropped (the line is not looked at)."""

    def add(self, key: Any) -> None:
        pass


_QUIET = _Dropped()


def _line_at(block: bytes, pos: int, lines: dict[int, tuple[int, set[int]]], quiet: Container[bytes]) -> tuple[int, tuple[int, set[int]]]:
    """The line of `block` that holds byte `pos`: its start, and its (end, keys) in `lines`, entered there when new
    (with _QUIET for keys when its bytes are in `quiet`)."""
    low = block.rfind(b"\n", 0, pos) + 1
    entry = lines.get(low)
    if entry is None:
        stop = block.find(b"\n", pos)
        stop = len(block) if stop < 0 else stop
        lines[low] = entry = (stop, _QUIET if block[low:stop] in quiet else set())
    return low, entry


def _in_order(lines: dict[int, tuple[int, set[int]]]) -> list[tuple[int, int, set[int]]]:
    """(start, end, keys) of the lines entered by _line_at, in order, those left out dropped."""
    return [(start, end, keys) for start, (end, keys) in sorted(lines.items()) if keys is not _QUIET]


def hyperscan_database(keys: list[list[Any]]) -> Any:
    """The Hyperscan database of the prefilter's keys (None for no keys): each key as a regex of its bytes, a
    folded one case-insensitive over Unicode (UTF8 + UCP), as RE2's (?i:) folds."""
    if not keys:
        return None
    import hyperscan

    expressions, flags = [], []
    for text, folded in keys:
        if folded:
            expressions.append("".join(c if c.isalnum() and c.isascii() else "\\x{%x}" % ord(c) for c in text).encode("utf-8"))
            flags.append(hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_UCP)
        else:
            expressions.append(_exact(text))
            flags.append(0)
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=expressions, ids=list(range(len(keys))), elements=len(keys), flags=flags)
    return database


def _exact(text: str) -> bytes:
    """A Hyperscan expression that matches `text`'s UTF-8 bytes exactly (every byte escaped)."""
    return "".join("\\x%02x" % b for b in text.encode("utf-8")).encode("ascii")


def hyperscan_available() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


def prefilter(tables: Tables, engine: str = "auto", serialised: bytes | None = None) -> Any:
    """The literal prefilter over `tables.keys`: Hyperscan when it is installed (engine "auto" or "hyperscan"),
    else RE2. ERRDEX_ENGINE (auto, hyperscan or re2) chooses for "auto": both give the same answers."""
    if chosen(engine) == "hyperscan":
        return HyperscanLiterals(tables, serialised)
    return Re2Literals(tables.keys)


def chosen(engine: str = "auto") -> str:
    """The engine `engine` names: "auto" is ERRDEX_ENGINE's choice, else Hyperscan where it is installed."""
    if engine == "auto":
        engine = os.environ.get("ERRDEX_ENGINE", "auto") or "auto"
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "auto":
        return "hyperscan" if hyperscan_available() else "re2"
    return engine


class AnyOf:
    """Whether a text of bytes holds any of a few fixed strings, in one pass that stops at the first: Hyperscan
    (about 2 GB/s for a dozen strings here) where it is installed, else RE2 (about 500 MB/s), made when first asked.
    `pattern` is the strings' RE2 alternation, for where they are in a text that holds one."""

    def __init__(self, strings: Sequence[str], engine: str = "auto"):
        self.strings, self.engine, self._find = sorted(set(strings)), engine, None
        self.pattern = re2.compile(b"|".join(re2.escape(s.encode("utf-8")) for s in self.strings), _OPTIONS)

    def __call__(self, data: bytes) -> bool:
        if self._find is None:
            self._find = self._hyperscan() if chosen(self.engine) == "hyperscan" else self._re2()
        return self._find(data)

    def _re2(self) -> Any:
        return lambda data: self.pattern.search(data) is not None

    def _hyperscan(self) -> Any:
        import hyperscan

        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(expressions=[_exact(s) for s in self.strings],
                         ids=list(range(len(self.strings))), elements=len(self.strings),
                         flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(self.strings))
        def find(data: bytes) -> bool:
            scratch = hyperscan.Scratch(database)  # a scratch a call (microseconds): a scan in another thread has its own
            try:
                database.scan(data, match_event_handler=lambda *_: True, scratch=scratch)  # True: stop at the first
            except hyperscan.ScanTerminated:
                return True
            return False

        return find


ENGINES = ("auto", "hyperscan", "re2")


def utf8(text: str) -> bool:
    """Whether `text` can be UTF-8 (a lone surrogate, which JSON allows, cannot: no UTF-8 line holds it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def find_all(data: bytes, needle: bytes) -> Iterator[int]:
    i = data.find(needle)
    while i >= 0:
        yield i
        i = data.find(needle, i + 1)

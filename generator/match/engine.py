"""Error text -> records: find the errors a log or traceback contains, rank them, and say why.

The same patterns serve the CLI (`errdex match`), the API (`/api/match.json`) and the site's matcher page.

How a log is read, so that any size runs in bounded memory and linear time:
  - the input is read in binary blocks; complete lines are scanned a block at a time, and a line longer than
    `max_line` bytes is scanned in windows of that size that overlap by `overlap` bytes (a match is found when
    it fits in one window; each is reported once);
  - a literal prefilter runs first: every portable pattern has fixed strings one of which every match contains
    (generator.match.portable); one pass over a block (Hyperscan, else an RE2 set: generator.match.prefilter) finds
    the lines that hold a part of one (a key), the only ones worth a closer look;
  - on such a line only the patterns whose literals hold that key run (those whose literal it holds whole), with
    RE2, or for a pattern that is text (and a value), with `find` (generator.match.compiled).
Patterns never run in Python's `re` (a hostile or careless pattern could backtrack for hours); RE2 is linear.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import re2

from .. import forked
from .shared import scan_shared
from .logline import json_groups as _json_groups
from .hits import Hit, Result, rank
from .rules import REQUOTE, RULES, evidence, partial_at, requote
from .prefilter import AnyOf, Tables, compile_tables, find_all as _find_all, prefilter
from .compiled import OPTIONS as _OPTIONS, UNANCHORED as _UNANCHORED, compile_pattern, first_span

MAX_LINE = 1 << 20  # bytes of one line scanned at once; longer lines go in windows
OVERLAP = 4096  # bytes two windows of an overlong line share
BLOCK = 1 << 16  # bytes read at a time (smaller blocks: the literal finds after the set scan less text)
EXCERPT = 160  # characters of context kept on each side of a match in a long line
MAX_VALUE = 500  # characters of a captured value kept
REQUOTE_FIND = AnyOf([old for old, _ in REQUOTE])  # whether a block needs _requoted (most do not: one fast pass), and where
QUIET_LINES = 8192  # lines without a hit remembered at most (then forgotten all at once)
QUIET_LINE_BYTES = 2048  # longer lines are not remembered
PARALLEL_FROM = 16 << 20  # bytes of input from which two processes scan it (below, forking costs more than it saves)


@dataclass(frozen=True)
class Pattern:
    """One record as the matcher needs it."""

    id: str
    regex: str
    message: str
    title: str
    url: str
    repo: str = ""
    exception_class: str | None = None
    superseded_by: str | None = None
    # Derived from `regex` by generator.match.portable; an index (match.json) carries them, else they are computed.
    literals: tuple[str, ...] | None = None
    ignore_case: bool = False
    specificity: int | None = None
    anchored: bool | None = None


def _boundary(data: bytes, n: int) -> int:
    """`n`, moved back (at most 3 bytes) so that it does not split a UTF-8 sequence."""
    for _ in range(3):
        if 0 < n < len(data) and 0x80 <= data[n] < 0xC0:
            n -= 1
    return n



class Matcher:
    """Compiled patterns plus their prefilter. Build once, then `scan` any number of inputs.

    `patterns` is any sequence (a knowledge bundle passes one that makes each Pattern when first asked for);
    `tables`, when given, are `compile_tables(patterns)` made earlier, and `serialised` the prefilter's Hyperscan
    database made with them (`hyperscan_database`), used when this Hyperscan can read it. Patterns from index
    `evidence_from` on are catalog entries: a hit of one counts only where the evidence holds
    (generator.match.rules.evidence)."""

    def __init__(self, patterns: Sequence[Pattern], *, rules: dict[str, int] | None = None, max_line: int = MAX_LINE,
                 overlap: int = OVERLAP, block: int = BLOCK, tables: Tables | None = None, engine: str = "auto",
                 serialised: bytes | None = None, evidence_from: int | None = None):
        self.max_line, self.overlap, self.block = max_line, overlap, block
        self.rules = dict(RULES if rules is None else rules)  # generator.match.rules
        self.patterns = patterns
        self.skipped: list[tuple[str, str]] = []  # (id, why) of patterns that cannot run
        self.evidence_from = evidence_from
        self._seen: dict[int, bool] | None = None  # set by scan
        self._quiet: set[bytes] = set()  # lines that gave no hit (the prefilter leaves them out)
        t = tables if tables is not None else compile_tables(patterns, self.rules["partial_min_chars"])
        # A bundle's tables are read a field at a time, when first used: a scan needs `always` and `owners` (and
        # `keys` only when there is no Hyperscan database to load); the rest is read for the patterns hit.
        self.tables = t
        self.always, self.literal_patterns = t.always, t.owners
        self.compiled: dict[int, Any] = {}  # on first use: most patterns never meet a candidate line
        self._bytes: dict[int, tuple[bytes | None, tuple[bytes, ...]]] = {}
        self.literals = prefilter(t, engine, serialised) if t.owners else None
        self.engine = self.literals.name if self.literals is not None else "none"
        for index in self.always:  # these run on every line: find the broken ones now
            self._compiled(index)

    @property
    def specificity(self) -> list[int]:
        return self.tables.specificity

    @property
    def anchored(self) -> list[bool]:
        return self.tables.anchored

    @property
    def exception_names(self) -> list[str | None]:
        return self.tables.exception_names

    def _encoded(self, index: int) -> tuple[bytes | None, tuple[bytes, ...]]:
        """A pattern's exception class name and whole literals, as bytes (for the lines' bytes)."""
        found = self._bytes.get(index)
        if found is None:
            name = self.tables.exception_names[index]
            found = self._bytes[index] = (None if name is None else name.encode("utf-8"),
                                          tuple(x.encode("utf-8") for x in self.tables.full_literals[index]))
        return found

    def _compiled(self, index: int) -> Any:
        """The pattern compiled (generator.match.compiled), or False when it does not compile in RE2 (noted in
        `skipped`)."""
        compiled = self.compiled.get(index)
        if compiled is None:
            try:
                compiled = compile_pattern(self.patterns[index].regex)
            except re2.error as exc:
                detail = exc.args[0] if exc.args else exc
                detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
                self.skipped.append((self.patterns[index].id, f"does not compile in RE2: {detail}"))
                compiled = False
            self.compiled[index] = compiled
        return compiled

    # -- scanning --------------------------------------------------------------------------------------------
    def find(self, stream: IO[bytes], parallel_from: int | None = None, beside: Callable[[], Any] | None = None) -> list[Result]:
        """The ranked results of a binary stream: `rank(scan(stream))`, with repeats of a pattern found cheaply
        (a repeat only counts, unless it is the first to name the exception class on its line). An in-memory
        stream of at least `parallel_from` (default PARALLEL_FROM) bytes is scanned by two processes at once, in
        parts (generator.match.shared), with the same results. `beside`, when given, runs once in this process:
        while the second process scans, or else before the scan (a caller's other work on the same input)."""
        least = max(PARALLEL_FROM if parallel_from is None else parallel_from, 1)
        if isinstance(stream, io.BytesIO) and stream.getbuffer().nbytes - stream.tell() >= least and forked.available():
            return self.rank(scan_shared(self, stream, beside))
        if beside is not None:
            beside()
        return self.rank(self.scan(stream, repeats=True))

    def scan(self, stream: IO[bytes], repeats: bool = False, first_line: int = 1, seen: dict[int, bool] | None = None) -> Iterator[Hit]:
        """Every hit in a binary stream, in order of lines (numbered from `first_line`). With `repeats`, a
        pattern's later hits that cannot replace its first in `rank` come without text, span or values (column
        0): what rank needs, at a fraction of the cost when a log repeats one message a hundred thousand times;
        `seen` carries what an earlier scan of the text before saw (for repeats)."""
        self._seen: dict[int, bool] | None = seen if seen is not None else {} if repeats else None  # pattern -> its first hit named the class
        line_no, col, carry = first_line, 0, b""
        self.bytes_read = 0
        self.lines_read = 0
        while True:
            chunk = stream.read(self.block)
            if not chunk:
                break
            self.bytes_read += len(chunk)
            data = carry + chunk if carry else chunk
            end = data.rfind(b"\n") + 1
            if end:
                part = data[:end] if end < len(data) else data
                yield from self._block(part, line_no, col)
                yield from self._requoted(part, line_no, col)
                line_no += data.count(b"\n", 0, end)
                col = 0
                carry = data[end:]
            else:
                carry = data
            while len(carry) > self.max_line:  # an overlong line: scan a window, keep its tail for the next
                cut = _boundary(carry, self.max_line)
                keep = _boundary(carry, cut - self.overlap)
                yield from self._block(carry[:cut], line_no, col, accept=keep)
                col += len(carry[:keep].decode("utf-8", "replace"))
                carry = carry[keep:]
        if carry:
            yield from self._block(carry, line_no, col)
            yield from self._requoted(carry, line_no, col)
            line_no += 1
        self.lines_read = line_no - first_line

    def _requoted(self, block: bytes, line_no: int, col: int) -> Iterator[Hit]:
        """The hits of `block`'s lines that hold a REQUOTE sequence, each line read with the replacements
        (generator.match.rules) and scanned alone, at its own number. Marked `requoted`."""
        found = REQUOTE_FIND.pattern.search(block) if REQUOTE_FIND(block) else None
        if found is None:
            return
        seen, self._seen = self._seen, None  # each requoted hit whole: a repeat would come before its first once sorted
        counted, number = 0, line_no
        try:
            while found is not None:
                start = block.rfind(b"\n", 0, found.start()) + 1
                end = block.find(b"\n", found.start())
                end = len(block) if end < 0 else end
                number += block.count(b"\n", counted, start)
                counted = start
                line = requote(block[start:end].decode("utf-8", "replace")).encode("utf-8")
                for hit in self._block(line, number, col if start == 0 else 0):
                    yield dataclasses.replace(hit, requoted=True)
                found = REQUOTE_FIND.pattern.search(block, end)
        finally:
            self._seen = seen

    def scan_text(self, text: str) -> list[Hit]:
        return list(self.scan(io.BytesIO(text.encode("utf-8"))))

    def _block(self, block: bytes, line_no: int, col: int, accept: int | None = None) -> Iterator[Hit]:
        """Hits in `block` (whole lines, except that the first may continue an overlong line whose first
        `col` characters were scanned before, and the last may go on in the next window: of that line only
        matches starting before byte `accept` are reported)."""
        candidates: Iterable[tuple[int, int, set[int]]]
        if self.always:
            found = dict(((s, e), lits) for s, e, lits in self._prefiltered(block))
            starts = [0] + [i + 1 for i in _find_all(block, b"\n")]
            ends = [s - 1 for s in starts[1:]] + [len(block)]
            candidates = ((s, e, found.get((s, e), set())) for s, e in zip(starts, ends) if s < len(block))
        elif self.literals is not None:
            candidates = self._prefiltered(block)
        else:
            return
        counted, current, size, quiet = 0, line_no, len(block), self._quiet
        for start, end, literals in candidates:
            line = block[start:end]
            if line.endswith(b"\r"):
                line = line[:-1]
            limit = accept - start if accept is not None and end == size else None
            at = col if start == 0 else 0
            # A line that gave no hit is remembered by its bytes (a log repeats its ordinary lines, and what a line
            # holds depends on its bytes alone: the keys it holds, the patterns they try, the evidence; only whether
            # a hit is a repeat depends on the scan's state): its next time costs a look-up. Not a window's last
            # line, whose hits past the window were not looked for.
            key = block[start:end] if limit is None and end - start <= QUIET_LINE_BYTES else None
            if key is not None and key in quiet:
                continue
            current += block.count(b"\n", counted, start)  # counted only up to the lines that are tried
            counted = start
            found = False
            for hit in self._line_hits(line, literals, current, at, limit):
                found = True
                yield hit
            if key is not None and not found:
                if len(quiet) >= QUIET_LINES:
                    quiet.clear()
                quiet.add(key)

    def _prefiltered(self, block: bytes) -> list[tuple[int, int, set[int]]]:
        """(start, end, key indices) of each line of `block` that holds a key and has not been found quiet, in order."""
        return self.literals.lines(block, self._quiet) if self.literals is not None else []

    def _line_hits(self, line: bytes, literals: set[int], line_no: int, col: int, limit: int | None) -> Iterator[Hit]:
        candidates: Iterable[int]
        if len(literals) == 1 and not self.always:  # the usual case: one literal's patterns, already in order
            candidates = self.literal_patterns[next(iter(literals))]
        else:
            merged: set[int] = set(self.always)
            for li in literals:
                merged.update(self.literal_patterns[li])
            candidates = sorted(merged)
        # An ASCII line reads the same as bytes and as text: each pattern is tried on the bytes first (one call
        # into RE2), and the line is decoded only for a hit that needs its text and values.
        ascii_line, decoded = line.isascii(), None
        seen = self._seen
        verdicts: dict[tuple, bool] = {}  # entries of one template (a message two projects raise) are judged once a span

        def partial(pi: int) -> list[Hit]:  # a pattern the line does not match whole: its partial hit, at the line's real end
            nonlocal decoded
            if limit is not None or not self.tables.partials[pi]:
                return []
            decoded = decoded or self._decode(line, limit)
            hit = self._partial(pi, decoded[0], line_no, col)
            return [] if hit is None else [hit]

        for pi in candidates:
            name_bytes, full = self._encoded(pi)
            if full and not any(x in line for x in full):
                # the line holds a literal's key but not the literal, or only the text a cut-off line is recognised by
                yield from partial(pi)
                continue
            compiled = self._compiled(pi)
            if not compiled:
                continue
            if ascii_line:
                span = first_span(compiled, line)
                if span[0] < 0 or (limit is not None and span[0] >= limit):
                    yield from partial(pi)
                    continue
                if not self._evident(pi, line, span, specificity=None, verdicts=verdicts):
                    continue
                if seen is not None and pi in seen:
                    on_line = name_bytes is not None and name_bytes in line
                    if seen[pi] or not on_line:  # a repeat rank only counts: no text or values
                        yield Hit(pi, line_no, col + span[0] + 1, "", (0, span[1] - span[0]), (), on_line)  # where, for shadowing
                        continue
            decoded = decoded or self._decode(line, limit)
            text, limit_chars = decoded
            m = compiled.search(text)
            if m is None or (limit_chars is not None and m.start() >= limit_chars):
                yield from partial(pi)
                continue
            s, e = m.span()
            if not ascii_line and not self._evident(pi, text, (s, e), specificity=None):
                continue
            lo = max(0, s - EXCERPT) if len(text) > 4 * EXCERPT else 0
            hi = min(len(text), max(e, s + 1) + EXCERPT) if len(text) > 4 * EXCERPT else len(text)
            groups = tuple(None if g is None else g[:MAX_VALUE] for g in (_json_groups(text, compiled) or m.groups()))
            name = self.exception_names[pi]
            on_line = name is not None and name in text
            if seen is not None:
                seen[pi] = seen.get(pi, False) or on_line
            yield Hit(pi, line_no, col + s + 1, text[lo:hi], (s - lo, min(e, hi) - lo), groups, on_line)

    def _evident(self, pi: int, line: bytes | str, span: tuple[int, int], specificity: int | None,
                 verdicts: dict[tuple, bool] | None = None) -> bool:
        """Whether a catalog entry's hit is borne out by its line (generator.match.rules.evidence); a record's
        always is. `line` is the line's text, or its bytes when ASCII (the same characters); `specificity` the
        fixed characters a partial hit holds (None: the pattern's); `verdicts`: those given on this line so far,
        by what evidence reads (the same template, exception and span give the same verdict)."""
        if self.evidence_from is None or pi < self.evidence_from:
            return True
        p = self.patterns[pi]
        fixed = self.specificity[pi] if specificity is None else specificity
        key = (p.message, p.exception_class, fixed, span[0], span[1])
        if verdicts is not None and key in verdicts:
            return verdicts[key]
        text = line.decode("ascii") if isinstance(line, bytes) else line
        verdict = evidence(text, span, p.message, p.exception_class, fixed, self.rules) is None
        if verdicts is not None:
            verdicts[key] = verdict
        return verdict

    @staticmethod
    def _decode(line: bytes, limit: int | None) -> tuple[str, int | None]:
        """A line's text, and the character offset of `limit` (a byte offset) in it."""
        return line.decode("utf-8", "replace"), None if limit is None else len(line[:limit].decode("utf-8", "replace"))

    def _partial(self, pi: int, text: str, line_no: int, col: int) -> Hit | None:
        """A partial hit of pattern `pi` on a line it does not match whole (generator.match.rules.partial_at), at
        the line's real end only (not in a window of an overlong line)."""
        found = partial_at(text, self.tables.partials[pi], self.rules["partial_min_chars"])
        if found is None:
            return None
        s, e, held = found
        if not self._evident(pi, text, (s, e), specificity=held):
            return None
        lo = max(0, s - EXCERPT) if len(text) > 4 * EXCERPT else 0
        hi = min(len(text), e + EXCERPT) if len(text) > 4 * EXCERPT else len(text)
        name = self.exception_names[pi]
        return Hit(pi, line_no, col + s + 1, text[lo:hi], (s - lo, min(e, hi) - lo), (), name is not None and name in text, held)

    # -- ranking ---------------------------------------------------------------------------------------------
    def rank(self, hits: Iterable[Hit]) -> list[Result]:
        """One result per record, best first (generator.match.hits.rank, weighed by `self.rules`)."""
        return rank(hits, self.patterns, self.specificity, self.anchored, self.rules)

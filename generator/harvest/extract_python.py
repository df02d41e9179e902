"""Error sites in Python source, from its syntax tree (the standard library's `ast`).

Found: `raise X(msg)` (and `raise X(msg) from e`); `logger.error/exception/critical/warning(msg, ...)` on any
receiver whose name holds "log"; `warnings.warn(msg, Category)`; `assert cond, msg`. A message is a string
literal, an f-string, `"..." % args`, `"...".format(...)`, a concatenation of those, or a variable assigned
from one of them earlier in the same function. Each value becomes a `{}` hole in the template.

Upstream files are hostile input, so the work is linear in the file: a message built by `+` or `+=` longer than
MAX_MESSAGE, or of more than MAX_FOLLOWED `+=` pieces, is no site; what a variable holds after each assignment
is built once, from what it held before; and a file may build at most its budget of message text (TooMuchWork
beyond).
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from typing import NamedTuple

from .sites import ANONYMOUS, Site, bounded_name, statement_at

LOG_METHODS = {
    "error": "error", "exception": "error", "critical": "critical", "fatal": "critical",
    "warning": "warning", "warn": "warning", "warning_once": "warning", "error_once": "error",
    "warning_advice": "warning",
}
# printf-style conversions: %s %d %r %.2f %-5s %(name)s ... (%% is a literal percent). The parts are bounded:
# flags and width can both match "0", and unbounded they make "%000...0" take time quadratic in its length.
_PERCENT = re.compile(r"%(?:\([^)]{0,200}\))?[#0 +-]{0,8}(?:\*|\d{1,8})?(?:\.(?:\*|\d{1,8}))?[hlL]?[diouxXeEfFgGcrsa]")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
MAX_DEPTH = 8  # expressions (and variables) nested in one message
MAX_MESSAGE = 4000  # characters of a message built by `+` or `+=` (the longest real template holds 1,016)
MAX_FOLLOWED = 32  # pieces of a message built by `+=` (more: no site)
MAX_NAME_PARTS = 16  # parts of a dotted name (`a.b.c`) read
# Message text one file may build, in characters (and steps): WORK_BASE + WORK_PER_BYTE per byte of source.
WORK_BASE = 1 << 20
WORK_PER_BYTE = 64


class TooMuchWork(Exception):
    """A file whose messages would take more than its budget to build: no real file comes near it."""


class _TooLong(Exception):
    """A message built longer than MAX_MESSAGE: it is no site."""


_LONG = object()  # what a variable holds when its message is built too long (kept in place of the exception)


def percent_template(text: str) -> str:
    """A %-format string as a template."""
    out, pos = [], 0
    for m in re.finditer(r"%%|" + _PERCENT.pattern, text):
        out.append(text[pos : m.start()])
        out.append("%" if m.group() == "%%" else "{}")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def format_template(text: str) -> str:
    """A str.format string as a template: each replacement field becomes `{}`, `{{`/`}}` literal braces."""
    return _FORMAT_FIELD.sub(lambda m: {"{{": "{", "}}": "}"}.get(m.group(), "{}"), text)


class _Assignment(NamedTuple):
    line: int
    value: ast.expr
    augmented: bool  # `+=`: a piece added to the message before it
    pieces: int  # pieces of the message it leaves, from the last plain assignment; 0: none within MAX_FOLLOWED


class _Function:
    """Names assigned a message in one function body, each with its assignments in source order; and the message
    a name holds after each of them, built once per (name, assignment, depth)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: dict[str, list[int]] = {}
        self.assigned: dict[str, list[_Assignment]] = {}
        self.held: dict[tuple[str, int, int], str | None | object] = {}

    def assign(self, name: str, line: int, value: ast.expr, augmented: bool) -> None:
        history = self.assigned.setdefault(name, [])
        pieces = 1
        if augmented:
            before = history[-1].pieces if history else 0
            pieces = before + 1 if before and before < MAX_FOLLOWED else 0
        self.lines.setdefault(name, []).append(line)
        history.append(_Assignment(line, value, augmented, pieces))

    def last_before(self, name: str, line: int) -> int:
        """The index of the last assignment of `name` on a line before `line`, or -1."""
        return bisect.bisect_left(self.lines.get(name, ()), line) - 1


class _Visitor(ast.NodeVisitor):
    def __init__(self, lines: list[str], budget: int) -> None:
        self.lines = lines
        self.sites: list[Site] = []
        self.stack: list[_Function] = [_Function("<module>")]
        self.budget = budget

    def _spend(self, cost: int) -> None:
        self.budget -= cost
        if self.budget < 0:
            raise TooMuchWork("its messages take more than the budget of a file of its size to build")

    # -- scopes and assignments
    def _scope(self, node: ast.AST) -> None:
        self.stack.append(_Function(bounded_name(node.name) or ANONYMOUS))
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _scope

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.stack[-1].assign(target.id, node.lineno, node.value, False)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and node.value is not None:
            self.stack[-1].assign(node.target.id, node.lineno, node.value, False)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            self.stack[-1].assign(node.target.id, node.lineno, node.value, True)
        self.generic_visit(node)

    # -- messages
    def message(self, node: ast.expr | None, line: int) -> str | None:
        """The template of a site's message expression, or None (no literal text, or built too long)."""
        try:
            text = self.template(node, line)
        except _TooLong:
            return None
        if text is not None:
            self._spend(len(text))  # every site's text counts, even one built once and used many times
        return text

    def template(self, node: ast.expr | None, line: int, depth: int = 0) -> str | None:
        """The template an expression builds, or None when it holds no literal text."""
        if node is None or depth > MAX_DEPTH:
            return None
        self._spend(1)
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            self._spend(len(node.values))
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                elif isinstance(value, ast.FormattedValue):
                    parts.append("{}")
            return "".join(parts)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Mod):
                left = self.template(node.left, line, depth + 1)
                return percent_template(left) if left is not None else None
            if isinstance(node.op, ast.Add):
                left = self.template(node.left, line, depth + 1)
                right = self.template(node.right, line, depth + 1)
                if left is None and right is None:
                    return None
                return _bounded([left if left is not None else "{}", right if right is not None else "{}"])
            return None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format":
                base = self.template(func.value, line, depth + 1)
                return format_template(base) if base is not None else None
            return None
        if isinstance(node, ast.Name):
            return self._variable(node.id, line, depth)
        return None

    def _variable(self, name: str, line: int, depth: int) -> str | None:
        """The message last assigned to `name` before `line` in the current function (with `+=` pieces)."""
        scope = self.stack[-1]
        last = scope.last_before(name, line)
        if last < 0:
            return None
        joined = self._held(scope, name, last, depth)
        return joined if joined is not None and joined.replace("{}", "").strip() else None

    def _held(self, scope: _Function, name: str, index: int, depth: int) -> str | None:
        """The message `name` holds after its assignment `index`: built from the one before (each once, oldest
        first), so a chain of `+=` costs one step per assignment, however many messages read it."""
        todo = []
        at = index
        while (name, at, depth) not in scope.held:
            todo.append(at)
            if scope.assigned[name][at].pieces <= 1:  # a plain assignment, or no message: nothing before counts
                break
            at -= 1
        for at in reversed(todo):
            try:
                scope.held[(name, at, depth)] = self._after(scope, name, at, depth)
            except _TooLong:
                scope.held[(name, at, depth)] = _LONG
        found = scope.held[(name, index, depth)]
        if found is _LONG:
            raise _TooLong
        return found

    def _after(self, scope: _Function, name: str, index: int, depth: int) -> str | None:
        self._spend(1)
        assignment = scope.assigned[name][index]
        if not assignment.pieces:
            return None
        piece = self.template(assignment.value, assignment.line, depth + 1)
        piece = piece if piece is not None else "{}"
        if assignment.pieces == 1:
            return piece
        before = scope.held[(name, index - 1, depth)]
        if before is _LONG:
            raise _TooLong
        return _bounded([before, piece]) if before is not None else None

    def _statement(self, node: ast.stmt | ast.expr) -> str:
        end = getattr(node, "end_lineno", None) or node.lineno
        return statement_at(self.lines, node.lineno - 1, end - 1)

    def _add(self, node: ast.AST, template: str | None, kind: str, exception: str | None = None, level: str | None = None) -> None:
        if template is None or not template.replace("{}", "").strip():
            return
        self.sites.append(Site(template, kind, node.lineno, self._statement(node), self.stack[-1].name, exception, level))

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            self._add(node, self.message(exc.args[0], node.lineno), "raise", _name(exc.func))
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if node.msg is not None:
            self._add(node, self.message(node.msg, node.lineno), "assert", "AssertionError")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and node.args:
            receiver = _name(func.value) or ""
            if func.attr in LOG_METHODS and "log" in receiver.lower():
                msg = self.message(node.args[0], node.lineno)
                if msg is not None and len(node.args) > 1 and not isinstance(node.args[0], ast.JoinedStr):
                    msg = percent_template(msg)
                self._add(node, msg, "log", None, LOG_METHODS[func.attr])
            elif func.attr == "warn" and receiver == "warnings":
                category = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "category"), None)
                self._add(node, self.message(node.args[0], node.lineno), "warn", _name(category) if category is not None else "UserWarning")
        self.generic_visit(node)


def _bounded(pieces: list[str]) -> str:
    """Pieces of a message joined, unless the message would be longer than MAX_MESSAGE (measured first)."""
    if sum(len(p) for p in pieces) > MAX_MESSAGE:
        raise _TooLong
    return "".join(pieces)


def _name(node: ast.AST | None) -> str | None:
    """`ValueError`, `errors.BadRequest`, `self.logger` -> the dotted name (at most MAX_NAME_PARTS parts, read
    from the right; a call stands for what it calls)."""
    parts: list[str] = []
    while node is not None and len(parts) < MAX_NAME_PARTS:
        if isinstance(node, ast.Name):
            parts.append(node.id)
            break
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
    return ".".join(reversed(parts)) if parts else None


def exception_name(dotted: str | None) -> str | None:
    return bounded_name(dotted.rsplit(".", 1)[-1]) if dotted else None


def python_sites(source: bytes) -> list[Site]:
    """Every error site in one Python file. A file that cannot be read raises what says why: SyntaxError,
    ValueError (a NUL byte), MemoryError or RecursionError (nesting too deep to parse or to walk), TooMuchWork."""
    text = source.decode("utf-8", "replace")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
    visitor = _Visitor(text.split("\n"), WORK_BASE + WORK_PER_BYTE * len(source))
    visitor.visit(tree)
    return [s if s.kind not in ("raise", "warn") else Site(s.template, s.kind, s.line, s.statement, s.function, exception_name(s.exception), s.level) for s in visitor.sites]


UNREADABLE = (SyntaxError, ValueError, MemoryError, RecursionError, TooMuchWork)


def extract_python(source: bytes) -> list[Site]:
    """Every error site in one Python file; a file that does not parse (or that python_sites refuses) gives none."""
    try:
        return python_sites(source)
    except UNREADABLE:
        return []

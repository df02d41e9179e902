"""Error sites in Python source, from its syntax tree (the standard library's `ast`).

Found: `raise X(msg)` (and `raise X(msg) from e`); `logger.error/exception/critical/warning(msg, ...)` on any
receiver whose name holds "log"; `warnings.warn(msg, Category)`; `assert cond, msg`. A message is a string
literal, an f-string, `"..." % args`, `"...".format(...)`, a concatenation of those, or a variable assigned
from one of them earlier in the same function. Each value becomes a `{}` hole in the template.
"""

from __future__ import annotations

import ast
import re
import warnings

from .sites import Site, clip_statement

LOG_METHODS = {
    "error": "error", "exception": "error", "critical": "critical", "fatal": "critical",
    "warning": "warning", "warn": "warning", "warning_once": "warning", "error_once": "error",
    "warning_advice": "warning",
}
# printf-style conversions: %s %d %r %.2f %-5s %(name)s ... (%% is a literal percent)
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa]")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


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


class _Function:
    """Names assigned a message in one function body: name -> [(line, expression)]."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.assigned: dict[str, list[tuple[int, ast.expr, bool]]] = {}


class _Visitor(ast.NodeVisitor):
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.sites: list[Site] = []
        self.stack: list[_Function] = [_Function("<module>")]

    # -- scopes and assignments
    def _scope(self, node: ast.AST) -> None:
        self.stack.append(_Function(node.name))
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _scope

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.stack[-1].assigned.setdefault(target.id, []).append((node.lineno, node.value, False))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and node.value is not None:
            self.stack[-1].assigned.setdefault(node.target.id, []).append((node.lineno, node.value, False))
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            self.stack[-1].assigned.setdefault(node.target.id, []).append((node.lineno, node.value, True))
        self.generic_visit(node)

    # -- messages
    def template(self, node: ast.expr | None, line: int, depth: int = 0) -> str | None:
        """The template an expression builds, or None when it holds no literal text."""
        if node is None or depth > 8:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
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
                return (left if left is not None else "{}") + (right if right is not None else "{}")
            return None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format":
                base = self.template(func.value, line, depth + 1)
                return format_template(base) if base is not None else None
            if isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant):
                return None
            return None
        if isinstance(node, ast.Name):
            return self._variable(node.id, line, depth)
        return None

    def _variable(self, name: str, line: int, depth: int) -> str | None:
        """The message last assigned to `name` before `line` in the current function (with `+=` pieces)."""
        history = [a for a in self.stack[-1].assigned.get(name, []) if a[0] < line]
        if not history:
            return None
        pieces: list[str] = []
        for lineno, value, augmented in reversed(history):
            piece = self.template(value, lineno, depth + 1)
            pieces.insert(0, piece if piece is not None else "{}")
            if not augmented:
                break
        else:
            return None
        joined = "".join(pieces)
        return joined if joined.replace("{}", "").strip() else None

    def _statement(self, node: ast.stmt | ast.expr) -> str:
        end = getattr(node, "end_lineno", None) or node.lineno
        return clip_statement(self.lines[node.lineno - 1 : end])

    def _add(self, node: ast.AST, template: str | None, kind: str, exception: str | None = None, level: str | None = None) -> None:
        if template is None or not template.replace("{}", "").strip():
            return
        self.sites.append(Site(template, kind, node.lineno, self._statement(node), self.stack[-1].name, exception, level))

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            self._add(node, self.template(exc.args[0], node.lineno), "raise", _name(exc.func))
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if node.msg is not None:
            self._add(node, self.template(node.msg, node.lineno), "assert", "AssertionError")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and node.args:
            receiver = _name(func.value) or ""
            if func.attr in LOG_METHODS and "log" in receiver.lower():
                msg = self.template(node.args[0], node.lineno)
                if msg is not None and len(node.args) > 1 and not isinstance(node.args[0], ast.JoinedStr):
                    msg = percent_template(msg)
                self._add(node, msg, "log", None, LOG_METHODS[func.attr])
            elif func.attr == "warn" and receiver == "warnings":
                category = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "category"), None)
                self._add(node, self.template(node.args[0], node.lineno), "warn", _name(category) if category is not None else "UserWarning")
        self.generic_visit(node)


def _name(node: ast.AST | None) -> str | None:
    """`ValueError`, `errors.BadRequest`, `self.logger` -> the dotted name's last part (receivers: whole)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return None


def exception_name(dotted: str | None) -> str | None:
    return dotted.rsplit(".", 1)[-1] if dotted else None


def extract_python(source: bytes) -> list[Site]:
    """Every error site in one Python file; a file that does not parse gives none."""
    text = source.decode("utf-8", "replace")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    visitor = _Visitor(text.split("\n"))
    try:
        visitor.visit(tree)
    except RecursionError:
        return []
    return [s if s.kind not in ("raise", "warn") else Site(s.template, s.kind, s.line, s.statement, s.function, exception_name(s.exception), s.level) for s in visitor.sites]

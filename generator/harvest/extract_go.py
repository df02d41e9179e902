"""Error sites in Go source, from its syntax tree (tree-sitter-go, pinned in pyproject.toml).

Found: `fmt.Errorf` and `errors.New` (raise), `slog.Error`/`slog.Warn` (and their Context forms) and `log.Fatal`
(log), `panic` (panic), `http.Error` and `gin.H{"error": ...}` responses (http). A message is a string literal
(interpreted or raw), a `+` concatenation, or `fmt.Sprintf(...)`; each value becomes a `{}` hole (printf verbs
too). Upstream files are hostile input: the candidate nodes come from a tree-sitter query, so a file costs
Python work per candidate, not per node, and a message is built no deeper than MAX_DEPTH nor longer than
MAX_MESSAGE.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from .extract_python import MAX_DEPTH, MAX_MESSAGE
from .extract_tree_sitter import _ESCAPES, _TooLong, _short_text, _site, _text, parser_for
from .sites import ANONYMOUS, Site

_GO_PERCENT = re.compile(r"%%|%[-+# 0]{0,8}(?:\*|\d{1,8})?(?:\.(?:\*|\d{1,8}))?[vTtbcdoOqxXUeEfFgGspw]")
_GO_ESCAPES = {**_ESCAPES, "a": "\a", "b": "\b", "f": "\f", "v": "\v", "`": "`"}
# package.Function -> (kind, level, index of the message argument, printf format?)
GO_CALLS = {
    ("fmt", "Errorf"): ("raise", None, 0, True),
    ("errors", "New"): ("raise", None, 0, False),
    ("slog", "Error"): ("log", "error", 0, False),
    ("slog", "Warn"): ("log", "warning", 0, False),
    ("slog", "ErrorContext"): ("log", "error", 1, False),
    ("slog", "WarnContext"): ("log", "warning", 1, False),
    ("log", "Fatal"): ("log", "critical", 0, False),
    ("log", "Fatalf"): ("log", "critical", 0, True),
    ("log", "Panicf"): ("panic", None, 0, True),
    ("http", "Error"): ("http", None, 1, False),
}


def go_printf_template(text: str) -> str:
    return _GO_PERCENT.sub(lambda m: "%" if m.group() == "%%" else "{}", text)


def _go_literal(node) -> str | None:
    """The value of a Go string literal (interpreted, escapes decoded, or raw), or None."""
    if node.type == "raw_string_literal":
        text = _text(node)
        return text[1:-1] if len(text) >= 2 else None
    if node.type != "interpreted_string_literal":
        return None
    out = []
    for child in node.children:
        if child.type == "interpreted_string_literal_content":
            out.append(_text(child))
        elif child.type == "escape_sequence":
            esc = _text(child)
            out.append(_GO_ESCAPES.get(esc[1:], esc) if len(esc) == 2 else esc)
    return "".join(out)


def _go_callee(node) -> tuple[str, str] | None:
    func = node.child_by_field_name("function")
    if func is None or func.type != "selector_expression":
        return None
    operand, field = func.child_by_field_name("operand"), func.child_by_field_name("field")
    if operand is None or field is None or operand.type != "identifier":
        return None
    return _short_text(operand) or "", _short_text(field) or ""


def _go_template(node, printf: bool, depth: int = 0) -> str | None:
    """The template a Go expression builds: literals (a printf format when `printf`), `+` concatenations,
    fmt.Sprintf(...), any other value a hole; None when no literal text is in it."""
    if depth > MAX_DEPTH or node is None:
        return None
    lit = _go_literal(node)
    if lit is not None:
        return go_printf_template(lit) if printf else lit
    if node.type == "binary_expression" and node.child_by_field_name("operator") is not None and _text(node.child_by_field_name("operator")) == "+":
        left = _go_template(node.child_by_field_name("left"), printf, depth + 1)
        right = _go_template(node.child_by_field_name("right"), printf, depth + 1)
        if left is None and right is None:
            return None
        out = (left if left is not None else "{}") + (right if right is not None else "{}")
        if len(out) > MAX_MESSAGE:
            raise _TooLong()
        return out
    if node.type == "call_expression" and _go_callee(node) == ("fmt", "Sprintf"):
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        return _go_template(first, True, depth + 1) if first is not None else None
    if node.type == "parenthesized_expression" and node.named_children:
        return _go_template(node.named_children[0], printf, depth + 1)
    return None


def _go_message(node, printf: bool) -> str | None:
    try:
        return _go_template(node, printf)
    except _TooLong:
        return None


def _go_scope(node, outer: str) -> str:
    """The enclosing function of a node's descendants: `name`, or `Type.name` for a method."""
    if node.type == "function_declaration":
        return _short_text(node.child_by_field_name("name")) or ANONYMOUS
    if node.type == "method_declaration":
        name = _short_text(node.child_by_field_name("name")) or ANONYMOUS
        receiver = node.child_by_field_name("receiver")
        kind = None
        if receiver is not None:
            for child in receiver.named_children:
                typ = child.child_by_field_name("type")
                while typ is not None and typ.type in ("pointer_type", "generic_type"):
                    typ = typ.named_children[0] if typ.named_children else None
                kind = _short_text(typ) if typ is not None and typ.type == "type_identifier" else None
        return f"{kind}.{name}" if kind else name
    return outer


@lru_cache(maxsize=None)
def _go_query():
    from tree_sitter import Query

    return Query(parser_for("go").language, "(call_expression) @call (composite_literal) @literal "
                 "(function_declaration) @function (method_declaration) @function")


def extract_go(source: bytes) -> list[Site]:
    """Every error site in one Go file: fmt.Errorf and errors.New (raise), slog.Error/Warn and log.Fatal (log),
    panic (panic), http.Error and `gin.H{"error": ...}` responses (http). The candidate nodes come from a
    tree-sitter query (matched in the parser's own code, so a file costs Python work per candidate, not per
    node); a site's function is the declaration whose span holds it (Go declarations do not nest)."""
    from tree_sitter import QueryCursor

    tree = parser_for("go").parse(source)
    lines = source.decode("utf-8", "replace").split("\n")
    found = QueryCursor(_go_query()).captures(tree.root_node)
    functions = sorted((n.start_byte, n.end_byte, _go_scope(n, ANONYMOUS)) for n in found.get("function", []))
    starts = [f[0] for f in functions]
    candidates = sorted(found.get("call", []) + found.get("literal", []), key=lambda n: (n.start_byte, n.end_byte))
    sites: list[Site] = []
    for node in candidates:
        at = bisect.bisect_right(starts, node.start_byte) - 1
        function = functions[at][2] if at >= 0 and node.end_byte <= functions[at][1] else "<file>"
        site = None
        if node.type == "call_expression":
            func = node.child_by_field_name("function")
            if func is None:
                continue
            if func.type == "identifier":
                if _short_text(func) != "panic":
                    continue
                args = node.child_by_field_name("arguments")
                named = args.named_children if args is not None else []
                site = _site(node, lines, _go_message(named[0], False) if named else None, "panic", function)
            else:
                spec = GO_CALLS.get(_go_callee(node) or ("", ""))
                if spec is None:
                    continue
                args = node.child_by_field_name("arguments")
                named = args.named_children if args is not None else []
                if len(named) <= spec[2]:
                    continue
                kind, level, arg, printf = spec
                site = _site(node, lines, _go_message(named[arg], printf), kind, function, None, level)
        elif _short_text(node.child_by_field_name("type")) == "gin.H":
            body = node.child_by_field_name("body")
            for element in body.named_children if body is not None else []:
                if element.type != "keyed_element" or len(element.named_children) != 2:
                    continue
                key, value = element.named_children
                key = key.named_children[0] if key.type == "literal_element" and key.named_children else key
                value = value.named_children[0] if value.type == "literal_element" and value.named_children else value
                if _go_literal(key) == "error":
                    site = _site(node, lines, _go_message(value, False), "http", function)
        if site:
            sites.append(site)
    return sites

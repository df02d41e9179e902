"""Error sites in C, C++ and Rust source, from tree-sitter syntax trees.

C/C++: `throw X(msg)`, and the calls and macros a project's configuration lists (`c_calls` in
data/catalog/projects.yaml: GGML_ABORT, LLAMA_LOG_ERROR, send_error ...), each with the argument that holds the
message. A message is a string literal, adjacent literals (with `PRId64`-style macros), `std::string("...") + x`,
or a `format`/`string_format`-style call; printf conversions (`%d`, `%zu`, `%.2f`) become `{}` holes.
Rust: `#[error("...")]` on error enums and structs, `panic!`/`unreachable!`/`unimplemented!`/`todo!`,
`bail!`/`anyhow!`, `.expect("...")`, and the `error!`/`warn!` logging macros; `{}`, `{0}`, `{name:?}` holes.

The work is linear in the file: one walk keeps each node's enclosing function and type and its siblings
(tree-sitter's own parent and sibling lookups start again from the root, so using them per site is quadratic),
names are read only when short, and a message built by `+` longer than MAX_MESSAGE is no site.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .config import CCall
from .extract_python import MAX_DEPTH, MAX_MESSAGE, format_template
from .sites import ANONYMOUS, MAX_NAME, Site, statement_at

# printf conversions, their parts bounded (as in extract_python: unbounded flags and width backtrack on "%000...0")
_C_PERCENT = re.compile(r"%%|%[-+ #0']{0,8}(?:\*|\d{1,8})?(?:\.(?:\*|\d{1,8}))?(?:hh|h|ll|l|z|j|t|L|q)?[diouxXeEfFgGaAcspn]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "0": ""}
_FORMAT_CALLS = {"format", "string_format", "string_sprintf", "ggml_format_name", "strprintf", "sprintf_str"}
_BRACE_FORMAT_CALLS = {"std::format", "fmt::format"}
_STRING_WRAPPERS = {"std::string", "string", "std::string_view"}
RUST_PANICS = {"panic": "panic", "unreachable": "panic", "unimplemented": "panic", "todo": "panic", "bail": "raise", "anyhow": "raise"}
RUST_LOGS = {"error": "error", "warn": "warning"}
MAX_CALLEE = 1000  # bytes of a called function's or macro's expression read to name it
MAX_LOOKAHEAD = 64  # siblings after an `#[error]` attribute looked at to find what it belongs to


class _TooLong(Exception):
    """A message built longer than MAX_MESSAGE: it is no site."""


@lru_cache(maxsize=None)
def parser_for(language: str):
    """A tree-sitter parser for c, cpp, rust or go (the grammars are pinned in pyproject.toml)."""
    from tree_sitter import Language, Parser

    if language == "c":
        import tree_sitter_c as grammar
    elif language == "cpp":
        import tree_sitter_cpp as grammar
    elif language == "rust":
        import tree_sitter_rust as grammar
    elif language == "go":
        import tree_sitter_go as grammar
    else:
        raise ValueError(f"no tree-sitter grammar for {language!r}")
    return Parser(Language(grammar.language()))


def printf_template(text: str) -> str:
    return _C_PERCENT.sub(lambda m: "%" if m.group() == "%%" else "{}", text)


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _short_text(node, limit: int = MAX_NAME) -> str | None:
    """A node's text when it spans at most `limit` bytes, else None (a name is never that long)."""
    if node is None or node.end_byte - node.start_byte > limit:
        return None
    return _text(node)


def _literal(node) -> str | None:
    """The value of a string literal node (escapes decoded), or None."""
    if node.type in ("raw_string_literal",):
        raw = _text(node)
        m = re.match(r'(?:R|r#*)"(?:[^(]*\()?(.*?)(?:\)[^)"]*)?"#*$', raw, re.S)
        return m.group(1) if m else None
    if node.type not in ("string_literal", "string"):
        return None
    out = []
    for child in node.children:
        if child.type in ("string_content", "string_fragment"):
            out.append(_text(child))
        elif child.type == "escape_sequence":
            esc = _text(child)
            out.append(_ESCAPES.get(esc[1:], esc) if len(esc) == 2 else esc)
    return "".join(out)


def _c_message(node, printf: bool) -> str | None:
    """The template a C/C++ expression builds, or None (no literal text, or built too long)."""
    try:
        return _c_template(node, printf)
    except _TooLong:
        return None


def _c_template(node, printf: bool, depth: int = 0) -> str | None:
    """The template a C/C++ expression builds, or None. `printf`: its literals are printf formats."""
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    convert = printf_template if printf else (lambda s: s)
    if kind in ("string_literal", "raw_string_literal"):
        lit = _literal(node)
        return convert(lit) if lit is not None else None
    if kind == "concatenated_string":
        parts = []
        for child in node.named_children:
            lit = _literal(child)
            if lit is not None:
                parts.append(lit)
            elif child.type in ("identifier", "ERROR"):  # PRId64-style macros (the grammar may wrap them in ERROR)
                parts.append("d" if _text(child).strip().startswith("PRI") else "{}")
        return convert("".join(parts))
    if kind == "parenthesized_expression" and node.named_children:
        return _c_template(node.named_children[0], printf, depth + 1)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        if operator is None or operator.type != "+":
            return None
        left = _c_template(node.child_by_field_name("left"), False, depth + 1)
        right = _c_template(node.child_by_field_name("right"), False, depth + 1)
        if left is None and right is None:
            return None
        left, right = (left if left is not None else "{}"), (right if right is not None else "{}")
        if len(left) + len(right) > MAX_MESSAGE:
            raise _TooLong
        return left + right
    if kind == "call_expression":
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        name = _short_text(func, MAX_CALLEE) or ""
        first = args.named_children[0] if args is not None and args.named_children else None
        if name in _STRING_WRAPPERS:
            return _c_template(first, False, depth + 1)
        if name.rsplit("::", 1)[-1] in _FORMAT_CALLS:
            return _c_template(first, True, depth + 1)
        if name in _BRACE_FORMAT_CALLS:
            inner = _c_template(first, False, depth + 1)
            return format_template(inner) if inner is not None else None
    return None


def _walk(root, scope: Callable[[Any, Any], Any], top: Any) -> Iterator[tuple[Any, Any, list, int]]:
    """(node, scope, siblings, index) for every node, depth first in source order. `scope(node, outer)` is the
    scope a node makes for its descendants (its enclosing function, ...): kept on the way down, so no site walks
    up to find it, and no sibling is looked up through tree-sitter (its lookups start again from the root)."""
    stack: list[tuple[list, int, Any]] = [([root], 0, top)]
    while stack:
        siblings, index, outer = stack[-1]
        if index == len(siblings):
            stack.pop()
            continue
        stack[-1] = (siblings, index + 1, outer)
        node = siblings[index]
        yield node, outer, siblings, index
        children = node.children
        if children:
            stack.append((children, 0, scope(node, outer)))


def _c_function(node) -> str:
    """The name a C/C++ function definition declares."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type not in ("function_declarator",):
        decl = decl.child_by_field_name("declarator")
    if decl is not None:
        inner = decl.child_by_field_name("declarator")
        if inner is not None:
            return _short_text(inner) or ANONYMOUS
    return ANONYMOUS


def _c_scope(node, outer: str) -> str:
    return _c_function(node) if node.type == "function_definition" else outer


def _site(node, lines: list[str], template: str | None, kind: str, function: str, exception: str | None = None, level: str | None = None) -> Site | None:
    """A site at `node` (the throw, call, macro or attribute itself: its own lines are the statement)."""
    if template is None:
        return None
    template = template.strip()
    if not template.replace("{}", "").strip():
        return None
    start, end = node.start_point[0], node.end_point[0]
    return Site(template, kind, start + 1, statement_at(lines, start, end), function, exception, level)


def extract_c(source: bytes, language: str, calls: dict[str, CCall]) -> list[Site]:
    """Every error site in one C or C++ file."""
    tree = parser_for(language).parse(source)
    lines = source.decode("utf-8", "replace").split("\n")
    sites: list[Site] = []
    for node, function, _, _ in _walk(tree.root_node, _c_scope, "<file>"):
        if node.type == "throw_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None and value.type == "call_expression":
                func = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                raw = _c_message(first, False)
                site = _site(node, lines, raw, "raise", function, _short_text(func))
                if site:
                    sites.append(site)
        elif node.type == "call_expression":
            callee = _short_text(node.child_by_field_name("function"), MAX_CALLEE)
            if callee is None:
                continue
            name = callee.rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1]
            spec = calls.get(name)
            if spec is None:
                continue
            args = node.child_by_field_name("arguments")
            named = args.named_children if args is not None else []
            if len(named) <= spec.arg:
                continue
            arg = named[spec.arg]
            if spec.condition:
                condition = _short_text(arg, MAX_MESSAGE)
                if condition is None:
                    continue
                template = f"{name}({' '.join(condition.split())}) failed"
                template = template.replace("{}", "{ }")
            else:
                # log and abort macros take printf formats; HTTP error helpers take finished strings
                template = _c_message(arg, spec.kind != "http")
            site = _site(node, lines, template, spec.kind, function, None, spec.level)
            if site:
                sites.append(site)
    return sites


def _rust_string(token_tree) -> str | None:
    """The first string literal of a macro's arguments that is not a named field's value (`target: "x"`)."""
    before = None
    for child in token_tree.children:
        if child.is_named:
            lit = _literal(child)
            if lit is not None and (before is None or before.type not in (":", "=")):
                return lit
        before = child
    return None


def _rust_owner(siblings: list, index: int, owner: str | None) -> tuple[str | None, str]:
    """(type name, variant name) of the enum or struct the attribute at `siblings[index]` belongs to; `owner` is
    the enum or struct it is inside."""
    sibling = None
    for candidate in siblings[index + 1 : index + 1 + MAX_LOOKAHEAD]:
        if candidate.is_named and candidate.type not in ("attribute_item", "line_comment", "block_comment"):
            sibling = candidate
            break
    variant = ""
    if sibling is not None and sibling.type in ("enum_variant", "struct_item", "enum_item"):
        variant = _short_text(sibling.child_by_field_name("name")) or ""
        if sibling.type != "enum_variant":
            return variant, variant
    return owner, variant


def _rust_scope(node, outer: tuple[str, str | None]) -> tuple[str, str | None]:
    """(enclosing function, enclosing enum or struct) for a node's descendants."""
    if node.type == "function_item":
        return _short_text(node.child_by_field_name("name")) or ANONYMOUS, outer[1]
    if node.type in ("enum_item", "struct_item"):
        return outer[0], _short_text(node.child_by_field_name("name"))
    return outer


def extract_rust(source: bytes) -> list[Site]:
    """Every error site in one Rust file."""
    tree = parser_for("rust").parse(source)
    lines = source.decode("utf-8", "replace").split("\n")
    sites: list[Site] = []
    for node, (function, inside), siblings, index in _walk(tree.root_node, _rust_scope, ("<file>", None)):
        site = None
        if node.type == "attribute_item":
            attr = node.named_children[0] if node.named_children else None
            if attr is None or attr.type != "attribute" or not attr.named_children or _short_text(attr.named_children[0]) != "error":
                continue
            args = attr.child_by_field_name("arguments")
            raw = _rust_string(args) if args is not None else None
            if raw is None:
                continue
            owner, variant = _rust_owner(siblings, index, inside)
            site = _site(node, lines, format_template(raw), "raise", variant or owner or "<file>", owner)
        elif node.type == "macro_invocation":
            name = (_short_text(node.child_by_field_name("macro"), MAX_CALLEE) or "").rsplit("::", 1)[-1]
            tt = next((c for c in node.named_children if c.type == "token_tree"), None)
            if tt is None or (name not in RUST_PANICS and name not in RUST_LOGS):
                continue
            raw = _rust_string(tt)
            if raw is None:
                continue
            if name in RUST_PANICS:
                site = _site(node, lines, format_template(raw), RUST_PANICS[name], function, None)
            else:
                site = _site(node, lines, format_template(raw), "log", function, None, RUST_LOGS[name])
        elif node.type == "call_expression":
            func = node.child_by_field_name("function")
            if func is None or func.type != "field_expression":
                continue
            if _short_text(func.child_by_field_name("field")) != "expect":
                continue
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            raw = _literal(first) if first is not None else None
            if raw is None:
                continue
            site = _site(node, lines, raw + ": {}", "panic", function, None)
        if site:
            sites.append(site)
    return sites


# --- Go ------------------------------------------------------------------------------------------------------

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

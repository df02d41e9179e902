"""Error sites in C, C++ and Rust source, from tree-sitter syntax trees.

C/C++: `throw X(msg)`, and the calls and macros a project's configuration lists (`c_calls` in
data/catalog/projects.yaml: GGML_ABORT, LLAMA_LOG_ERROR, send_error ...), each with the argument that holds the
message. A message is a string literal, adjacent literals (with `PRId64`-style macros), `std::string("...") + x`,
or a `format`/`string_format`-style call; printf conversions (`%d`, `%zu`, `%.2f`) become `{}` holes. A `joined`
call's message is its arguments from the message's on, joined as PyTorch's c10::str joins them (TORCH_CHECK).
Rust: `#[error("...")]` on error enums and structs, `panic!`/`unreachable!`/`unimplemented!`/`todo!`,
`bail!`/`anyhow!`, `.expect("...")`, and the `error!`/`warn!` logging macros; `{}`, `{0}`, `{name:?}` holes.

The work is linear in the file: one walk keeps each node's enclosing function and type and its siblings
(tree-sitter's own parent and sibling lookups start again from the root, so using them per site is quadratic),
names are read only when short, and a message built by `+` longer than MAX_MESSAGE is no site.
"""

from __future__ import annotations

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
_QUALIFIER = re.compile(r"\s*::\s*")
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
        text = _short_text(inner) if inner is not None else None
        if text:
            # a qualified name written over lines ("IValue::\n    f"), or a return type the grammar took into the
            # declarator when a macro stands before it ("std::pair<int64_t, int64_t> f"): the name alone
            name = " ".join(_QUALIFIER.sub("::", text).split())
            return name if name.startswith("operator") else _last_word(name)
    return ANONYMOUS


def _last_word(name: str) -> str:
    """What follows the last space outside template brackets ("std::pair<int64_t, int64_t> f" -> "f";
    "Bench<Input, Model>::run" stays whole)."""
    depth, cut = 0, 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            cut = i + 1
    return name[cut:]


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


def call_name(call) -> str | None:
    """The name a C/C++ call expression calls (`at::TORCH_CHECK(...)`, `ctx->send_error(...)`: the last part), as
    `c_calls` names it; None when the callee is longer than MAX_CALLEE bytes."""
    callee = _short_text(call.child_by_field_name("function"), MAX_CALLEE)
    return None if callee is None else callee.rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1]


def _joined(args: list) -> str | None:
    """The template of arguments joined as PyTorch's c10::str joins them (`"a ", x, " b"` -> "a {} b"), or None
    when no argument is literal text (or the message is built too long)."""
    parts, literal = [], False
    for arg in args:
        part = _c_message(arg, False)
        literal = literal or part is not None
        parts.append(part if part is not None else "{}")
        if sum(map(len, parts)) > MAX_MESSAGE:
            return None
    return "".join(parts) if literal else None


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
            name = call_name(node)
            if name is None:
                continue
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
            elif spec.joined:
                template = _joined(named[spec.arg:])
            else:
                # log and abort macros take printf formats; HTTP error helpers take finished strings
                template = _c_message(arg, spec.kind != "http")
            site = _site(node, lines, template, spec.kind, function, spec.exception, spec.level)
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

"""Error sites in C, C++ and Rust source, from tree-sitter syntax trees.

C/C++: `throw X(msg)`, and the calls and macros a project's configuration lists (`c_calls` in
data/catalog/projects.yaml: GGML_ABORT, LLAMA_LOG_ERROR, send_error ...), each with the argument that holds the
message. A message is a string literal, adjacent literals (with `PRId64`-style macros), `std::string("...") + x`,
or a `format`/`string_format`-style call; printf conversions (`%d`, `%zu`, `%.2f`) become `{}` holes.
Rust: `#[error("...")]` on error enums and structs, `panic!`/`unreachable!`/`unimplemented!`/`todo!`,
`bail!`/`anyhow!`, `.expect("...")`, and the `error!`/`warn!` logging macros; `{}`, `{0}`, `{name:?}` holes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .config import CCall
from .extract_python import format_template
from .sites import Site, clip_statement

_C_PERCENT = re.compile(r"%%|%[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L|q)?[diouxXeEfFgGaAcspn]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "0": ""}
_FORMAT_CALLS = {"format", "string_format", "string_sprintf", "ggml_format_name", "strprintf", "sprintf_str"}
_BRACE_FORMAT_CALLS = {"std::format", "fmt::format"}
_STRING_WRAPPERS = {"std::string", "string", "std::string_view"}
RUST_PANICS = {"panic": "panic", "unreachable": "panic", "unimplemented": "panic", "todo": "panic", "bail": "raise", "anyhow": "raise"}
RUST_LOGS = {"error": "error", "warn": "warning"}


@lru_cache(maxsize=None)
def parser_for(language: str):
    """A tree-sitter parser for c, cpp or rust (the grammars are pinned in pyproject.toml)."""
    from tree_sitter import Language, Parser

    if language == "c":
        import tree_sitter_c as grammar
    elif language == "cpp":
        import tree_sitter_cpp as grammar
    elif language == "rust":
        import tree_sitter_rust as grammar
    else:
        raise ValueError(f"no tree-sitter grammar for {language!r}")
    return Parser(Language(grammar.language()))


def printf_template(text: str) -> str:
    return _C_PERCENT.sub(lambda m: "%" if m.group() == "%%" else "{}", text)


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


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


def _c_message(node, printf: bool, depth: int = 0) -> str | None:
    """The template a C/C++ expression builds, or None. `printf`: its literals are printf formats."""
    if node is None or depth > 8:
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
        return _c_message(node.named_children[0], printf, depth + 1)
    if kind == "binary_expression" and _text(node.child_by_field_name("operator")) == "+":
        left = _c_message(node.child_by_field_name("left"), False, depth + 1)
        right = _c_message(node.child_by_field_name("right"), False, depth + 1)
        if left is None and right is None:
            return None
        return (left if left is not None else "{}") + (right if right is not None else "{}")
    if kind == "call_expression":
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        name = _text(func) if func is not None else ""
        first = args.named_children[0] if args is not None and args.named_children else None
        if name in _STRING_WRAPPERS:
            return _c_message(first, False, depth + 1)
        if name.rsplit("::", 1)[-1] in _FORMAT_CALLS:
            return _c_message(first, True, depth + 1)
        if name in _BRACE_FORMAT_CALLS:
            inner = _c_message(first, False, depth + 1)
            return format_template(inner) if inner is not None else None
    return None


def _enclosing_function(node, source: bytes, rust: bool) -> str:
    current = node.parent
    while current is not None:
        if rust and current.type == "function_item":
            name = current.child_by_field_name("name")
            return _text(name) if name is not None else "<anonymous>"
        if not rust and current.type == "function_definition":
            decl = current.child_by_field_name("declarator")
            while decl is not None and decl.type not in ("function_declarator",):
                decl = decl.child_by_field_name("declarator")
            if decl is not None:
                inner = decl.child_by_field_name("declarator")
                if inner is not None:
                    return _text(inner)
            return "<anonymous>"
        current = current.parent
    return "<file>"


def _site(node, lines: list[str], template: str | None, kind: str, function: str, exception: str | None = None, level: str | None = None) -> Site | None:
    """A site at `node` (the throw, call, macro or attribute itself: its own lines are the statement)."""
    if template is None:
        return None
    template = template.strip()
    if not template.replace("{}", "").strip():
        return None
    start, end = node.start_point[0], node.end_point[0]
    return Site(template, kind, start + 1, clip_statement(lines[start : end + 1]), function, exception, level)


def _walk(root):
    cursor = root.walk()
    visited_children = False
    while True:
        if not visited_children:
            yield cursor.node
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


def extract_c(source: bytes, language: str, calls: dict[str, CCall]) -> list[Site]:
    """Every error site in one C or C++ file."""
    tree = parser_for(language).parse(source)
    lines = source.decode("utf-8", "replace").split("\n")
    sites: list[Site] = []
    for node in _walk(tree.root_node):
        if node.type == "throw_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None and value.type == "call_expression":
                func = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                raw = _c_message(first, False)
                site = _site(node, lines, raw, "raise", _enclosing_function(node, source, False), _text(func) if func is not None else None)
                if site:
                    sites.append(site)
        elif node.type == "call_expression":
            func = node.child_by_field_name("function")
            if func is None:
                continue
            name = _text(func).rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1]
            spec = calls.get(name)
            if spec is None:
                continue
            args = node.child_by_field_name("arguments")
            named = args.named_children if args is not None else []
            if len(named) <= spec.arg:
                continue
            arg = named[spec.arg]
            if spec.condition:
                template = f"{name}({' '.join(_text(arg).split())}) failed"
                template = template.replace("{}", "{ }")
            else:
                # log and abort macros take printf formats; HTTP error helpers take finished strings
                template = _c_message(arg, spec.kind != "http")
            site = _site(node, lines, template, spec.kind, _enclosing_function(node, source, False), None, spec.level)
            if site:
                sites.append(site)
    return sites


def _rust_string(token_tree) -> str | None:
    """The first string literal of a macro's arguments that is not a named field's value (`target: "x"`)."""
    for child in token_tree.named_children:
        lit = _literal(child)
        if lit is not None:
            before = child.prev_sibling
            if before is not None and _text(before) in (":", "="):
                continue
            return lit
    return None


def _rust_owner(node) -> tuple[str | None, str]:
    """(type name, variant name) of the enum or struct an attribute belongs to."""
    variant = ""
    sibling = node.next_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        sibling = sibling.next_named_sibling
    if sibling is not None and sibling.type in ("enum_variant", "struct_item", "enum_item"):
        name = sibling.child_by_field_name("name")
        variant = _text(name) if name is not None else ""
        if sibling.type != "enum_variant":
            return variant, variant
    current = node.parent
    while current is not None:
        if current.type in ("enum_item", "struct_item"):
            name = current.child_by_field_name("name")
            return (_text(name) if name is not None else None), variant
        current = current.parent
    return None, variant


def extract_rust(source: bytes) -> list[Site]:
    """Every error site in one Rust file."""
    tree = parser_for("rust").parse(source)
    lines = source.decode("utf-8", "replace").split("\n")
    sites: list[Site] = []
    for node in _walk(tree.root_node):
        site = None
        if node.type == "attribute_item":
            attr = node.named_children[0] if node.named_children else None
            if attr is None or attr.type != "attribute" or not attr.named_children or _text(attr.named_children[0]) != "error":
                continue
            args = attr.child_by_field_name("arguments")
            raw = _rust_string(args) if args is not None else None
            if raw is None:
                continue
            owner, variant = _rust_owner(node)
            site = _site(node, lines, format_template(raw), "raise", variant or owner or "<file>", owner)
        elif node.type == "macro_invocation":
            macro = node.child_by_field_name("macro")
            name = _text(macro).rsplit("::", 1)[-1] if macro is not None else ""
            tt = next((c for c in node.named_children if c.type == "token_tree"), None)
            if tt is None or (name not in RUST_PANICS and name not in RUST_LOGS):
                continue
            raw = _rust_string(tt)
            if raw is None:
                continue
            function = _enclosing_function(node, source, True)
            if name in RUST_PANICS:
                site = _site(node, lines, format_template(raw), RUST_PANICS[name], function, None)
            else:
                site = _site(node, lines, format_template(raw), "log", function, None, RUST_LOGS[name])
        elif node.type == "call_expression":
            func = node.child_by_field_name("function")
            if func is None or func.type != "field_expression":
                continue
            field = func.child_by_field_name("field")
            if field is None or _text(field) != "expect":
                continue
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            raw = _literal(first) if first is not None else None
            if raw is None:
                continue
            site = _site(node, lines, raw + ": {}", "panic", _enclosing_function(node, source, True), None)
        if site:
            sites.append(site)
    return sites

"""Command-line flags of a Rust program, from the clap-derived structs of its source (a tree-sitter syntax tree).

A field of `struct Args` is a flag when one of its attributes, `#[clap(...)]` (clap 2/3) or `#[arg(...)]` (clap 4),
says `long`: the flag is `--` and the field's name with `_` as `-` (`max_input_tokens` -> `--max-input-tokens`), or
the name `long = "name"` gives; `alias`/`visible_alias = "name"` add the names clap accepts too. Only the
attribute's own items count (a `long` inside a nested call, `value_parser = f("long")`, is not one); a field
without `long` is positional or short-only, and no flag.
"""

from __future__ import annotations

from .extract_symbols import REGISTRY_KEY
from .extract_tree_sitter import _literal, _text, parser_for

CLAP_ATTRIBUTES = {"clap", "arg", "structopt"}
ALIASES = {"alias", "visible_alias"}


def _items(tree) -> list[list]:
    """The attribute's top-level items, split at its commas: [[name, "=", value], [name], ...] as nodes."""
    items: list[list] = [[]]
    for child in tree.children[1:-1]:  # between the parentheses
        if child.type == ",":
            items.append([])
        else:
            items[-1].append(child)
    return [item for item in items if item]


def _field_flags(name: str, attributes: list) -> list[str]:
    out = []
    for attribute in attributes:
        head = next((c for c in attribute.children if c.type == "identifier"), None)
        tree = next((c for c in attribute.children if c.type == "token_tree"), None)
        if head is None or tree is None or _text(head) not in CLAP_ATTRIBUTES:
            continue
        for item in _items(tree):
            if item[0].type != "identifier":
                continue
            key = _text(item[0])
            value = _literal(item[2]) if len(item) == 3 and item[1].type == "=" and item[2].type in ("string_literal", "raw_string_literal") else None
            if key == "long" and len(item) == 1:
                out.append("--" + name.removeprefix("r#").replace("_", "-"))
            elif key == "long" and value:
                out.append("--" + value)
            elif key in ALIASES and value:
                out.append("--" + value)
    return [f for f in out if REGISTRY_KEY.fullmatch(f)]


def clap_flags(source: bytes, structs: set[str]) -> list[str]:
    """The long flags of the named structs' fields, sorted, each once."""
    root = parser_for("rust").parse(source).root_node
    found: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "struct_item":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None and _text(name) in structs:
                attributes: list = []
                for child in body.children:
                    if child.type == "attribute_item":
                        attributes += [c for c in child.children if c.type == "attribute"]
                    elif child.type == "field_declaration":
                        field = child.child_by_field_name("name")
                        if field is not None:
                            found.update(_field_flags(_text(field), attributes))
                        attributes = []
            continue
        stack.extend(node.children)
    return sorted(found)

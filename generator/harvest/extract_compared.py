"""The strings a Python file compares one variable with (`model_type == "llama"`, `model_type in ["falcon", ...]`),
read with `ast`, never run: the registry of a dispatch written as a chain of tests, TGI's model types
(server/text_generation_server/models/__init__.py, whose `get_model` raises "Unsupported model type {model_type}"
when no test holds and transformers has no class for it either).

A test may name a constant instead of spelling the string: TGI's `model_type == LLAMA`, where `LLAMA` is a member of
an enum class whose value is a dict literal with the string under "type" (`LLAMA = {"type": "llama", ...}`, bound
again at module level from `data.value["type"]`). Such names are read from the file's class bodies; any other name
(a table of another module, `modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`) gives nothing.
"""

from __future__ import annotations

import ast
import warnings

from .extract_symbols import REGISTRY_KEY

MAX_KEYS = 10_000  # strings one file may give (real: ~100)
TYPE_KEY = "type"


def _member_types(tree: ast.Module) -> dict[str, str]:
    """NAME -> the string under "type" of a class-level `NAME = {"type": "...", ...}`."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                        and isinstance(stmt.value, ast.Dict):
                    for k, v in zip(stmt.value.keys, stmt.value.values):
                        if isinstance(k, ast.Constant) and k.value == TYPE_KEY and isinstance(v, ast.Constant) and isinstance(v.value, str):
                            out[stmt.targets[0].id] = v.value
    return out


def compared_strings(source: bytes, name: str) -> set[str]:
    """The strings `name` is compared with (`==`, `!=`, `in`, `not in`) in the file. Raises SyntaxError or ValueError
    for a file Python cannot parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source.decode("utf-8-sig", "replace"))
    members = _member_types(tree)
    found: set[str] = set()

    def value(node: ast.expr) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
        elif isinstance(node, ast.Name) and node.id in members:
            found.add(members[node.id])
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            for element in node.elts:
                if not isinstance(element, (ast.List, ast.Tuple, ast.Set)):
                    value(element)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == name:
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                    value(right)
            if len(found) > MAX_KEYS:
                raise ValueError(f"more than {MAX_KEYS} compared strings")
    return {s for s in found if REGISTRY_KEY.fullmatch(s)}

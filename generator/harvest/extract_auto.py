"""transformers' auto classes, from one release's `models/auto/` files (read with `ast`, never run): which
configuration classes each auto class (`AutoModelForCausalLM`, `AutoTokenizer`, ...) can load, the registry users
hit with "Unrecognized configuration class <class '...Qwen2VLConfig'> for this kind of AutoModel: AutoModelForCausalLM".

An auto class's table is a `_LazyAutoMapping(CONFIG_MAPPING_NAMES, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)`: model type
-> model class on the right, model type -> configuration class in CONFIG_MAPPING_NAMES on the left. The auto class
names its table in its body (`_model_mapping = MODEL_FOR_CAUSAL_LM_MAPPING`); a class that does not (AutoTokenizer
reads TOKENIZER_MAPPING in its methods) is named in projects.yaml (`symbols: auto_classes: also`). The keys are
`<auto class>.<configuration class>`, one for each configuration class the auto class's table reaches.

Only literal tables count: `NAME = OrderedDict([(key, value), ...])`, a dict literal, `OrderedDict(**{...}, **NAME)`
and `NAME.update({...})`, in statement order across the files (sorted by path), as the library builds them on import.
"""

from __future__ import annotations

import ast
import warnings
from fnmatch import fnmatch

from .extract_symbols import IDENTIFIER, _dotted

MAX_KEYS = 100_000  # keys one release may give (real: ~6,000)
MAPPING_ATTRIBUTE = "_model_mapping"
LAZY = "_LazyAutoMapping"


def _pairs(node: ast.expr, tables: dict[str, dict[str, str | None]]) -> dict[str, str | None] | None:
    """A literal table's key -> value (value None when it is no string), or None for another expression."""
    if isinstance(node, ast.Dict):
        out: dict[str, str | None] = {}
        for k, v in zip(node.keys, node.values):
            if k is None and isinstance(v, ast.Name):  # {**OTHER}
                out.update(tables.get(v.id, {}))
            elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                out[k.value] = v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None
        return out
    if isinstance(node, ast.Call) and (_dotted(node.func) or "").rsplit(".", 1)[-1] in ("OrderedDict", "dict"):
        out = {}
        for arg in node.args[:1]:
            if isinstance(arg, ast.Dict):
                out.update(_pairs(arg, tables) or {})
            elif isinstance(arg, (ast.List, ast.Tuple)):
                for item in arg.elts:
                    if isinstance(item, ast.Tuple) and len(item.elts) == 2 and isinstance(item.elts[0], ast.Constant) \
                            and isinstance(item.elts[0].value, str):
                        v = item.elts[1]
                        out[item.elts[0].value] = v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None
            elif isinstance(arg, ast.Name):
                out.update(tables.get(arg.id, {}))
        for kw in node.keywords:
            if kw.arg is None:  # **{...} or **NAME
                out.update(_pairs(kw.value, tables) or (tables.get(kw.value.id, {}) if isinstance(kw.value, ast.Name) else {}))
            elif isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                out[kw.arg] = kw.value.value
        return out
    return None


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _statements(body: list[ast.stmt]):
    """The module's statements in order, those of top-level `if`/`else` and `try` blocks too (4.x builds
    TOKENIZER_MAPPING_NAMES under `if TYPE_CHECKING: ... else:`)."""
    for node in body:
        if isinstance(node, (ast.If, ast.Try)):
            for part in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)
        else:
            yield node


def auto_class_keys(files: dict[str, bytes], classes: str = "Auto*", also: dict[str, str] | None = None) -> set[str]:
    """`<auto class>.<configuration class>` for every auto class (names matching the glob `classes`) of the files
    given ({path: source}: one release's models/auto/ files). Raises SyntaxError or ValueError for a file Python
    cannot parse, as the harvest's other extractors do."""
    tables: dict[str, dict[str, str | None]] = {}
    lazy: dict[str, tuple[str, str]] = {}  # MODEL_FOR_X_MAPPING -> (CONFIG_MAPPING_NAMES, MODEL_FOR_X_MAPPING_NAMES)
    owner: dict[str, str] = dict(also or {})  # auto class -> its mapping
    for path in sorted(files):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(files[path].decode("utf-8-sig", "replace"))
        for node in _statements(tree.body):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and len(_targets(node)) == 1 \
                    and isinstance(_targets(node)[0], ast.Name):
                name, value = _targets(node)[0].id, node.value
                got = _pairs(value, tables)
                if got is not None:
                    tables[name] = got
                elif isinstance(value, ast.Call) and _dotted(value.func) == LAZY and len(value.args) == 2 \
                        and all(isinstance(a, ast.Name) for a in value.args):
                    lazy[name] = (value.args[0].id, value.args[1].id)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                    and node.value.func.attr == "update" and isinstance(node.value.func.value, ast.Name) and node.value.args:
                got = _pairs(node.value.args[0], tables)
                if got is not None:
                    tables.setdefault(node.value.func.value.id, {}).update(got)
            elif isinstance(node, ast.ClassDef) and fnmatch(node.name, classes):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == MAPPING_ATTRIBUTE for t in stmt.targets) \
                            and isinstance(stmt.value, ast.Name):
                        owner[node.name] = stmt.value.id
    keys: set[str] = set()
    for cls, mapping in sorted(owner.items()):
        if mapping not in lazy or not IDENTIFIER.fullmatch(cls):
            continue
        configs, models = (tables.get(n, {}) for n in lazy[mapping])
        for model_type in models:
            config = configs.get(model_type)
            if config and IDENTIFIER.fullmatch(config):
                keys.add(f"{cls}.{config}")
        if len(keys) > MAX_KEYS:
            raise ValueError(f"more than {MAX_KEYS} auto-class keys")
    return keys

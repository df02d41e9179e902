"""The names one Python file defines, from its syntax tree (the standard library's `ast`): what a user's code, or a
model's remote code, can import from it or call on it. Read, never run.

Per file: the top-level names it binds (definitions, assignments, imports, `__all__`, the names a lazy
`_import_structure` lists), the modules it star-imports, its classes (bases, attributes assigned in the class body
or on `self` in any method, methods with their parameter names), its functions with their parameter names, the
`--flags` its `add_argument` calls spell, and the string keys of its top-level dict literals (the registries users
hit by key: model types, architectures). A parameter list that takes `**kwargs` holds "**".

Upstream files are hostile input: the walk is linear in the tree, names longer than MAX_NAME are left out, and a file
that defines more than MAX_SYMBOLS names is refused (TooMany) rather than stored.
"""

from __future__ import annotations

import ast
import re
import warnings

MAX_NAME = 200  # characters of one name (no real identifier comes near it)
MAX_SYMBOLS = 200_000  # names one file may define, in all
ANY_KEYWORD = "**"  # in a parameter list: the function takes any keyword argument
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
FLAG = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_.-]*")
LAZY_STRUCTURES = ("_import_structure",)  # transformers' lazy modules: {submodule: [names]}


class TooMany(Exception):
    """A file that defines more names than any real one."""


def module_name(path: str) -> str | None:
    """`a/b/c.py` -> `a.b.c`, `a/b/__init__.py` -> `a.b`; None when a part is no identifier (no import reaches it)."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(IDENTIFIER.fullmatch(p) for p in parts):
        return None
    return ".".join(parts)


def _package(module: str, is_package: bool) -> list[str]:
    parts = module.split(".")
    return parts if is_package else parts[:-1]


def absolute(module: str, is_package: bool, level: int, target: str | None) -> str | None:
    """The absolute module of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target
    base = _package(module, is_package)
    if level - 1 > len(base):
        return None
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else [])) or None


def _ok(name: str | None) -> bool:
    """A name kept: an ASCII identifier of at most MAX_NAME characters, not a dunder."""
    return bool(name) and len(name) <= MAX_NAME and IDENTIFIER.fullmatch(name) is not None and not (name.startswith("__") and name.endswith("__"))


def _dotted_ok(name: str | None) -> bool:
    return bool(name) and len(name) <= MAX_NAME * 2 and all(IDENTIFIER.fullmatch(p) and len(p) <= MAX_NAME for p in name.split(".")) and name.count(".") < 32


REGISTRY_KEY = re.compile(r"(?:--)?[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,199}")


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Subscript):  # Generic[T], OrderedDict[str, str](...)
        return _dotted(node.value) if not parts else None
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _strings(node: ast.AST) -> list[str]:
    """The string constants directly in a list, tuple or set literal."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def dict_keys(node: ast.expr) -> list[str] | None:
    """The string keys of a dict literal, `dict(...)`, or `OrderedDict([(key, value), ...])`; None for other values."""
    if isinstance(node, ast.Dict):
        return [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        if name.rsplit(".", 1)[-1] not in ("OrderedDict", "dict"):
            return None
        keys = [kw.arg for kw in node.keywords if kw.arg]
        for arg in node.args[:1]:
            if isinstance(arg, ast.Dict):
                keys += dict_keys(arg) or []
            elif isinstance(arg, (ast.List, ast.Tuple)):
                for item in arg.elts:
                    if isinstance(item, ast.Tuple) and item.elts and isinstance(item.elts[0], ast.Constant) and isinstance(item.elts[0].value, str):
                        keys.append(item.elts[0].value)
        return keys
    return None


def _classvar(annotation: ast.expr) -> bool:
    name = _dotted(annotation.value if isinstance(annotation, ast.Subscript) else annotation) or ""
    return name.rsplit(".", 1)[-1] == "ClassVar"  # not a dataclass field (an InitVar is: __init__ takes it)


def _names_list(node: ast.expr) -> list[str] | None:
    """The class names a variable is set to, `X` or `[X, Y]` (a module's entry classes); None for other values."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(isinstance(e, ast.Name) for e in node.elts):
        return [e.id for e in node.elts]
    return None


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    args = fn.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    if method and names and names[0] in ("self", "cls") and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
        names = names[1:]
    if args.vararg is not None:
        names.append("*" + args.vararg.arg)
    if args.kwarg is not None:
        names.append(ANY_KEYWORD)
    return sorted({n for n in names if n == ANY_KEYWORD or _ok(n.lstrip("*"))})


class _File:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.names: set[str] = set()
        self.star: set[str] = set()
        self.imported: dict[str, str] = {}  # local name -> absolute dotted origin
        self.classes: dict[str, dict] = {}
        self.functions: dict[str, list[str]] = {}
        self.flags: set[str] = set()
        self.keys: dict[str, list[str]] = {}
        self.count = 0

    def _spend(self, n: int = 1) -> None:
        self.count += n
        if self.count > MAX_SYMBOLS:
            raise TooMany(f"more than {MAX_SYMBOLS} names")

    def top(self, body: list[ast.stmt]) -> None:
        for node in body:
            self.statement(node)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _ok(node.name):
                self.functions[node.name] = parameters(node, method=False)
                self._spend(1 + len(self.functions[node.name]))
        elif isinstance(node, ast.ClassDef):
            if _ok(node.name):
                self.classes[node.name] = self.klass(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.assignment(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                if _ok(local):
                    self.names.add(local)
                    self.imported[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            origin = absolute(self.module, self.is_package, node.level, node.module)
            for alias in node.names:
                if alias.name == "*":
                    if _dotted_ok(origin):
                        self.star.add(origin)
                    continue
                local = alias.asname or alias.name
                if _ok(local):
                    self.names.add(local)
                    if origin:
                        self.imported[local] = f"{origin}.{alias.name}"
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)) or type(node).__name__ == "TryStar":
            for part in ("body", "orelse", "finalbody"):
                self.top(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                self.top(handler.body)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.lazy_call(node.value)
        self._spend()

    def assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for target in targets:
            for leaf in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                if isinstance(leaf, ast.Name):
                    if leaf.id == "__all__" and value is not None:
                        self.names.update(n for n in _strings(value) if _ok(n))
                    elif leaf.id in LAZY_STRUCTURES and isinstance(value, ast.Dict):
                        for k, v in zip(value.keys, value.values):
                            self.lazy(k, _strings(v))
                    elif _ok(leaf.id):
                        self.names.add(leaf.id)
                        keys = dict_keys(value) if value is not None else None
                        if keys is None and value is not None and leaf.id[:1].isupper():
                            keys = _names_list(value)  # `EntryClass = [LlamaForCausalLM, ...]`: SGLang's model list
                        if keys is not None:
                            self.keys[leaf.id] = []
                            self.add_keys(leaf.id, keys)
                elif isinstance(leaf, ast.Subscript) and isinstance(leaf.value, ast.Name) and leaf.value.id in LAZY_STRUCTURES:
                    self.lazy(leaf.slice, _strings(value) if value is not None else [])
                elif isinstance(leaf, ast.Subscript) and isinstance(leaf.value, ast.Name) and leaf.value.id in self.keys \
                        and isinstance(leaf.slice, ast.Constant) and isinstance(leaf.slice.value, str):
                    self.add_keys(leaf.value.id, [leaf.slice.value])  # REGISTRY["key"] = ...

    def lazy(self, submodule: ast.AST | None, names: list[str]) -> None:
        """A lazy module's `_import_structure[submodule] = [names]`: the submodule and the names are importable."""
        if isinstance(submodule, ast.Constant) and isinstance(submodule.value, str):
            head = submodule.value.split(".")[0]
            if _ok(head):
                self.names.add(head)
        self.names.update(n for n in names if _ok(n))
        self._spend(len(names))

    def add_keys(self, variable: str, keys: list[str]) -> None:
        self.keys[variable] = sorted(set(self.keys.get(variable, [])) | {k for k in keys if REGISTRY_KEY.fullmatch(k)})
        self._spend(len(keys))

    def lazy_call(self, call: ast.Call) -> None:
        """`_import_structure[...].extend([...])` / `.append("...")`; `REGISTRY.update({...})` adds keys to a registry
        (one the file defines or imports: transformers' CONFIG_MAPPING_NAMES.update(...) in another file)."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "update" and isinstance(func.value, ast.Name) and _ok(func.value.id) and call.args:
            keys = dict_keys(call.args[0])
            if keys is not None:
                self.add_keys(func.value.id, keys)
            return
        if isinstance(func, ast.Attribute) and func.attr in ("extend", "append") and isinstance(func.value, ast.Subscript) \
                and isinstance(func.value.value, ast.Name) and func.value.value.id in LAZY_STRUCTURES:
            names: list[str] = []
            for arg in call.args:
                names += _strings(arg) if not isinstance(arg, ast.Constant) else ([arg.value] if isinstance(arg.value, str) else [])
            self.lazy(None, names)

    def base(self, node: ast.expr) -> str | None:
        name = _dotted(node)
        if not name:
            return None
        head, _, rest = name.partition(".")
        if head in self.imported:
            return self.imported[head] + ("." + rest if rest else "")
        if not rest:
            return f"{self.module}.{name}"
        return name

    def klass(self, node: ast.ClassDef) -> dict:
        bases = sorted({b for b in (self.base(e) for e in node.bases) if _dotted_ok(b)})
        attrs: set[str] = set()
        fields: set[str] = set()  # annotated names in the class body: a dataclass's fields
        methods: dict[str, list[str]] = {}
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _ok(item.name) or item.name in ("__init__", "__call__"):  # the two dunders users call with arguments
                    methods[item.name] = parameters(item, method=True)
                    self._spend(1 + len(methods[item.name]))
                attrs.update(self.self_attributes(item))
            elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                for target in (item.targets if isinstance(item, ast.Assign) else [item.target]):
                    for leaf in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                        if isinstance(leaf, ast.Name) and _ok(leaf.id):
                            attrs.add(leaf.id)
                            if isinstance(item, ast.AnnAssign) and not _classvar(item.annotation):
                                fields.add(leaf.id)
        if "__init__" not in methods and any((_dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] == "dataclass"
                                             for d in node.decorator_list):
            methods["__init__"] = sorted(fields)  # a dataclass's generated __init__ takes its fields (a base's: from the base)
        attrs -= set(methods)
        self._spend(len(attrs) + len(bases))
        return {"attrs": sorted(attrs), "bases": bases, "methods": dict(sorted(methods.items()))}

    def self_attributes(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
        """`self.x = ...` (and `self.x: T = ...`, `self.x += ...`) anywhere in a method."""
        if not fn.args.args:
            return set()
        me = fn.args.args[0].arg
        found: set[str] = set()
        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for target in targets:
                for leaf in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == me and _ok(leaf.attr):
                        found.add(leaf.attr)
        return found

    def all_flags(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and FLAG.fullmatch(arg.value) and REGISTRY_KEY.fullmatch(arg.value):
                        self.flags.add(arg.value)
                        self._spend()

    def result(self) -> dict:
        return {
            "classes": dict(sorted(self.classes.items())),
            "flags": sorted(self.flags),
            "functions": dict(sorted(self.functions.items())),
            "keys": dict(sorted(self.keys.items())),
            "names": sorted(self.names - set(self.classes) - set(self.functions)),
            "star": sorted(self.star),
        }


def python_symbols(source: bytes, path: str) -> dict | None:
    """The symbols of one Python file at `path` (None when no import reaches the path). Raises what says why a file
    cannot be read: SyntaxError, ValueError (a NUL byte), MemoryError, RecursionError, TooMany."""
    module = module_name(path)
    if module is None:
        return None
    text = source.decode("utf-8-sig", "replace")  # a byte-order mark is no character of the source (Python skips it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
    found = _File(module, path.endswith("/__init__.py") or path == "__init__.py")
    found.top(tree.body)
    found.all_flags(tree)
    return found.result()

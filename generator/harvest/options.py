"""The options a guide names: the command-line flags (argparse `add_argument`) and the fields of configuration
classes (dataclasses, pydantic models, argument classes: CONFIG_CLASS) one release declares, with their default
and help text, read from its Python files once per file content and cached (`<cache>/guides/<GUIDE_VERSION>/
options/`); and which of them a guide names (pick_options)."""

from __future__ import annotations

import ast
import json
import re
import warnings

from .. import chars
from ..cachedir import write_atomic
from .config import Project
from .fetch import Cache

GUIDE_VERSION = "1"  # bump when what a guide holds changes: cached option tables of older versions are not reused
MAX_TEXT = 300  # characters of a condition, comment, docstring line, default or help text
MAX_OPTIONS = 4  # options one guide names
MAX_SOURCE = 4 << 20  # bytes of a file read for a guide or an option table
# classes whose annotated fields are configuration (dataclasses, pydantic models, argument classes)
CONFIG_CLASS = re.compile(r"(Config|Args|Arguments|Settings|Options|Params|Parameters)$")
_PREFILTER = re.compile(rb"add_argument|class\s+\w*(?:Config|Args|Arguments|Settings|Options|Params|Parameters)\b")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)")
_FLAG_NAME = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def clip(text: str | None) -> str | None:
    """Upstream text as a guide holds it: cut to MAX_TEXT characters; none when it holds a character the
    catalog refuses (generator/chars.py), so that such a text costs only itself, not its entry."""
    if text is None or chars.first_unsafe(text) or chars.HIDDEN.search(text):
        return None
    text = " ".join(text.split()) if "\n" in text and len(text) > MAX_TEXT else text
    text = text.strip()
    if not text:
        return None
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _source(node: ast.AST) -> str | None:
    try:
        return clip(ast.unparse(node))
    except (ValueError, RecursionError):
        return None


def _text_of(node: ast.AST | None) -> str | None:
    """A string literal, an implicit concatenation or an f-string's literal parts, as text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text_of(node.left), _text_of(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _field_default_help(value: ast.expr | None) -> tuple[str | None, str | None]:
    """Default and help of a class field's value: `x = 3`, `field(default=3, metadata={"help": ...})`,
    `Field(3, description=...)`."""
    if value is None:
        return None, None
    if isinstance(value, ast.Call):
        callee = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
        if callee in ("field", "Field"):
            default = _keyword(value, "default")
            if default is None and value.args:
                default = value.args[0]
            if default is None:
                default = _keyword(value, "default_factory")
            help_text = _text_of(_keyword(value, "description"))
            metadata = _keyword(value, "metadata")
            if help_text is None and isinstance(metadata, ast.Dict):
                for k, v in zip(metadata.keys, metadata.values):
                    if isinstance(k, ast.Constant) and k.value == "help":
                        help_text = _text_of(v)
            return (_source(default) if default is not None else None), help_text
    return _source(value), None


def options_of(source: bytes) -> list[dict]:
    """The options one Python file declares: argparse flags and configuration classes' fields."""
    if len(source) > MAX_SOURCE or not _PREFILTER.search(source):
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    out: list[dict] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and _FLAG_NAME.fullmatch(a.value)]
            if not flags:
                continue
            default = _keyword(node, "default")
            row = {"kind": "flag", "name": flags[0][2:].replace("-", "_"), "flag": flags[0], "line": node.lineno,
                   "default": _source(default) if default is not None else None, "help": clip(_text_of(_keyword(node, "help")))}
            out.append({k: v for k, v in row.items() if v is not None})
        elif isinstance(node, ast.ClassDef) and CONFIG_CLASS.search(node.name):
            body = node.body
            for i, item in enumerate(body):
                if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                    continue
                default, help_text = _field_default_help(item.value)
                following = body[i + 1] if i + 1 < len(body) else None
                if help_text is None and isinstance(following, ast.Expr):
                    help_text = _text_of(following.value)
                if help_text is not None:
                    help_text = help_text.strip().split("\n\n", 1)[0]
                row = {"kind": "field", "name": item.target.id, "class": node.name, "line": item.lineno,
                       "default": default, "help": clip(help_text)}
                out.append({k: v for k, v in row.items() if v is not None})
    return out


def file_options(cache: Cache, sha: str) -> list[dict]:
    """`options_of` for one file content, read once and cached."""
    store = cache.root / "guides" / GUIDE_VERSION / "options" / sha[:2] / f"{sha}.json"
    if store.is_file():
        return json.loads(store.read_text(encoding="utf-8"))
    try:
        rows = options_of(cache.get_blob(sha))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        rows = []
    write_atomic(store, json.dumps(rows, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    return rows


def release_options(cache: Cache, project: Project, manifest: dict) -> dict[str, list[dict]]:
    """A release's options by name: each name's declarations (flags first, then fields with help text first),
    each with the path it is declared in."""
    table: dict[str, list[dict]] = {}
    for path, sha in sorted(manifest["files"].items()):
        if project.language_of(path) != "python":
            continue
        for row in file_options(cache, sha):
            table.setdefault(row["name"], []).append({**row, "path": path})
    for rows in table.values():
        rows.sort(key=lambda r: (r["kind"] != "flag", "help" not in r, r["path"], r["line"]))
    return table


def pick_options(names: list[str], table: dict[str, list[dict]], path: str, template: str) -> list[dict]:
    """The options a guide names (at most MAX_OPTIONS): the flags the message itself tells the user to set
    (`--max-model-len` in the template) first, then the code's `names` with help text, then the rest, each in the
    order they are named."""
    said = [m.group(1).replace("-", "_") for m in _FLAG.finditer(template)]
    wanted = said + [n for n in names if n not in said]
    found = [row for row in (_option(table.get(name) or [], path) for name in wanted) if row is not None]
    found.sort(key=lambda row: (row["name"] not in said, "help" not in row))
    return [{k: row[k] for k in ("kind", "name", "flag", "class", "default", "help", "path", "line") if k in row}
            for row in found[:MAX_OPTIONS]]


def _option(rows: list[dict], path: str) -> dict | None:
    """The declaration a name at `path` stands for: one in the same file, else the only one (a flag and its
    field count as one); a name several unrelated classes declare is left out rather than guessed."""
    rows = [r for r in rows if "help" in r or "default" in r]
    same = [r for r in rows if r["path"] == path]
    if same:
        return same[0]
    owners = {r.get("class", "") for r in rows if r["kind"] == "field"}
    return rows[0] if rows and len(owners) <= 1 else None

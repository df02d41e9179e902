"""A catalog entry's guide: what the code around a message says about it, read mechanically at one release.

For the newest site of an entry (the file and line of its newest release), the guide holds what the code gives
and nothing else: the condition that guards the raise (the nearest enclosing `if` test, the `else` of one, the
`except` clause, or the asserted condition), the comment just above the statement (or above its guard), the first
line of the enclosing function's docstring (a doc comment in C, C++ and Rust), and the configuration fields and
command-line flags that the condition or the message names, with their default and help text at that release
(argparse `add_argument`, dataclass and pydantic fields of configuration classes). A part the code does not give
is left out; a guide with no part at all is not written.

Upstream files are hostile input: each text is clipped (MAX_TEXT), a file that cannot be parsed gives no guide,
and option tables are read once per file content and cached (generator/harvest/options.py).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .catalog import newest_site, version_key
from .config import Project
from .fetch import Cache
from .extract_tree_sitter import call_name, parser_for
from .options import _FLAG, MAX_SOURCE, _source, clip, pick_options, release_options

MAX_COMMENT_LINES = 3
_ALWAYS_FAILS = {"false", "0", "FALSE"}  # a checked condition that always fails: no guard of its own
# names too common to stand for one option (`model`, `config`, ... are attributes of everything)
GENERIC = frozenset({"self", "cls", "args", "kwargs", "config", "model", "name", "value", "type", "path", "key",
                     "data", "x", "y", "i", "n", "k", "v", "e", "f", "len", "str", "int", "float", "bool", "list",
                     "dict", "tuple", "set", "none", "true", "false", "shape", "size", "device", "dtype_", "kind"})


# --- Python ------------------------------------------------------------------------------------------------

_STATEMENT_LISTS = ("body", "orelse", "handlers", "finalbody", "cases")


def _chain(tree: ast.Module, line: int) -> list[tuple[ast.AST, str]]:
    """The nodes from the module down to the innermost statement that starts at `line`, each with the field of
    its parent it sits in (`body`, `orelse`, ...)."""
    chain: list[tuple[ast.AST, str]] = [(tree, "")]
    node: ast.AST = tree
    while True:
        found = None
        for fieldname in _STATEMENT_LISTS:
            for child in getattr(node, fieldname, None) or []:
                start = getattr(child, "lineno", None)
                end = getattr(child, "end_lineno", start)
                if start is None:  # match cases have no position of their own: their body does
                    body = getattr(child, "body", None) or []
                    if body and body[0].lineno <= line <= body[-1].end_lineno:
                        found = (child, fieldname)
                elif start <= line <= end:
                    found = (child, fieldname)
                if found:
                    break
            if found:
                break
        if found is None:
            return chain
        chain.append(found)
        node = found[0]


def _guard(chain: list[tuple[ast.AST, str]], line: int) -> tuple[dict | None, int | None]:
    """The nearest guard of the statement at the end of `chain`, and the line its comment would sit above."""
    statement = chain[-1][0]
    if isinstance(statement, ast.Assert) and statement.lineno == line:
        return {"kind": "assert", "source": _source(statement.test)}, statement.lineno
    for depth in range(len(chain) - 1, 0, -1):
        node, fieldname = chain[depth]
        parent = chain[depth - 1][0]
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            return None, None
        if isinstance(parent, ast.If):
            kind = "if" if fieldname == "body" else "else"
            return {"kind": kind, "source": _source(parent.test)}, parent.lineno
        if isinstance(parent, (ast.While,)) and fieldname == "body":
            return {"kind": "while", "source": _source(parent.test)}, parent.lineno
        if isinstance(node, ast.ExceptHandler):
            caught = _source(node.type) if node.type is not None else "any exception"
            return {"kind": "except", "source": caught}, node.lineno
        if isinstance(node, ast.match_case):
            return {"kind": "case", "source": _source(node.pattern)}, None
    return None, None


def _comment_above(lines: list[str], line: int | None) -> str | None:
    """The `#` comment lines just above 1-based `line` (contiguous, at most MAX_COMMENT_LINES)."""
    if not line:
        return None
    out: list[str] = []
    index = line - 2
    while index >= 0 and len(out) < MAX_COMMENT_LINES:
        text = lines[index].strip()
        if not text.startswith("#"):
            break
        out.append(text.lstrip("#").strip())
        index -= 1
    return clip(" ".join(reversed(out))) if out else None


def _docstring_line(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    try:
        doc = ast.get_docstring(node)  # type: ignore[arg-type]
    except TypeError:
        return None
    if not doc:
        return None
    for text in doc.splitlines():
        if text.strip():
            return clip(text)
    return None


def _names(nodes: Iterable[ast.AST | None]) -> list[str]:
    """Identifiers (bare names and attribute names) the nodes use, in order of appearance, without repeats."""
    out: list[str] = []
    for root in nodes:
        if root is None:
            continue
        for node in ast.walk(root):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name and name.lower() not in GENERIC and len(name) >= 3 and name not in out:
                out.append(name)
    return out


@lru_cache(maxsize=8)
def _python_tree(source: bytes) -> tuple[ast.Module, list[str]]:
    """A file's syntax tree and lines, parsed once for all the entries raised in it (entries come in file order)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    return tree, source.decode("utf-8", "replace").splitlines()


@lru_cache(maxsize=8)
def _c_tree(source: bytes, language: str):
    return parser_for(language).parse(source), source.split(b"\n")


def python_guide(source: bytes, line: int) -> tuple[dict, list[str]]:
    """The guide parts read at `line` of a Python file, and the names an option table is searched for."""
    if len(source) > MAX_SOURCE:
        return {}, []
    tree, lines = _python_tree(source)
    chain = _chain(tree, line)
    statement = chain[-1][0]
    if not isinstance(statement, ast.stmt) or statement.lineno != line:
        return {}, []
    guard, guard_line = _guard(chain, line)
    function = next((n for n, _ in reversed(chain) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    guide: dict[str, Any] = {}
    if guard and guard.get("source"):
        guide["guard"] = guard
    comment = _comment_above(lines, line) or _comment_above(lines, guard_line)
    if comment:
        guide["comment"] = comment
    doc = _docstring_line(function)
    if doc:
        guide["doc"] = doc
    test = None
    if isinstance(statement, ast.Assert):
        test = statement.test
    elif guard and guard["kind"] in ("if", "else", "while"):
        parent = next((n for n, _ in reversed(chain[:-1]) if isinstance(n, (ast.If, ast.While))), None)
        test = parent.test if parent is not None else None
    return guide, _names([test, statement])


# --- C, C++, Rust ------------------------------------------------------------------------------------------

_C_COMMENTS = ("comment", "line_comment", "block_comment")
_C_FUNCTIONS = ("function_definition", "function_item", "function_declaration", "method_declaration")


def _comment_text(node) -> str:
    text = node.text.decode("utf-8", "replace").strip()
    if text.startswith("/*"):
        text = text[2:-2] if text.endswith("*/") else text[2:]
        return " ".join(l.strip().lstrip("*").strip() for l in text.splitlines())
    return text.lstrip("/!").strip()


def _comments_before(node) -> str | None:
    """The comment nodes that end on the lines just above `node` (contiguous)."""
    out: list[str] = []
    row = node.start_point[0]
    sibling = node.prev_sibling
    if sibling is None and node.parent is not None and node.parent.type == "statement_list":
        sibling = node.parent.prev_sibling  # Go: a comment before a block's first statement sits outside its list
    while sibling is not None and sibling.type in _C_COMMENTS and len(out) < MAX_COMMENT_LINES:
        if sibling.end_point[0] < row - 1:
            break
        out.append(_comment_text(sibling))
        row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return clip(" ".join(t for t in reversed(out) if t)) if out else None


def c_guide(source: bytes, line: int, language: str, kind: str, checks: dict[str, int] | None = None) -> dict:
    """The guide parts read at `line` of a C, C++, Rust or Go file (tree-sitter). `checks`: the calls that check a
    condition and the argument that holds it (TORCH_CHECK: 0), whose condition is the guard."""
    if len(source) > MAX_SOURCE:
        return {}
    tree, lines = _c_tree(source, language)
    row = line - 1
    if row >= len(lines):
        return {}
    column = len(lines[row]) - len(lines[row].lstrip())
    node = tree.root_node.descendant_for_point_range((row, column), (row, column))
    # the statement: the outermost node that starts on the line under the innermost block
    while node is not None and node.parent is not None and node.parent.start_point[0] == row and node.parent.type not in (
            "compound_statement", "block", "statement_list", "translation_unit", "source_file", "declaration_list", "field_declaration_list"):
        node = node.parent
    while node is not None and node.start_point[0] != row and node.parent is not None:
        node = node.parent
    if node is None:
        return {}
    guide: dict[str, Any] = {}
    call = node if node.type in ("call_expression", "macro_invocation") else next(
        (c for c in node.named_children if c.type in ("call_expression", "macro_invocation")), None)
    args = call.child_by_field_name("arguments") if call is not None and call.type == "call_expression" else None
    checked = None
    if kind == "assert":
        checked = 0
    elif checks and args is not None:
        checked = checks.get(call_name(call) or "")
    if args is not None and checked is not None and len(args.named_children) > checked:
        source_text = clip(args.named_children[checked].text.decode("utf-8", "replace"))
        if source_text and source_text not in _ALWAYS_FAILS:  # TORCH_CHECK(false, ...): the enclosing `if` says when
            guide["guard"] = {"kind": "assert", "source": source_text}
    guard_node = None
    walker = node
    while walker is not None and "guard" not in guide:
        parent = walker.parent
        if parent is None or parent.type in _C_FUNCTIONS:
            break
        if parent.type in ("if_statement", "if_expression"):
            condition = parent.child_by_field_name("condition")
            consequence = parent.child_by_field_name("consequence")
            inside = consequence is not None and consequence.start_byte <= walker.start_byte < consequence.end_byte
            if condition is not None:
                text = condition.text.decode("utf-8", "replace")
                if text.startswith("(") and text.endswith(")"):
                    text = text[1:-1]
                guide["guard"] = {"kind": "if" if inside else "else", "source": clip(text)}
                guard_node = parent
        walker = parent
    comment = _comments_before(node) or (_comments_before(guard_node) if guard_node is not None else None)
    if comment:
        guide["comment"] = comment
    function = node
    while function is not None and function.type not in _C_FUNCTIONS:
        function = function.parent
    if function is not None:
        doc = _comments_before(function)
        if doc:
            guide["doc"] = doc
    if guide.get("guard") and not guide["guard"].get("source"):
        del guide["guard"]
    return guide


# --- guides ------------------------------------------------------------------------------------------------

def guide_for(cache: Cache, project: Project, site: dict, template: str, kind: str, manifests: dict[str, dict],
              tables: dict[str, dict[str, list[dict]]]) -> dict | None:
    """The guide of an entry whose message is `template`, read at its newest `site`'s newest release; None when
    the code gives nothing."""
    release, path, line = site["to"], site["path"], site["line"]
    manifest = manifests.get(release)
    if manifest is None:
        manifest = cache.manifest(project.slug, release, project.selection())
        if manifest is None:
            return None
        manifests[release] = manifest
    sha = manifest["files"].get(path)
    lang = project.language_of(path)
    if sha is None or lang is None:
        return None
    source = cache.get_blob(sha)
    names: list[str] = []
    try:
        if lang == "python":
            guide, names = python_guide(source, line)
        else:
            guide = c_guide(source, line, lang, kind, project.call_checks)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if lang == "python" and (names or _FLAG.search(template)):
        if release not in tables:
            tables[release] = release_options(cache, project, manifest)
        options = pick_options(names, tables[release], path, template)
        if options:
            guide["options"] = options
    if not guide:
        return None
    return {"release": release, "path": path, "line": line, **guide}


def add_guides(cache: Cache, project: Project, entries: Iterable[Any], again: bool = False) -> tuple[int, int]:
    """Set the guide of each user-facing catalog Entry (internal ones get none), keeping one whose newest site is
    unchanged (same file and line, its release within the site's range) unless `again`. Entries are read file by file, so that
    each file is parsed once. Returns (entries read, entries that have a guide)."""
    manifests: dict[str, dict] = {}
    tables: dict[str, dict[str, list[dict]]] = {}
    read = have = 0
    todo = []
    for entry in entries:
        if entry.tier != "user":
            entry.guide = None
            continue
        site, old = newest_site(entry.sites), entry.guide
        if (not again and old and old.get("path") == site["path"] and old.get("line") == site["line"]
                and version_key(site["from"]) <= version_key(old.get("release", "")) <= version_key(site["to"])):
            have += 1
            continue
        todo.append((site, entry))
    todo.sort(key=lambda t: (version_key(t[0]["to"]), t[0]["path"], t[0]["line"], t[1].id))
    for site, entry in todo:
        entry.guide = guide_for(cache, project, site, entry.template, entry.kind, manifests, tables)
        read += 1
        have += entry.guide is not None
    return read, have

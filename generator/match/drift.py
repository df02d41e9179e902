"""Version drift: lines where Python says the installed release lacks a name that code expects. The shapes are
data (SHAPES), read by `asks`; `tests/fixtures/drift-conformance.json` holds lines with what each must give.

Each shape is a regular expression with named groups, tried on each line that holds its fixed `literal` (at most
MAX_LINE characters of it):
  import     cannot import name 'X' from 'pkg.mod'                          -> module, name
  module     No module named 'pkg.sub'                                      -> module
  attribute  'Class' object has no attribute 'y' / type object 'Class' ...  -> cls, attr
             module 'pkg.mod' has no attribute 'y'                          -> module, attr
  kwarg      Class.method() got an unexpected keyword argument 'z'          -> func, kwarg
  registry   model type `x` but Transformers does not recognize ...         -> key in transformers' model types
             Model architectures ['X', ...] are not supported               -> keys in vLLM's architectures
             KeyError: 'x' after a frame of transformers' auto configuration -> key in model types
  flag       unrecognized arguments: --a --b                                -> flags
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINE = 2000
NAME = r"[A-Za-z_][A-Za-z0-9_]{0,199}"
DOTTED = rf"{NAME}(?:\.{NAME}){{0,31}}"

SHAPES: list[dict] = [
    {"shape": "import", "literal": "cannot import name '", "regex": rf"cannot import name '(?P<name>{NAME})' from '(?P<module>{DOTTED})'"},
    {"shape": "module", "literal": "No module named '", "regex": rf"No module named '(?P<module>{DOTTED})'"},
    {"shape": "attribute", "literal": "has no attribute '", "regex": rf"module '(?P<module>{DOTTED})' has no attribute '(?P<attr>{NAME})'"},
    {"shape": "attribute", "literal": "has no attribute '", "regex": rf"'(?P<cls>{DOTTED})' (?:object )?has no attribute '(?P<attr>{NAME})'"},
    {"shape": "kwarg", "literal": "got an unexpected keyword argument '", "regex": rf"(?P<func>{DOTTED})\(\) got an unexpected keyword argument '(?P<kwarg>{NAME})'"},
    {"shape": "registry", "registry": "model_types", "project": "transformers", "literal": "but Transformers does not recognize",
     "regex": r"model type `(?P<key>[A-Za-z0-9_.-]{1,100})` but Transformers does not recognize"},
    {"shape": "registry", "registry": "architectures", "project": "vllm", "literal": "Model architectures [",
     "regex": r"Model architectures \[(?P<keys>'[A-Za-z0-9_]{1,100}'(?:, '[A-Za-z0-9_]{1,100}'){0,15})\] (?:are|is) not supported"},
    {"shape": "registry", "registry": "model_types", "project": "transformers", "after": r"configuration_auto\.py|CONFIG_MAPPING", "literal": "KeyError: '",
     "regex": r"(?:^|[\s:\]])KeyError: '(?P<key>[A-Za-z0-9_.-]{1,100})'\s*$"},
    {"shape": "flag", "registry": "flags", "literal": "unrecognized arguments: --", "regex": r"unrecognized arguments: (?P<flags>--[A-Za-z0-9_.=-]{1,100}(?: \S{1,200}){0,15})"},
]
COMPILED = [(s, re.compile(s["regex"]), re.compile(s["after"]) if "after" in s else None) for s in SHAPES]
CONTEXT_LINES = 12  # lines before a KeyError searched for the frame that says whose registry it is


@dataclass(frozen=True)
class Ask:
    """A name a line says is missing: the shape, the line (1-based), and what it names."""

    shape: str
    line: int
    module: str = ""
    name: str = ""  # import: the name; attribute: the attribute; kwarg: the keyword argument
    cls: str = ""
    func: str = ""
    registry: str = ""
    keys: tuple[str, ...] = ()
    project: str = ""  # a project the shape itself names (registries)


def _keys(found: dict) -> tuple[str, ...]:
    if found.get("key"):
        return (found["key"],)
    if found.get("keys"):
        return tuple(re.findall(r"'([^']+)'", found["keys"]))
    if found.get("flags"):
        return tuple(f.split("=")[0] for f in found["flags"].split() if f.startswith("--"))
    return ()


def asks(text: str) -> list[Ask]:
    """Every drift a log's lines state, in line order, the first shape that fits each line. Each shape's fixed
    `literal` is looked for in the whole text first: a log that holds none costs one substring search a shape."""
    live = [c for c in COMPILED if c[0]["literal"] in text]
    if not live:
        return []
    lines = text.split("\n")
    out: list[Ask] = []
    for number, raw in enumerate(lines, 1):
        line = raw[:MAX_LINE]
        for shape, regex, after in live:
            if shape["literal"] not in line:
                continue
            m = regex.search(line)
            if m is None:
                continue
            if after is not None and not any(after.search(prev[:MAX_LINE]) for prev in lines[max(0, number - 1 - CONTEXT_LINES) : number - 1]):
                continue
            g = {k: v for k, v in m.groupdict().items() if v}
            out.append(Ask(shape["shape"], number, module=g.get("module", ""), name=g.get("name", g.get("attr", g.get("kwarg", ""))),
                           cls=g.get("cls", ""), func=g.get("func", ""), registry=shape.get("registry", ""), keys=_keys(g),
                           project=shape.get("project", "")))
            break
    return out

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
             Unrecognized configuration class <class '...XConfig'> for this kind of AutoModel: AutoY
             (or: to build an AutoTokenizer)                                 -> key AutoY.XConfig in transformers' auto classes
             Model architectures ['X', ...] are not supported               -> keys in vLLM's architectures
             KeyError: 'x' after a frame of transformers' auto configuration -> key in model types
             ValueError: Unsupported model type x, in a log that names TGI   -> key in TGI's model types
  flag       unrecognized arguments: --a --b                                -> flags
             error: unexpected argument '--a' found (clap 4), Found argument '--a' which wasn't expected (clap 2/3)
                                                                             -> flags of TGI's launcher
A shape's `after` must match one of the CONTEXT_LINES lines before the line; its `requires` must match somewhere in
the whole text (other Rust programs print clap's words too: only a log that names TGI is asked of TGI's flags).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .prefilter import AnyOf

MAX_LINE = 2000
NAME = r"[A-Za-z_][A-Za-z0-9_]{0,199}"
DOTTED = rf"{NAME}(?:\.{NAME}){{0,31}}"

# what a log of TGI names: the launcher, the project, its container image or its Python server's package
TGI = r"text-generation-launcher|text-generation-inference|ghcr\.io/huggingface/text-generation-inference|text_generation_server"

SHAPES: list[dict] = [
    {"shape": "import", "literal": "cannot import name '", "regex": rf"cannot import name '(?P<name>{NAME})' from '(?P<module>{DOTTED})'"},
    {"shape": "module", "literal": "No module named '", "regex": rf"No module named '(?P<module>{DOTTED})'"},
    {"shape": "attribute", "literal": "has no attribute '", "regex": rf"module '(?P<module>{DOTTED})' has no attribute '(?P<attr>{NAME})'"},
    {"shape": "attribute", "literal": "has no attribute '", "regex": rf"'(?P<cls>{DOTTED})' (?:object )?has no attribute '(?P<attr>{NAME})'"},
    {"shape": "kwarg", "literal": "got an unexpected keyword argument '", "regex": rf"(?P<func>{DOTTED})\(\) got an unexpected keyword argument '(?P<kwarg>{NAME})'"},
    {"shape": "registry", "registry": "model_types", "project": "transformers", "literal": "but Transformers does not recognize",
     "regex": r"model type `(?P<key>[A-Za-z0-9_.-]{1,100})` but Transformers does not recognize"},
    {"shape": "registry", "registry": "auto_classes", "project": "transformers", "literal": "Unrecognized configuration class <class '",
     "regex": rf"Unrecognized configuration class <class '(?:[A-Za-z0-9_.-]{{1,400}}\.)?(?P<config>{NAME})'> (?:for this kind of AutoModel: |to build an )(?P<auto>{NAME})"},
    {"shape": "registry", "registry": "architectures", "project": "vllm", "literal": "Model architectures [",
     "regex": r"Model architectures \[(?P<keys>'[A-Za-z0-9_]{1,100}'(?:, '[A-Za-z0-9_]{1,100}'){0,15})\] (?:are|is) not supported"},
    {"shape": "registry", "registry": "model_types", "project": "transformers", "after": r"configuration_auto\.py|CONFIG_MAPPING", "literal": "KeyError: '",
     "regex": r"(?:^|[\s:\]])KeyError: '(?P<key>[A-Za-z0-9_.-]{1,100})'\s*$"},
    {"shape": "registry", "registry": "model_types", "project": "tgi", "requires": TGI, "literal": "Unsupported model type ",
     "regex": r"ValueError: Unsupported model type (?P<key>[A-Za-z0-9_.-]{1,100})(?:\s|$)"},
    {"shape": "flag", "registry": "flags", "literal": "unrecognized arguments: --", "regex": r"unrecognized arguments: (?P<flags>--[A-Za-z0-9_.=-]{1,100}(?: \S{1,200}){0,15})"},
    {"shape": "flag", "registry": "flags", "project": "tgi", "requires": TGI, "literal": "unexpected argument '--",
     "regex": r"error: unexpected argument '(?P<flags>--[A-Za-z0-9_.-]{1,100})(?:=[^']{0,200})?' found"},
    {"shape": "flag", "registry": "flags", "project": "tgi", "requires": TGI, "literal": "Found argument '--",
     "regex": r"error: Found argument '(?P<flags>--[A-Za-z0-9_.-]{1,100})(?:=[^']{0,200})?' which wasn't expected"},
]
# How an answer names a registry's key (`{key}`; `{0}`, `{1}`: its dot-separated parts), whether a key no release has
# means a model that needs its own code ("no_model"; "remote_absent" when the line itself names remote code), and the
# phrase that lists the keys the newest release has in its place: keys with the same last part whose first part
# starts with `among` (auto classes: the AutoModel classes that do load the configuration class; none for AutoTokenizer).
REGISTRIES = {
    "model_types": {"label": "model type '{key}'", "absent": "no_model"},
    "architectures": {"label": "architecture {key}"},
    "flags": {"label": "the flag {key}"},
    "auto_classes": {"label": "{1} → {0}", "absent": "no_model", "remote_absent": "remote_config", "elsewhere": "auto_elsewhere",
                     "among": "AutoModel"},
}

# What an answer is made of besides the symbol index (generator/bundle/drift.py, and the paste page's copy of it,
# overrides/assets/javascripts/errdex-drift.js, which reads them from the API's drift/index.json).
MAX_CANDIDATES = 4
MAX_ELSEWHERE = 3  # modules named where a name that moved can be imported now
# site-packages/<package>/ in a traceback's frames: whose code the log ran
PACKAGE_PATH = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][A-Za-z0-9_]{0,99})[/\\]")
# a model's remote code (trust_remote_code): the modules transformers writes it to, or the option itself
REMOTE_CODE = re.compile(r"transformers_modules|trust_remote_code|[/\\]modules[/\\]transformers_modules[/\\]")
# a release named in the log: "transformers==4.41.2", "transformers version: 4.41.2", a `pip list` row, a path or a
# file with the version (".../transformers-4.41.2.dist-info", "transformers-4.41.2-py3-none-any.whl"), an image's tag
# ("text-generation-inference:1.4.5"); a release named without the "v" its project's tags have is that tag
VERSION_LINE = r"(?:^|[\s`'\"(/])(?:{names})(?:==|`? version:\s*|\s+|-|:)v?(?P<v>\d+(?:\.\d+){{1,3}}(?:\.post\d+)?)(?=$|[\s`'\",);]|\.dist-info|-py[23])"

# the names a log gives a project besides its pip name and packages: its programs and container images
PROGRAMS = {"tgi": ["text-generation-inference", "text-generation-launcher"]}

PHRASES = {
    "none": ("No release of {pip} from {first} to {last} has {what}.",
             "{pip} 从 {first} 到 {last} 的所有版本都没有 {what}。"),
    "added": ("{what} was added in {pip} {added} ({before}, the release searched before it, lacks it).",
              "{what} 在 {pip} {added} 中加入（检索到的前一个版本 {before} 没有它）。"),
    "oldest": ("{what} is already in {pip} {first} (the oldest release searched).", "{what} 在 {pip} {first}（检索到的最早版本）中已经存在。"),
    "removed": ("It was removed in {removed}: the last release that has it is {last_has}.",
                "它在 {removed} 中被移除：最后一个包含它的版本是 {last_has}。"),
    "kept": ("Every release from {since} to {last} (the newest searched) has it.", "从 {since} 到 {last}（检索到的最新版本）的每个版本都有它。"),
    "gaps": ("Releases that have it: {spans}.", "包含它的版本：{spans}。"),
    "install": ("Install a release that has it: {command}", "安装一个包含它的版本：{command}"),
    "image": ("{pip} is not installed with pip: run an image (or a build) of a release that has it: {spans}.",
              "{pip} 不是用 pip 安装的：请运行包含它的版本的镜像（或构建）：{spans}。"),
    "has": ("Your {pip} {release} has it: check that the code runs with that installation (`pip show {pip}` in the same "
            "environment), and whether the name is asked of another package.",
            "你的 {pip} {release} 有它：请确认运行代码的正是这个安装（在同一环境中执行 `pip show {pip}`），"
            "以及这个名字是否是向另一个包要的。"),
    "has_image": ("Your {pip} {release} has it: check that the program that ran is that release (the image's tag), and whether "
                  "the flag was given to another program.",
                  "你的 {pip} {release} 有它：请确认运行的程序正是这个版本（镜像的标签），以及这个参数是否传给了另一个程序。"),
    "lacks": ("Your {pip} {release} does not have it.", "你的 {pip} {release} 没有它。"),
    "unknown_release": ("Your {pip} {release} is not among the releases searched.", "你的 {pip} {release} 不在检索的版本之中。"),
    "remote": ("The name is asked for by a model's remote code (trust_remote_code): pin {pip} to the releases that code was "
               "written for ({command}), or use a revision of the model whose code fits your release.",
               "这个名字是模型的远程代码（trust_remote_code）要用的：把 {pip} 固定到那段代码所针对的版本（{command}），"
               "或者换用与你的版本相符的模型修订版。"),
    "no_model": ("The model needs its own code (trust_remote_code=True) or a library that supports it.",
                 "这个模型需要它自己的代码（trust_remote_code=True），或者一个支持它的库。"),
    "remote_config": ("{name} is the model's own code (transformers_modules), which transformers' tables never hold: load "
                      "it with trust_remote_code=True through the auto class its config.json's auto_map names; if it loaded "
                      "with an older transformers, pin the release its code was written for.",
                      "{name} 是模型自己的代码（transformers_modules），transformers 的映射表里从来没有它：请用 "
                      "trust_remote_code=True、通过其 config.json 的 auto_map 指定的自动类来加载；如果它在较旧的 "
                      "transformers 下能加载，请固定到其代码所针对的版本。"),
    "candidates": ("{n} definitions fit; each is listed.", "有 {n} 个定义符合，逐一列出。"),
    "elsewhere": ("In {pip} {last}, {name} is importable from {modules}.", "在 {pip} {last} 中，可以从 {modules} 导入 {name}。"),
    "auto_elsewhere": ("In {pip} {last}, {name} is loaded by {modules}: use one of them.",
                       "在 {pip} {last} 中，{name} 由 {modules} 加载：请改用其中之一。"),
}

# one pass over a log's bytes says whether any shape's literal is in it (a big log is decoded for drift answers only then)
LITERALS_FIND = AnyOf([s["literal"] for s in SHAPES])


def mentioned(raw: bytes) -> bool:
    """Whether a shape's literal is anywhere in `raw` (asks() finds nothing in a log where none is)."""
    return LITERALS_FIND(raw)


COMPILED = [(s, re.compile(s["regex"]), re.compile(s["after"]) if "after" in s else None, re.compile(s["requires"]) if "requires" in s else None)
            for s in SHAPES]
LITERALS = sorted({s["literal"] for s in SHAPES})
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
    text: str = ""  # what the shape matched on the line


def label(registry: str, key: str) -> str:
    """How an answer names a registry's key (REGISTRIES)."""
    return REGISTRIES.get(registry, {}).get("label", "{key}").format(*key.split("."), key=key)


def _keys(found: dict) -> tuple[str, ...]:
    if found.get("auto"):
        return (f"{found['auto']}.{found['config']}",)
    if found.get("key"):
        return (found["key"],)
    if found.get("keys"):
        return tuple(re.findall(r"'([^']+)'", found["keys"]))
    if found.get("flags"):
        return tuple(f.split("=")[0] for f in found["flags"].split() if f.startswith("--"))
    return ()


def asks(text: str) -> list[Ask]:
    """Every drift a log's lines state, in line order, the first shape that fits each line. Each shape's fixed
    `literal` is looked for in the whole text first: a log that holds none costs one substring search a shape; a
    shape's `requires` is looked for in the whole text once, when a line first fits the shape. Only the lines that
    hold a live shape's literal are read (a 100 MB log is not split into lines)."""
    starts: set[int] = set()  # the offsets of the lines that hold a literal: each literal looked for once
    present: set[str] = set()
    for literal in LITERALS:
        at = text.find(literal)
        if at != -1:
            present.add(literal)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            starts.add(start)
            end = text.find("\n", at)
            at = text.find(literal, at + 1) if end == -1 else text.find(literal, end)
    live = [c for c in COMPILED if c[0]["literal"] in present]
    if not live:
        return []
    required: dict[int, bool] = {}  # id of a shape's `requires` -> whether the text holds it
    out: list[Ask] = []
    number, counted = 1, 0  # the line number at offset `counted`
    for start in sorted(starts):
        number += text.count("\n", counted, start)
        counted = start
        end = text.find("\n", start)
        line = text[start: end if end != -1 else len(text)][:MAX_LINE]
        for shape, regex, after, requires in live:
            if shape["literal"] not in line:
                continue
            m = regex.search(line)
            if m is None:
                continue
            if requires is not None and required.setdefault(id(requires), requires.search(text) is not None) is False:
                continue
            if after is not None and not any(after.search(prev[:MAX_LINE]) for prev in _before(text, start, CONTEXT_LINES)):
                continue
            g = {k: v for k, v in m.groupdict().items() if v}
            out.append(Ask(shape["shape"], number, module=g.get("module", ""), name=g.get("name", g.get("attr", g.get("kwarg", ""))),
                           cls=g.get("cls", ""), func=g.get("func", ""), registry=shape.get("registry", ""), keys=_keys(g),
                           project=shape.get("project", ""), text=m.group(0)))
            break
    return out


def _before(text: str, start: int, n: int) -> list[str]:
    """The (at most) `n` lines before the line that starts at offset `start`."""
    lines: list[str] = []
    end = start - 1  # the line break that ends the line before
    while end >= 0 and len(lines) < n:
        begin = text.rfind("\n", 0, end) + 1
        lines.append(text[begin:end])
        end = begin - 1
    return lines

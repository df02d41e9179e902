"""YAML record files -> raw records with a line and column for every value.

Records are untrusted input. The loader reads bytes with a size cap, decodes strict UTF-8, parses with
libyaml, and constructs plain data with a constructor of its own that knows no Python object tags and refuses
duplicate keys, anchors/aliases, merge keys, foreign tags and deep nesting. It keeps the node tree, so every
finding can name a line and column.
Every problem is a Finding; nothing here raises for bad data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any

import yaml

from ..findings import Finding, make
from ..safefs import link_on_the_way
from ..yamlout import SafeLoader as _BaseLoader
from . import DATA_ROOT

MAX_BYTES = 512 * 1024
MAX_DEPTH = 32

_STR, _INT, _FLOAT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))
_TIMESTAMP, _MERGE = "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge"
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


@dataclass
class RawRecord:
    """One loaded file: its data, and the parsed node tree that tells where each value stands."""

    path: str
    data: dict[str, Any]
    text: str = ""
    id_from_path: str | None = None
    file: str = ""

    @functools.cached_property
    def node(self) -> yaml.Node | None:
        """The parsed node tree, made again only when a finding needs a position (keeping 10,000 trees
        alive would cost memory and make the garbage collector crawl). Without the text, the file is read again."""
        text = self.text
        if not text and self.file:
            try:
                text = Path(self.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        return yaml.compose(text, Loader=_BaseLoader) if text else None

    @functools.cached_property
    def _places(self) -> dict[str, tuple[yaml.Node, yaml.Node | None]]:
        """JSON pointer -> (value node, key node or None), for every place in the tree: built once, so that a
        record with thousands of findings costs one walk, not one scan of a mapping per finding."""
        places: dict[str, tuple[yaml.Node, yaml.Node | None]] = {}
        if self.node is None:
            return places
        stack: list[tuple[yaml.Node, yaml.Node | None, str]] = [(self.node, None, "")]
        while stack:
            node, key_node, pointer = stack.pop()
            if pointer in places:  # an aliased node, or a duplicate key: the first place wins, as a scan would
                continue
            places[pointer] = (node, key_node)
            if isinstance(node, yaml.MappingNode):
                stack.extend((v, k, f"{pointer}/{pointer_escape(str(k.value))}") for k, v in reversed(node.value))
            elif isinstance(node, yaml.SequenceNode):
                stack.extend((v, None, f"{pointer}/{i}") for i, v in reversed(list(enumerate(node.value))))
        return places

    def pos(self, pointer: str, key: bool = False) -> tuple[int, int]:
        """(line, col), 1-based, of the value at `pointer` (or of its key), else of the nearest parent."""
        places = self._places
        if not places:
            return (1, 1)
        while pointer not in places:
            pointer = pointer.rpartition("/")[0]
        node, key_node = places[pointer]
        mark = (key_node if key and key_node is not None else node).start_mark
        return (mark.line + 1, mark.column + 1)


class _Refused(Exception):
    def __init__(self, finding: Finding):
        self.finding = finding


def pointer_escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def id_for_path(path: Path, root: Path | None) -> str | None:
    """The record id a file's location implies (`data/errors/a/b.yaml` -> `a/b`), or None outside the root."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root or DATA_ROOT))
    if rel.startswith("..") or not rel.endswith(".yaml"):
        return None
    return Path(rel).with_suffix("").as_posix()


class _RecordLoader(_BaseLoader):
    """libyaml's safe parser with a constructor that builds only plain data and refuses the rest.

    It adds little to a plain safe load (the per-node work is the constructor's anyway), and it keeps the node
    tree so that a finding can name the line and column of any value.
    """

    yaml_constructors: dict = {}
    yaml_multi_constructors: dict = {}

    def __init__(self, stream: str, path: str):
        super().__init__(stream)
        self.path = path
        self.root: yaml.Node | None = None
        self.depth: dict[yaml.Node, int] = {}

    def get_single_data(self) -> Any:
        self.root = self.get_single_node()
        return None if self.root is None else self.construct_document(self.root)

    def refuse(self, code: str, node: yaml.Node, message: str, mark: yaml.Mark | None = None) -> None:
        mark = mark or node.start_mark
        raise _Refused(make(code, self.path, _pointer_of(self.root, node), message, (mark.line + 1, mark.column + 1)))

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects or node in self.recursive_objects:
            # libyaml resolves an alias to the anchored node itself, so a node built twice is an alias.
            at = f"{node.start_mark.line + 1}:{node.start_mark.column + 1}"
            self.refuse("YML005", node, f"an alias reuses the anchored value at {at}", self._alias_mark(node))
        return super().construct_object(node, deep)

    def _alias_mark(self, node: yaml.Node) -> yaml.Mark | None:
        """Where the second use of `node` (the alias) stands: the nearest key that holds it."""
        uses = [key.start_mark for key, child, _ in _walk(self.root) if child is node and key is not None]
        return uses[1] if len(uses) > 1 else None

    def _children(self, node: yaml.Node) -> None:
        depth = self.depth.get(node, 0) + 1
        if depth > MAX_DEPTH:
            self.refuse("YML008", node, f"nesting deeper than {MAX_DEPTH} levels")
        for child in node.value if isinstance(node, yaml.SequenceNode) else (v for _, v in node.value):
            self.depth[child] = depth

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        self._children(node)
        seen: set[str] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                self.refuse("YML005", key_node, "merge keys (<<) are not allowed")
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
                shown = repr(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "a list or mapping"
                self.refuse("YML009", key_node, f"mapping key {shown} is not a string")
            if key_node.value in seen:
                self.refuse("YML004", key_node, f"duplicate key {key_node.value!r}")
            seen.add(key_node.value)
        return {key.value: self.construct_object(value, deep) for key, value in node.value}

    def construct_sequence(self, node: yaml.SequenceNode, deep: bool = False) -> list[Any]:
        self._children(node)
        return [self.construct_object(child, deep) for child in node.value]

    def construct_text(self, node: yaml.ScalarNode) -> str:
        # Dates stay text: the schema checks their form, and JSON has no date type.
        return node.value

    def construct_unsupported(self, node: yaml.Node) -> None:
        self.refuse("YML006", node, f"unsupported tag {node.tag!r}")


for _tag, _method in (
    (_STR, _RecordLoader.construct_text),
    (_TIMESTAMP, _RecordLoader.construct_text),
    (_INT, yaml.constructor.SafeConstructor.construct_yaml_int),
    (_FLOAT, yaml.constructor.SafeConstructor.construct_yaml_float),
    (_BOOL, yaml.constructor.SafeConstructor.construct_yaml_bool),
    (_NULL, yaml.constructor.SafeConstructor.construct_yaml_null),
    (_SEQ, yaml.constructor.SafeConstructor.construct_yaml_seq),
    (_MAP, yaml.constructor.SafeConstructor.construct_yaml_map),
    (None, _RecordLoader.construct_unsupported),
):
    _RecordLoader.yaml_constructors[_tag] = _method


def _walk(root: yaml.Node | None):
    """(nearest key node, node, JSON pointer) for every place in the tree, depth first; a shared node's children
    once (an aliased node is reached at each place that uses it)."""
    stack: list[tuple[yaml.Node | None, yaml.Node, str]] = [(None, root, "")] if root is not None else []
    expanded: set[int] = set()
    while stack:
        key, node, pointer = stack.pop()
        yield key, node, pointer
        if id(node) in expanded:
            continue
        expanded.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend((k, v, f"{pointer}/{pointer_escape(str(k.value))}") for k, v in reversed(node.value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((key, v, f"{pointer}/{i}") for i, v in reversed(list(enumerate(node.value))))


def _pointer_of(root: yaml.Node | None, target: yaml.Node) -> str:
    """The JSON pointer of `target` (a value or a key node) where the tree first reaches it; '' when not found."""
    return next((pointer for key, node, pointer in _walk(root) if node is target or key is target), "")


def parse_text(text: str, path: str) -> tuple[dict[str, Any] | None, yaml.Node | None, list[Finding]]:
    """Parse one document's text into data and its node tree; findings instead of exceptions."""
    loader = _RecordLoader(text, path)
    try:
        data = loader.get_single_data()
    except _Refused as refused:
        return None, None, [refused.finding]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = ": ".join(str(p) for p in (exc.context, exc.problem) if p)
        return None, None, [make("YML001", path, "", problem or "invalid YAML", pos)]
    except yaml.YAMLError as exc:
        return None, None, [make("YML001", path, "", str(exc).splitlines()[0] if str(exc) else "invalid YAML")]
    except RecursionError:
        return None, None, [make("YML008", path, "", f"nesting deeper than {MAX_DEPTH} levels")]
    finally:
        loader.dispose()
    node = loader.root
    if node is None:
        return None, None, [make("YML007", path, "", "the file is empty")]
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "a single value"
        return None, None, [make("YML007", path, "", f"the file holds {kind}, not a mapping", (node.start_mark.line + 1, node.start_mark.column + 1))]
    return data, node, []


def load_file(path: Path, display: str | None = None, root: Path | None = None) -> tuple[RawRecord | None, list[Finding]]:
    """Load one record file. Returns the record, or None with the findings that stopped it."""
    shown = display or path.as_posix()
    try:
        # O_NOFOLLOW: a file swapped for a symbolic link after the walk is refused, not followed.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, [make("YML001", shown, "", f"cannot read the file: {exc.strerror or exc}")]
    if len(raw) > MAX_BYTES:
        return None, [make("YML003", shown, "", f"the file is larger than {MAX_BYTES // 1024} KiB")]
    if raw.startswith(b"\xef\xbb\xbf"):
        return None, [make("YML010", shown, "", "the file starts with a UTF-8 byte-order mark")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Count lines in the bytes before the bad one; those decode fine.
        pos = (raw.count(b"\n", 0, exc.start) + 1, exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1)
        return None, [make("YML002", shown, "", f"byte 0x{raw[exc.start]:02x} at offset {exc.start} is not valid UTF-8", pos)]
    data, _, findings = parse_text(text, shown)
    if data is None:
        return None, findings
    return RawRecord(shown, data, text, id_for_path(path, root), str(path)), []


def find_record_files(paths: list[Path], root: Path | None = None) -> tuple[list[Path], list[Finding]]:
    """Every `.yaml` file named or below a named folder, in a stable order, and a YML011 finding for every
    symbolic link met on the way (a link is never followed, whether it names a file or a folder)."""
    top = Path(root or DATA_ROOT)
    found: set[Path] = set()
    links: set[Path] = set()
    for path in paths:
        link = link_on_the_way(path, top) if inside_or_below(path, top) else None
        if link is not None or os.path.islink(path):
            links.add(Path(link or path))
            continue
        if path.is_dir():
            for folder, dirs, names in os.walk(path):
                for name in dirs + names:
                    if os.path.islink(os.path.join(folder, name)):
                        links.add(Path(folder, name))
                dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
                found.update(Path(folder, n) for n in names if n.endswith(".yaml") and not os.path.islink(os.path.join(folder, n)) and os.path.isfile(os.path.join(folder, n)))
        else:
            found.add(path)
    findings = [
        make("YML011", _display(link), "", "a symbolic link under the data root: it is not followed, and nothing it points to is read")
        for link in sorted(links, key=lambda p: p.as_posix())
    ]
    return sorted(found, key=lambda p: p.as_posix()), findings


def inside_or_below(path: Path, root: Path) -> bool:
    """True when `path` is `root` or below it, as written (links not resolved)."""
    a, b = os.path.abspath(path), os.path.abspath(root)
    return a == b or a.startswith(b.rstrip(os.sep) + os.sep)


def record_files(paths: list[Path], root: Path | None = None) -> list[Path]:
    """The record files of `paths` (see find_record_files; the links it reports are left out)."""
    return find_record_files(paths, root)[0]


def load_records(paths: list[Path], root: Path | None = None) -> tuple[list[RawRecord], list[Finding]]:
    """Load every record file under `paths`; collect all findings rather than stopping at the first."""
    files, findings = find_record_files(paths, root)
    records, more = load_files(files, root)
    return records, findings + more


def load_files(files: list[Path], root: Path | None = None) -> tuple[list[RawRecord], list[Finding]]:
    """Load these record files, in order; collect all findings rather than stopping at the first."""
    records: list[RawRecord] = []
    findings: list[Finding] = []
    for path in files:
        record, found = load_file(path, _display(path), root)
        findings.extend(found)
        if record is not None:
            records.append(record)
    return records, findings


def _display(path: Path) -> str:
    """The path as a contributor would type it: relative to the working folder when below it."""
    rel = os.path.relpath(os.path.abspath(path))
    return Path(path).as_posix() if rel.startswith("..") else Path(rel).as_posix()

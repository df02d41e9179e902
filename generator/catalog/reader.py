"""The message catalog the harvest writes to data/catalog/, read for the site, the API, `errdex match` and the
MCP server (format: CATALOG_FORMAT, agreed with the harvest).

`<project>.jsonl` holds one entry per message template, with the sites that raise it per range of releases;
`releases.json` lists each project's harvested releases oldest first, which is the order the `from`/`to`
ranges use; `projects.yaml` (optional here) maps a project slug to its package and repository.

The reader is forgiving of the file and strict about what it answers: a malformed line is skipped and noted in
`problems`, never fatal, while a query for an unknown project, a version that is not a harvested release or a
path that climbs out of the repository is refused with a `CatalogQueryError` that says what would be accepted.
The site and the API are made only from a catalog that passed every check first, whole
(`generator.checks.catalog.checked_catalog`); this reader alone serves the local tools (match, MCP).
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import jsonline

MAX_PROBLEMS = 50  # malformed lines kept for the report; the count goes on
MAX_LINE_BYTES = 1 << 20  # a catalog line longer than this is malformed
VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$")
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
MAX_PATH = 500
_PLAIN = re.compile(r"[A-Za-z0-9/._-]+")  # needs no quoting in a URL path
NEARBY_LINES = 25  # how far from the asked line a site still counts as "nearby"


@contextlib.contextmanager
def bulk_load() -> Iterator[None]:
    """No garbage collection while tens of thousands of objects are made (it would walk them again and again,
    half the time of a load), and what was made is then left out of later collections (`gc.freeze`)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


class CatalogQueryError(ValueError):
    """A query the catalog cannot answer as asked; the message says what it accepts."""


@dataclass(slots=True)
class Site:
    start: int  # index of `from` in the project's release order
    end: int  # index of `to`
    path: str
    line: int
    statement: str
    raw: dict[str, Any]
    stretches: tuple[tuple[int, int, int], ...] = ()  # (first, last release index, line): where the line changed

    def spans(self) -> tuple[tuple[int, int, int], ...]:
        """(first, last release index, line) of each stretch of the range with one line, oldest first."""
        return self.stretches or ((self.start, self.end, self.line),)

    def line_at(self, index: int) -> int:
        """The statement's line in release `index` (within the site's range)."""
        return next((line for first, last, line in self.spans() if first <= index <= last), self.line)


@dataclass(slots=True)
class Entry:
    """One message template and where it is raised."""

    data: dict[str, Any]  # the line as written
    sites: list[Site]
    ranges: list[tuple[int, int]]  # release index ranges holding the message

    @property
    def id(self) -> str:
        return self.data["id"]

    def present(self, index: int) -> bool:
        return any(a <= index <= b for a, b in self.ranges)

    def sites_at(self, index: int) -> list[Site]:
        return [s for s in self.sites if s.start <= index <= s.end]


@dataclass
class Project:
    slug: str
    releases: list[str] = field(default_factory=list)  # oldest first
    entries: list[Entry] = field(default_factory=list)
    package: str | None = None
    repository: str | None = None
    source_url: str | None = None  # projects.yaml: a release's file and line on the web ({version}, {path}, {line})

    def count(self) -> int:
        """How many entries the project has (without reading them, for a project read from a bundle)."""
        return len(self.entries)

    def entry(self, entry_id: str) -> Entry | None:
        """The entry with this id, or None."""
        if getattr(self, "_by_id", None) is None or len(self._by_id) != len(self.entries):
            self._by_id = {e.id: e for e in self.entries}
        return self._by_id.get(entry_id)

    def source_link(self, index: int, path: str, line: int) -> str | None:
        """The address of `path:line` in release `index`'s source, when projects.yaml says where that is."""
        if not self.source_url:
            return None
        version = self.releases[index]
        return (self.source_url.replace("{version}", version if _PLAIN.fullmatch(version) else quote(version, safe=".-_"))
                .replace("{path}", path if _PLAIN.fullmatch(path) else quote(path, safe="/._-")).replace("{line}", str(line)))

    def release_index(self, version: str) -> int:
        """The position of `version` in the release order; tolerant of a leading `v` either way."""
        check_version(version)
        order = {v: i for i, v in enumerate(self.releases)}
        for candidate in (version, version[1:] if version[:1] in "vV" else "v" + version):
            if candidate in order:
                return order[candidate]
        shown = self.releases if len(self.releases) <= 12 else self.releases[:3] + ["..."] + self.releases[-8:]
        raise CatalogQueryError(
            f"{version!r} is not a harvested release of {self.slug}; the catalog has {len(self.releases)} "
            f"releases: {', '.join(shown) or 'none'}"
        )


class LazyProject(Project):
    """A project read from a knowledge bundle (generator.bundle): its entries are JSON lines, sorted by id, decoded
    one at a time when asked for by id (`entry`), all of them only when a caller walks `entries`."""

    def __init__(self, slug: str, releases: list[str], package: str | None, repository: str | None,
                 source_url: str | None, reader: tuple[int, Any, Any]):
        self.slug, self.releases, self.package, self.repository, self.source_url = slug, releases, package, repository, source_url
        self._count, self._ids, self._data = reader  # count; ids(): the ids in order; data(i): entry i, decoded
        self._order = {v: i for i, v in enumerate(releases)}
        self._made: dict[int, Entry] = {}
        self._loaded: list[Entry] | None = None

    @property  # type: ignore[override]
    def entries(self) -> list[Entry]:
        if self._loaded is None:
            self._loaded = [self._decode(i) for i in range(self._count)]
        return self._loaded

    @entries.setter
    def entries(self, value: list[Entry]) -> None:
        self._loaded = value

    def count(self) -> int:
        return self._count

    def entry(self, entry_id: str) -> Entry | None:
        ids = self._ids()
        i = bisect.bisect_left(ids, entry_id)
        return self._decode(i) if i < len(ids) and ids[i] == entry_id else None

    def _decode(self, i: int) -> Entry:
        made = self._made.get(i)
        if made is None:
            made = _entry(self._data(i), self, self._order, f"{self.slug} entry {i}", Catalog())
            self._made[i] = made  # the bundle holds entries the reader accepted: never None
        return made


@dataclass
class Catalog:
    projects: dict[str, Project] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0
    links: dict[str, list[str]] = field(default_factory=dict)  # entry id -> the records that explain it (links.json)

    def note(self, problem: str) -> None:
        self.problem_count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def entries(self) -> list[Entry]:
        return [e for p in self.projects.values() for e in p.entries]

    def project(self, name: str) -> Project:
        """A project by slug, or by the package name or repository (OWNER/NAME) projects.yaml gives it."""
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise CatalogQueryError("package must be a project slug such as 'vllm' (list_projects names them)")
        key = name.strip()
        lowered = key.lower()
        if lowered in self.projects:
            return self.projects[lowered]
        squash = lambda text: re.sub(r"[._-]", "", text)  # noqa: E731  (llama-cpp for llama.cpp)
        found = [p for p in self.projects.values() if lowered == (p.package or "").lower() or squash(lowered) == squash(p.slug)]
        # of two projects from one repository (sglang, sgl-kernel), the one named as it is, else the first
        found += sorted((p for p in self.projects.values() if lowered == (p.repository or "").lower()),
                        key=lambda p: squash(p.slug) != squash(lowered.rsplit("/", 1)[-1]))
        if found:
            return found[0]
        known = ", ".join(sorted(self.projects)) or "none (no catalog is loaded)"
        raise CatalogQueryError(f"the catalog has no project {key!r}; it has: {known}")


def check_version(version: Any) -> str:
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise CatalogQueryError(
            f"{str(version)[:80]!r} is not a release version: letters, digits and . + _ - only, at most 64 "
            "characters, such as '0.8.5' or 'v3.0.0'"
        )
    return version


def check_path(path: Any) -> str:
    """A file path relative to the project's repository root, as the catalog writes it.

    An installed file's path (`.../site-packages/vllm/worker/worker.py`) is cut to what follows
    `site-packages/` or `dist-packages/`; anything else absolute, any `..` and any backslash is refused."""
    if not isinstance(path, str) or not path.strip():
        raise CatalogQueryError("path must be a file path such as 'vllm/worker/worker.py'")
    if len(path) > MAX_PATH or "\x00" in path or any(ord(c) < 32 for c in path):
        raise CatalogQueryError(f"path must be at most {MAX_PATH} printable characters")
    path = path.strip()
    if "\\" in path:
        raise CatalogQueryError("path must use '/' between folders, not '\\'")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            path = path.rsplit(marker, 1)[1]
    while path.startswith("./"):
        path = path[2:]
    if path.startswith("/"):
        raise CatalogQueryError(
            f"{path!r} is absolute; give the path inside the project's repository (for an installed package, what "
            "follows site-packages/), such as 'vllm/worker/worker.py'"
        )
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise CatalogQueryError(f"{path!r} has an empty, '.' or '..' segment; give a plain path inside the repository")
    return path


def _natural(version: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|[A-Za-z]+", version))


def _read_jsonl(path: Path, catalog: Catalog):
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                catalog.note(f"{path.name}:{number}: line longer than {MAX_LINE_BYTES} bytes")
                continue
            try:
                data = jsonline.read(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                catalog.note(f"{path.name}:{number}: not JSON: {exc}")
                continue
            yield number, data


def _entry(data: Any, project: Project, order: dict[str, int], where: str, catalog: Catalog) -> Entry | None:
    if not isinstance(data, dict):
        catalog.note(f"{where}: not a JSON object")
        return None
    for key in ("id", "template", "pattern"):
        if not isinstance(data.get(key), str) or not data[key]:
            catalog.note(f"{where}: no {key}")
            return None
    if data.get("project", project.slug) != project.slug:
        catalog.note(f"{where}: project {data.get('project')!r} in the file of {project.slug!r}")
        return None

    def index(version: Any) -> int | None:
        if not isinstance(version, str):
            return None
        if version not in order:  # a release the harvest did not list: order what we can, note it
            catalog.note(f"{where}: release {version!r} is not in releases.json for {project.slug}")
            return None
        return order[version]

    sites = []
    for raw in data.get("sites") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str) or not isinstance(raw.get("line"), int):
            catalog.note(f"{where}: a site without path and line")
            continue
        a, b = index(raw.get("from")), index(raw.get("to"))
        if a is None or b is None:
            continue
        stretches: list[tuple[int, int, int]] = []
        lines = raw.get("lines")
        if isinstance(lines, list) and len(lines) > 1:
            starts = [(index(pair[0]), pair[1]) for pair in lines if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int)]
            if len(starts) == len(lines) and all(s is not None for s, _ in starts) and starts[0][0] == a:
                stretches = [(s, (starts[i + 1][0] - 1) if i + 1 < len(starts) else b, line) for i, (s, line) in enumerate(starts)]
            else:
                catalog.note(f"{where}: a site's lines do not start at its first release or name unknown releases")
        sites.append(Site(a, b, raw["path"], raw["line"], str(raw.get("statement") or ""), raw, tuple(stretches)))
    ranges = []
    for pair in data.get("releases") or []:
        if isinstance(pair, list) and len(pair) == 2:
            a, b = index(pair[0]), index(pair[1])
            if a is not None and b is not None:
                ranges.append((a, b))
    if not ranges:  # fall back on the sites' ranges
        ranges = [(s.start, s.end) for s in sites]
    return Entry(data, sites, ranges)


def read_links(folder: Path) -> dict[str, list[str]]:
    """Catalog entry id -> the curated record ids linked to it (links.json: record id -> entry ids); {} without one
    (the checks report a bad links.json; here it only means no links)."""
    try:
        doc = json.loads((Path(folder) / "links.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, list[str]] = {}
    for record, entries in (doc.items() if isinstance(doc, dict) else ()):
        for eid in entries if isinstance(entries, list) else ():
            if isinstance(eid, str) and isinstance(record, str):
                out.setdefault(eid, []).append(record)
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def load_catalog(folder: Path) -> Catalog:
    """Read `folder` (data/catalog). A missing folder is an empty catalog; unreadable parts become `problems`."""
    with bulk_load():
        return _load_catalog(folder)


def catalog_projects(folder: Path) -> Catalog:
    """The catalog in `folder` without its entries: each project (a `<project>.jsonl` there) with its releases
    (releases.json), package, repository and source address (projects.yaml), and the links (links.json). What a
    check that reads a few entries itself needs; unreadable parts become `problems`."""
    catalog = Catalog()
    folder = Path(folder)
    if not folder.is_dir():
        return catalog
    releases: dict[str, Any] = {}
    if (folder / "releases.json").is_file():
        try:
            releases = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            catalog.note(f"releases.json: {exc}")
        if not isinstance(releases, dict):
            catalog.note("releases.json: not a JSON object")
            releases = {}
    config: dict[str, Any] = {}
    if (folder / "projects.yaml").is_file():
        from ..yamlout import YAMLError, safe_load  # here: matching, which reads the catalog, never needs YAML

        try:
            loaded = safe_load((folder / "projects.yaml").read_text(encoding="utf-8"))
        except (OSError, ValueError, YAMLError) as exc:
            catalog.note(f"projects.yaml: {exc}")
            loaded = None
        if isinstance(loaded, dict):
            config = loaded.get("projects", loaded) if isinstance(loaded.get("projects"), dict) else loaded
    catalog.links = read_links(folder)
    for path in sorted(folder.glob("*.jsonl")):
        slug = path.name[: -len(".jsonl")]
        if not SLUG.fullmatch(slug) or path.is_symlink():
            catalog.note(f"{path.name}: not a project file (slug or symbolic link)")
            continue
        project = Project(slug)
        listed = releases.get(slug)
        if isinstance(listed, list):
            project.releases = [r["version"] for r in listed if isinstance(r, dict) and isinstance(r.get("version"), str)]
        settings = config.get(slug) if isinstance(config.get(slug), dict) else {}
        project.package = settings.get("package") if isinstance(settings.get("package"), str) else None
        repo = settings.get("repository") or settings.get("repo")
        project.repository = repo if isinstance(repo, str) else None
        url = settings.get("source_url")
        if isinstance(url, str) and url.startswith("https://") and "{path}" in url:
            project.source_url = url
        catalog.projects[slug] = project
    return catalog


def _load_catalog(folder: Path) -> Catalog:
    catalog = catalog_projects(folder)
    for slug, project in list(catalog.projects.items()):
        path = Path(folder) / f"{slug}.jsonl"
        rows = list(_read_jsonl(path, catalog))
        if not project.releases:  # no releases.json for it: order the versions the entries name
            seen = {v for _, d in rows if isinstance(d, dict) for s in d.get("sites") or [] if isinstance(s, dict)
                    for v in (s.get("from"), s.get("to")) if isinstance(v, str)}
            project.releases = sorted(seen, key=_natural)
            if rows:
                catalog.note(f"releases.json lists no releases for {slug}; ordering its versions by number")
        order = {v: i for i, v in enumerate(project.releases)}
        for number, data in rows:
            entry = _entry(data, project, order, f"{path.name}:{number}", catalog)
            if entry is not None:
                project.entries.append(entry)
        project.entries.sort(key=lambda e: e.id)
    return catalog

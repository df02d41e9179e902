"""Sites per release -> catalog entries with version ranges; the catalog files' writer and reader.

The catalog is a fold over a project's releases, oldest first: each release's sites are grouped by entry id
(the normalised template), and each entry's `releases` ranges and `sites` ranges are extended or opened. The
same fold continues an existing catalog with newer releases (`errdex harvest --new`), so a scheduled run needs
only the new releases' artifacts. A site range holds while the file and the statement's text stay the same;
its `line` is the line in the range's last release (`to`).

Upstream files are hostile input, and one costs only itself: a file at a path the catalog's schema refuses, or
that the extractor cannot read (whatever it raises), is skipped with its reason (`Skipped`); and the catalog's
own checks (generator/checks/catalog.py) are the gate of what is written: an entry they refuse is left out with
its finding (`Dropped`), so the harvest's output always passes `errdex validate`.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ..checks.catalog import check_catalog_file, release_order
from ..findings import Finding
from ..jsonline import canonical
from .config import CATALOG_ROOT, Project
from .sites import Site
from .templates import entry_id, pattern_for, tier

MAX_VARIANTS = 8
MAX_REASON = 300  # characters of a dropped entry's reason
ENTRY_KEYS = ("exception", "first", "function", "id", "kind", "last", "level", "literal", "pattern", "project",
              "releases", "sites", "specificity", "template", "tier")


def version_key(version: str):
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def release_refused(slug: str, row: dict) -> str | None:
    """Why the catalog's checks would refuse a release's releases.json row, or None (its first finding)."""
    with tempfile.TemporaryDirectory(prefix="errdex-gate-") as tmp:
        folder = Path(tmp)
        write_releases({slug: [row]}, folder)
        _, findings = release_order(folder)
    return _reason(findings[0]) if findings else None


@dataclass
class Entry:
    """One catalog entry as it is built (the JSON object of CATALOG_FORMAT.md)."""

    id: str
    project: str
    template: str
    pattern: str
    literal: str
    specificity: int
    kind: str
    exception: str | None
    level: str | None
    tier: str
    function: str
    sites: list[dict] = field(default_factory=list)
    releases: list[list[str]] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    guide: dict | None = None  # read from the code at its newest site (generator.harvest.guides)

    def to_json(self) -> dict:
        data = {k: getattr(self, k) for k in ENTRY_KEYS if k not in ("first", "last")}
        data["first"] = self.releases[0][0]
        data["last"] = self.releases[-1][1]
        if self.variants:
            data["variants"] = sorted(self.variants)
        if self.guide:
            data["guide"] = self.guide
        return data

    @classmethod
    def from_json(cls, data: dict) -> "Entry":
        kwargs = {k: data[k] for k in ENTRY_KEYS if k not in ("first", "last")}
        return cls(**kwargs, variants=list(data.get("variants", [])), guide=data.get("guide"))


@dataclass
class Fold:
    """The catalog of one project, built release by release (oldest first)."""

    project: Project
    entries: dict[str, Entry] = field(default_factory=dict)
    releases: list[str] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)  # templates with no specific pattern (e.g. "{}: {}")

    def add_release(self, version: str, sites: Iterable[tuple[str, Site]]) -> None:
        previous = self.releases[-1] if self.releases else None
        if previous is not None and version_key(version) <= version_key(previous):
            raise ValueError(f"{self.project.slug} {version} is not newer than {previous}: rebuild the catalog from the cache instead")
        grouped: dict[str, list[tuple[int, str, int, Site]]] = defaultdict(list)
        for path, site in sites:
            user = self.project.is_user_path(path)
            rank = 0 if tier(site, user) == "user" else 1
            grouped[entry_id(self.project.slug, site.template)].append((rank, path, site.line, site))
        for eid, candidates in grouped.items():
            candidates.sort(key=lambda c: c[:3])  # the preferred site first: user-facing, then by path and line
            rank, path, _, site = candidates[0]
            entry = self.entries.get(eid)
            if entry is None:
                if eid in self.dropped:
                    continue
                found = pattern_for(site.template)
                if found is None:
                    self.dropped.add(eid)
                    continue
                entry = Entry(eid, self.project.slug, "", found.pattern, found.literal, found.specificity, site.kind, None, None, "internal", "")
                self.entries[eid] = entry
            if entry.template and entry.template != site.template.strip():
                # the same normalised template, spaced differently: the pattern follows the newest spelling
                found = pattern_for(site.template)
                if found is not None:
                    entry.pattern, entry.literal, entry.specificity = found.pattern, found.literal, found.specificity
            entry.template = site.template.strip()
            entry.kind, entry.exception, entry.level, entry.function = site.kind, site.exception, site.level, site.function
            entry.tier = "user" if rank == 0 else "internal"
            if entry.releases and entry.releases[-1][1] == previous:
                entry.releases[-1][1] = version
            else:
                entry.releases.append([version, version])
            # Every site is kept: one statement in one file over a range of releases (a message raised from several
            # files, or twice in one, has a site for each). When the statement moves to another line, `lines` keeps
            # each stretch's first release and line (oldest first), so that a traceback's frame (file and line)
            # tells the releases it can come from; `line` stays the newest. A site of the release before continues
            # when the same file has the same statement (in line order when it has it more than once).
            open_sites: dict[tuple[str, str], list[dict]] = defaultdict(list)
            for s in entry.sites:
                if s["to"] == previous:
                    open_sites[(s["path"], s["statement"])].append(s)
            for key in open_sites:
                open_sites[key].sort(key=lambda s: s["line"])
            for _, cpath, cline, csite in sorted(candidates, key=lambda c: (c[1], c[2])):
                pool = open_sites.get((cpath, csite.statement))
                last = pool.pop(0) if pool else None
                if last is not None:
                    if last["line"] != cline:
                        last.setdefault("lines", [[last["from"], last["line"]]]).append([version, cline])
                    last["to"], last["line"] = version, cline
                else:
                    entry.sites.append({"from": version, "to": version, "path": cpath, "line": cline, "statement": csite.statement})
            # the preferred site of the newest release first among the sites that reach it (newest_site)
            preferred = next(s for s in entry.sites if s["to"] == version and s["path"] == path and s["line"] == site.line)
            entry.sites.remove(preferred)
            at = next((i for i, s in enumerate(entry.sites) if s["to"] == version), len(entry.sites))
            entry.sites.insert(at, preferred)
        self.releases.append(version)

    def link_variants(self) -> None:
        """Entries whose patterns are the same stable part are wordings of one message (earlier or later, or
        per backend): each lists the others, in groups of at most MAX_VARIANTS (larger groups share only a
        generic first sentence)."""
        groups: dict[str, list[Entry]] = defaultdict(list)
        for entry in self.entries.values():
            entry.variants = []
            groups[entry.pattern].append(entry)
        for group in groups.values():
            if 1 < len(group) <= MAX_VARIANTS:
                for entry in group:
                    entry.variants = sorted(e.id for e in group if e is not entry)


def newest_site(sites: list[dict]) -> dict:
    """An entry's newest site: the first of those that reach its newest release (the fold puts the preferred one,
    user-facing, then by path and line, first)."""
    last = max(sites, key=lambda s: version_key(s["to"]))["to"]
    return next(s for s in sites if s["to"] == last)


def catalog_path(slug: str, root: Path = CATALOG_ROOT) -> Path:
    return root / f"{slug}.jsonl"


@dataclass(frozen=True)
class Dropped:
    """A catalog entry the catalog's checks refuse: it is not written."""

    id: str
    path: str  # the file of its newest site
    release: str  # its newest release
    reason: str  # the first finding


class GateError(Exception):
    """The catalog's checks refuse the harvested file as a whole, not one entry of it: nothing is written."""


def _reason(finding: Finding) -> str:
    text = f"{finding.code} {finding.message}"
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def _lines(fold: Fold) -> tuple[list[str], list[str], dict[str, str]]:
    """(ids, lines) of the entries, in id order, and the entries that cannot be written as UTF-8, with why."""
    fold.link_variants()
    ids, lines, unwritable = [], [], {}
    for eid in sorted(fold.entries):
        line = canonical(fold.entries[eid].to_json()) + "\n"
        try:
            line.encode("utf-8")
        except UnicodeEncodeError as exc:
            unwritable[eid] = f"not UTF-8 text: {exc.reason}"
            continue
        ids.append(eid)
        lines.append(line)
    return ids, lines, unwritable


def _refused(ids: list[str], findings: Iterable[Finding]) -> dict[str, str]:
    """Entry id -> its first finding. A finding that names no entry of its line refuses the file itself."""
    out: dict[str, str] = {}
    for finding in findings:
        n = finding.line
        eid = ids[n - 1] if 1 <= n <= len(ids) else None
        if eid is None or not (eid in finding.message or finding.message.startswith(f"line {n}")):
            raise GateError(f"the catalog's checks refuse the harvested file itself: {_reason(finding)}")
        out.setdefault(eid, _reason(finding))
    return out


def _dropped(entry: Entry, reason: str) -> Dropped:
    return Dropped(entry.id, newest_site(entry.sites)["path"], entry.releases[-1][1], reason)


def checked_text(fold: Fold) -> tuple[str, list[Dropped]]:
    """The project's catalog file as it is to be written, and the entries left out of it. The gate is the
    catalog's checks run on the file itself (generator/checks/catalog.py): an entry is written only if
    `errdex validate` passes it, whatever rules the schema and the checks come to have."""
    dropped: list[Dropped] = []
    with tempfile.TemporaryDirectory(prefix="errdex-gate-") as tmp:
        staged = Path(tmp) / catalog_path(fold.project.slug).name
        while True:
            ids, lines, refused = _lines(fold)
            if not refused:
                text = "".join(lines)
                _write(staged, text)
                refused = _refused(ids, check_catalog_file(staged, list(fold.releases)))
                if not refused:
                    return text, dropped
            for eid, reason in sorted(refused.items()):
                dropped.append(_dropped(fold.entries.pop(eid), reason))


def write_catalog(fold: Fold, root: Path = CATALOG_ROOT) -> tuple[Path, list[Dropped]]:
    """data/catalog/<project>.jsonl: one entry per line, keys sorted, sorted by id, LF line ends; only the
    entries the catalog's checks pass (returned: the path, and the entries dropped)."""
    text, dropped = checked_text(fold)
    path = catalog_path(fold.project.slug, root)
    _write(path, text)
    return path, dropped


def read_catalog(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def load_fold(project: Project, root: Path = CATALOG_ROOT) -> Fold:
    """A project's catalog as written, ready to take newer releases."""
    fold = Fold(project)
    path = catalog_path(project.slug, root)
    if path.is_file():
        for data in read_catalog(path):
            fold.entries[data["id"]] = Entry.from_json(data)
    fold.releases = [r["version"] for r in read_releases(root).get(project.slug, [])]
    return fold


def releases_path(root: Path = CATALOG_ROOT) -> Path:
    return root / "releases.json"


def read_releases(root: Path = CATALOG_ROOT) -> dict[str, list[dict]]:
    path = releases_path(root)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def write_releases(rows: dict[str, list[dict]], root: Path = CATALOG_ROOT) -> Path:
    path = releases_path(root)
    ordered = {slug: sorted(rows[slug], key=lambda r: version_key(r["version"])) for slug in sorted(rows)}
    _write(path, json.dumps(ordered, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)
    tmp.replace(path)

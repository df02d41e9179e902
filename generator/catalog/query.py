"""Answers over the catalog (generator/catalog/reader.py): an entry or a site as the answers show it, what raises at a
file and line of a release, and what changed between releases (added, removed, reworded, moved)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Any

from .reader import NEARBY_LINES, Catalog, CatalogQueryError, Entry, Project, Site, check_path


# -- answers ---------------------------------------------------------------------------------------------------
def site_json(project: Project, site: Site, at: int | None = None) -> dict[str, Any]:
    """A site as the answers show it; at release `at`, its line in that release."""
    out = {
        "from": project.releases[site.start],
        "to": project.releases[site.end],
        "path": site.path,
        "line": site.line if at is None else site.line_at(at),
        "statement": site.statement,
    }
    if site.stretches:
        out["lines"] = [[project.releases[first], line] for first, _, line in site.stretches]
    return out


TITLE_CHARS = 80  # a catalog entry's title, as a record's (schema: title maxLength)
_CLAUSE_END = re.compile(r"[.;:!?](?=\s)|,(?=\s)| - ")


def entry_title(template: str) -> str:
    """A catalog entry's title, cut from its message: the template with each `{}` hole as "…", up to its first
    clause boundary (". ", "; ", ": ", ", ", " - ") after at least two words, outside brackets and quotes, when that
    is no more than TITLE_CHARS; else cut at the last space before TITLE_CHARS with "…". Whitespace runs become one
    space; a final full stop goes."""
    text = " ".join(template.replace("{}", "…").split()).strip(" :;,")
    if not text.strip("… "):
        return "…"
    for m in _CLAUSE_END.finditer(text):
        head = text[:m.start()].rstrip(" ,;:")
        if len(head) < 12 or " " not in head or not _closed(head):
            continue
        if len(head) <= TITLE_CHARS:
            return head
        break
    if len(text) > TITLE_CHARS:
        cut = text.rfind(" ", 0, TITLE_CHARS)
        return text[:cut if cut >= 20 else TITLE_CHARS - 1].rstrip(" ,;:") + "…"
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _closed(text: str) -> bool:
    """Whether every bracket and quote opened in `text` is closed (a clause boundary inside one is none)."""
    return (text.count("(") == text.count(")") and text.count("[") == text.count("]")
            and text.count("{") == text.count("}") and text.count('"') % 2 == 0 and text.count("`") % 2 == 0
            and len(re.findall(r"(?<![A-Za-z])'|'(?![A-Za-z])", text)) % 2 == 0)


def entry_summary(project: Project, entry: Entry, at: int | None = None) -> dict[str, Any]:
    """An entry as an agent needs it: the template, what raises it, where (at release `at`, else newest)."""
    d = entry.data
    sites = entry.sites_at(at) if at is not None else sorted(entry.sites, key=lambda s: -s.end)[:1]
    out: dict[str, Any] = {
        "id": entry.id,
        "project": project.slug,
        "template": d["template"],
        "title": entry_title(d["template"]),
        "kind": d.get("kind"),
        "exception": d.get("exception"),
        "level": d.get("level"),
        "tier": d.get("tier"),
        "function": d.get("function"),
        "sites": [site_json(project, s, at) for s in sites],
        "releases": [[project.releases[a], project.releases[b]] for a, b in entry.ranges],
        "first": d.get("first"),
        "last": d.get("last"),
    }
    if d.get("variants"):
        out["variants"] = d["variants"]
    if d.get("guide"):
        out["guide"] = d["guide"]
    return {k: v for k, v in out.items() if v is not None}


def explain_site(catalog: Catalog, package: str, version: str, path: str, line: int) -> dict[str, Any]:
    """What raises at `path:line` in release `version`: exact sites first, else the nearest in that file."""
    project = catalog.project(package)
    index = project.release_index(version)
    path = check_path(path)
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= 10_000_000:
        raise CatalogQueryError("line must be a line number from 1 to 10000000")
    exact, nearby, elsewhere = [], [], set()
    for entry in project.entries:
        for site in entry.sites:
            if site.path != path:
                continue
            if not site.start <= index <= site.end:
                elsewhere.add((site.start, site.end))
                continue
            distance = abs(site.line_at(index) - line)
            if distance == 0:
                exact.append(entry)
            elif distance <= NEARBY_LINES:
                nearby.append((distance, entry.id, entry))
    nearby.sort(key=lambda t: (t[0], t[1]))
    release = project.releases[index]
    out: dict[str, Any] = {
        "project": project.slug,
        "version": release,
        "path": path,
        "line": line,
        "exact": [entry_summary(project, e, index) for e in sorted(exact, key=lambda e: e.id)],
        "nearby": [dict(entry_summary(project, e, index), distance=d) for d, _, e in nearby[:5]],
    }
    if not exact and not nearby:
        if elsewhere:
            spans = sorted(elsewhere)
            out["note"] = (
                f"nothing is raised in {path} in {project.slug} {release}; the catalog has sites in this file in releases "
                + ", ".join(f"{project.releases[a]}..{project.releases[b]}" for a, b in spans[:5])
            )
        else:
            out["note"] = f"the catalog has no site in {path} for {project.slug} (in any harvested release)"
    return out


CHANGES = ("added", "removed", "reworded", "moved")


def pair_rewordings(project: Project, added: list[Entry], removed: list[Entry]) -> list[tuple[Entry, Entry]]:
    """(old, new) wordings of one message among the entries removed and added between two releases: the harvest
    links an entry to its `variants`, the entries of the same stable part. Each entry is paired at most once."""
    by_id = {e.id: e for e in added}
    pairs, taken = [], set()
    for old in sorted(removed, key=lambda e: e.id):
        for vid in old.data.get("variants") or []:
            if vid in by_id and vid not in taken:
                pairs.append((old, by_id[vid]))
                taken.add(vid)
                break
    return pairs


@dataclass
class ReleaseChanges:
    """What changed from one release of a project to the next."""

    before: int
    after: int
    added: list[Entry]
    removed: list[Entry]
    reworded: list[tuple[Entry, Entry]]
    moved: list[Entry]


def _one_site_moves(entry: Entry, moved: list[list[Entry]]) -> None:
    """Where an entry with one site moves: at the start of each stretch of the site's range whose line is another
    than the line of the release before (when the entry is in both releases)."""
    site = entry.sites[0]
    st = site.stretches
    (a, b), = entry.ranges if len(entry.ranges) == 1 else ((None, None),)
    if all(st[k][0] == st[k - 1][1] + 1 and st[k][0] <= st[k][1] for k in range(1, len(st))) and (not st or st[0][0] <= st[0][1]):
        # stretches one after another: the line before a stretch's start is the line of the stretch before
        changes = [(i, before != after) for (_, _, before), (i, _, after) in zip(st, st[1:])]
    else:
        changes = [(i, site.line_at(i - 1) != site.line_at(i)) for i in {first for first, _, _ in st}]
    for i, other_line in changes:
        if other_line and site.start < i <= site.end and (a < i <= b if a is not None else entry.present(i - 1) and entry.present(i)):
            moved[i].append(entry)


def release_changes(project: Project) -> list[ReleaseChanges]:
    """For every two consecutive releases, the entries added, removed, reworded and moved; one pass over the
    entries (the same answers as diff_errors for each pair, which a test checks)."""
    n = len(project.releases)
    added: list[list[Entry]] = [[] for _ in range(n)]
    removed: list[list[Entry]] = [[] for _ in range(n)]
    moved: list[list[Entry]] = [[] for _ in range(n)]
    for entry in project.entries:
        for a, b in entry.ranges:
            if a > 0 and not entry.present(a - 1):
                added[a].append(entry)
            if b + 1 < n and not entry.present(b + 1):
                removed[b + 1].append(entry)
        if len(entry.sites) == 1:  # most entries: it moves where its one site's line changes within its range
            _one_site_moves(entry, moved)
            continue
        bounds = {first for s in entry.sites for first, _, _ in s.spans()} | {s.end + 1 for s in entry.sites}
        for i in sorted(i for i in bounds if 0 < i < n):
            if entry.present(i - 1) and entry.present(i):
                old = {(s.path, s.line_at(i - 1)) for s in entry.sites_at(i - 1)}
                new = {(s.path, s.line_at(i)) for s in entry.sites_at(i)}
                if old and new and old != new:
                    moved[i].append(entry)
    out = []
    for i in range(1, n):
        pairs = pair_rewordings(project, added[i], removed[i])
        gone = {id(e) for pair in pairs for e in pair}
        out.append(ReleaseChanges(
            i - 1, i,
            sorted((e for e in added[i] if id(e) not in gone), key=lambda e: e.id),
            sorted((e for e in removed[i] if id(e) not in gone), key=lambda e: e.id),
            pairs,
            sorted(moved[i], key=lambda e: e.id),
        ))
    return out


def diff_errors(catalog: Catalog, package: str, from_version: str, to_version: str) -> dict[str, Any]:
    """Entries added, removed and moved (raised from another file or line) between two releases."""
    project = catalog.project(package)
    a, b = project.release_index(from_version), project.release_index(to_version)
    changes: list[dict[str, Any]] = []
    for entry in project.entries:
        before, after = entry.present(a), entry.present(b)
        if after and not before:
            changes.append(dict(entry_summary(project, entry, b), change="added"))
        elif before and not after:
            changes.append(dict(entry_summary(project, entry, a), change="removed"))
        elif before and after:
            old = {(s.path, s.line_at(a)) for s in entry.sites_at(a)}
            new = {(s.path, s.line_at(b)) for s in entry.sites_at(b)}
            if old and new and old != new:
                item = dict(entry_summary(project, entry, b), change="moved")
                item["sites_before"] = [site_json(project, s) for s in entry.sites_at(a)]
                changes.append(item)
    pairs = pair_rewordings(project, [e for e in project.entries if e.present(b) and not e.present(a)],
                            [e for e in project.entries if e.present(a) and not e.present(b)])
    paired = {e.id for pair in pairs for e in pair}
    changes = [c for c in changes if c["id"] not in paired or c["change"] == "moved"]
    for old, new in pairs:
        item = dict(entry_summary(project, new, b), change="reworded")
        item["before"] = entry_summary(project, old, a)
        changes.append(item)
    changes.sort(key=lambda c: (CHANGES.index(c["change"]), c["id"]))
    counts = {kind: sum(c["change"] == kind for c in changes) for kind in CHANGES}
    return {
        "project": project.slug,
        "from_version": project.releases[a],
        "to_version": project.releases[b],
        "counts": counts,
        "changes": changes,
    }


# A Python traceback frame: `File "/…/site-packages/vllm/config/scheduler.py", line 260, in __post_init__`.
FRAME = re.compile(rb'File "([^"\n]{1,1000}?\.py)", line (\d{1,7})')
MAX_FRAMES = 500


def _spans(indices: set[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in sorted(indices):
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


_BLANKS = re.compile(r"[ \t]+")


def statement_head(statement: str) -> str:
    """A statement's first line as a traceback prints it, blanks collapsed: what a frame's source line ends with."""
    return _BLANKS.sub(" ", statement.split("\n", 1)[0]).strip(" \t\r")


def _frames(text: bytes) -> list[tuple[str, int, str | None]]:
    """(path, line, source line or None) of the first MAX_FRAMES frames. Python prints a frame's source line on
    the line after it (after any prefix the log adds, such as a process name); none when the next line is
    another frame or there is no next line."""
    out = []
    for m in islice(FRAME.finditer(text), MAX_FRAMES):
        start = text.find(b"\n", m.end())
        source = None
        if start >= 0:
            end = text.find(b"\n", start + 1)
            line = text[start + 1 : end if end >= 0 else len(text)]
            squeezed = _BLANKS.sub(" ", line.decode("utf-8", "replace")).strip(" \t\r")
            if b'File "' not in line and squeezed:
                source = squeezed
        out.append((m[1].decode("utf-8", "replace").replace("\\", "/"), int(m[2]), source))
    return out


def traceback_fit(catalog: Any, text: bytes, sites: Any = None) -> list[dict[str, Any]]:
    """The releases a traceback fits: each frame at a raise site of the catalog (its file and line, and its source
    line, when the traceback prints it, ending with the site's statement: a frame that only calls at a line where
    another release raises does not count) narrows its project's releases to those whose file has that statement
    at that line; per project, the releases every such frame allows, with the frames that said so.

    `sites`, when given, looks the raise sites up by `"<file name>:<line>"` (a knowledge bundle's index: rows of
    [project, entry id, path, first, last, statement head]); else the catalog's entries are walked."""
    # Read on the bytes: a big log is never decoded whole just to find its frames.
    found = _frames(text)
    if not found:
        return []
    frames = [(path, line) for path, line, _ in found]
    wanted = {(path.rsplit("/", 1)[-1], line) for path, line in frames}
    # (file name, line) -> [project slug, entry id, site path, first, last, statement head] of each site there
    index: dict[tuple[str, int], list[list[Any]]] = {}
    if sites is not None:
        for name, line in wanted:
            index[(name, line)] = sites(f"{name}:{line}")
    else:
        for project in catalog.projects.values():
            for entry in project.entries:
                for site in entry.sites:
                    name = site.path.rsplit("/", 1)[-1]
                    for first, last, line in site.spans():
                        if (name, line) in wanted:
                            index.setdefault((name, line), []).append(
                                [project.slug, entry.id, site.path, first, last, statement_head(site.statement)])
    fits: dict[str, dict[str, Any]] = {}
    for path, line, source in found:
        by_project: dict[str, set[int]] = {}
        named: dict[str, list[str]] = {}
        for slug, entry_id, site_path, first, last, head in index.get((path.rsplit("/", 1)[-1], line), []):
            if (path == site_path or path.endswith("/" + site_path)) and (source is None or source.endswith(head)):
                by_project.setdefault(slug, set()).update(range(first, last + 1))
                named.setdefault(slug, []).append(entry_id)
        for slug, releases in by_project.items():
            fit = fits.setdefault(slug, {"project": slug, "releases": None, "frames": []})
            fit["releases"] = releases if fit["releases"] is None else fit["releases"] & releases
            fit["frames"].append({"site": f"{path.rsplit('/site-packages/', 1)[-1].rsplit('/dist-packages/', 1)[-1]}:{line}", "entries": sorted(set(named[slug]))})
    out = []
    for slug, fit in sorted(fits.items()):
        names = catalog.projects[slug].releases
        fit["releases"] = [[names[a], names[b]] for a, b in _spans(fit["releases"])]
        out.append(fit)
    return out

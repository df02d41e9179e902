"""The answers a log holds: every record and catalog entry the matcher finds, ranked, with the releases of each
message (the release a log comes from, when known, raises or lowers an entry). `errdex match` prints them; the MCP
server's match_log returns them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import routes
from ..catalog.reader import CatalogQueryError, check_version
from ..catalog.query import entry_summary
from .knowledge import Knowledge, ToolInputError
from ..match.output import result_json
from ..match.rules import RULES


def match_items(k: Knowledge, stream: Any, wanted: dict[str, str], beside: Callable[[], Any] | None = None) -> tuple[list[dict[str, Any]], int, int]:
    """Every record and catalog entry found in a binary stream, ranked and complete (ranked_items), with the lines
    and bytes read."""
    items, _, lines, size = ranked_items(k, stream, wanted, beside)
    return items, lines, size


def ranked_items(k: Knowledge, stream: Any, wanted: dict[str, str], beside: Callable[[], Any] | None = None,
                 shown: slice = slice(None)) -> tuple[list[dict[str, Any]], int, int, int]:
    """The records and catalog entries found in a binary stream, ranked (the release of each project in `wanted`
    raises or lowers its catalog entries): those at the ranks `shown` (a slice of the ranked list), complete, with
    how many were found and the lines and bytes read. `errdex match` reads a whole log with it (and shows the top
    few), match_log a request's text (a page of it). A catalog entry is read only for an answer shown or a release
    wanted: a big log finds hundreds. `beside` runs once, while a second process scans a big log
    (generator.match.engine.Matcher.find)."""
    with k.lock:  # the SDK runs tools in worker threads; the matcher keeps per-scan counters
        results = k.matcher.find(stream, beside=beside)
        lines, size = k.matcher.lines_read, k.matcher.bytes_read
    items: list[dict[str, Any]] = []
    by_line: dict[int, list[dict[str, Any]]] = {}  # record results per line, to attach catalog entries to
    entries = []
    for rank, r in enumerate(results, 1):
        item = result_json(rank, r)
        owner = k.owner(r.first.pattern)
        if owner is None:
            item["type"] = "record"
            item.update(_record_extras(k, r.pattern.id))
            by_line.setdefault(item["line"], []).append(item)
            items.append(item)
        else:
            entries.append((item, owner))
    owners: dict[int, tuple[Any, str, int | None]] = {}  # id(catalog item) -> its (project, entry id, release checked)
    attached: dict[int, list[tuple[Any, str, Check]]] = {}  # id(record item) -> the entries its matched text holds
    for item, (project, entry_id) in entries:
        check = _version_check(project, entry_id, wanted.get(project.slug))
        same = [rec for rec in by_line.get(item["line"], []) if _overlap(rec, item)]
        if same:  # the record explains this very text: the entry adds where and in which releases it is raised
            for rec in same:
                attached.setdefault(id(rec), []).append((project, entry_id, check))
            continue
        at, score, why = check
        item.pop("url", None)
        item.update(type="catalog", score=item["score"] + score)
        _add_reasons(item, why)
        owners[id(item)] = (project, entry_id, at)
        items.append(item)
    for rec in (i for i in items if id(i) in attached):
        # One release check per record, over every wording its text matched: the release has the message when it
        # has any of them.
        best = max((check for _, _, check in attached[id(rec)]), key=lambda check: check[1])
        if best[2]:
            rec["score"] += best[1]
            _add_reasons(rec, best[2])
    items.sort(key=lambda i: ("partial" in i, -i["score"], i["line"], i["id"]))  # partial matches last
    first_on_line: dict[int, int] = {}
    for rank, item in enumerate(items, 1):  # ranks, and the matcher's same-line note, for the final order
        item["rank"] = rank
        item["why"] = [w for w in item["why"] if not w.startswith("on the same line as #")]
        if "reasons" in item:  # the matcher's reasons as data, where it gives them
            item["reasons"] = [r for r in item["reasons"] if not (isinstance(r, list) and r[:1] == ["same_line"])]
        if item["line"] in first_on_line:
            _add_reasons(item, [(f"on the same line as #{first_on_line[item['line']]}, which ranks higher",
                                 ["same_line", first_on_line[item["line"]]])])
        else:
            first_on_line[item["line"]] = rank
    for item in items[shown]:
        if id(item) in owners:
            summary = _summary(*owners[id(item)])
            summary.pop("id"), summary.pop("template")
            item["catalog"] = summary
        elif id(item) in attached:  # each wording its text matched; those the wanted release raises first
            found = sorted(attached[id(item)], key=lambda entry: -entry[2][1])
            item["catalog"] = [_summary(project, entry_id, check[0]) for project, entry_id, check in found]
        item["card"] = _card(k, item)
    return items[shown], len(items), lines, size


def _summary(project: Any, entry_id: str, at: int | None) -> dict[str, Any]:
    """A found entry's summary (generator.catalog.query.entry_summary): its sites at release `at` (the wanted one,
    from _version_check) when that release has it, else its newest."""
    entry = project.entry(entry_id)
    return entry_summary(project, entry, at if at is not None and entry.present(at) else None)


def _card(k: Knowledge, item: dict[str, Any]) -> dict[str, Any]:
    """The answer card (generator.api.card, in each record's API document): what every surface shows of a result
    first. A catalog entry's:
    its title cut from the message, project, exception and releases (with the oldest and newest harvested), what
    the code says around it (`from_code`: the entry's guide, read mechanically at a release, never a curated fix),
    and the fix of the record that explains it (`guide`, its page as `url`) when one does; else, for a user-facing
    entry, its own page on the site (`url`)."""
    if item["type"] == "record":
        out = dict(k.api.document(item["id"])["card"])
        out["url"] = item.get("url")
    else:
        c = item["catalog"]
        names = k.catalog.projects[c["project"]].releases
        out = {"title": c["title"], "project": c["project"], "exception": c.get("exception"), "releases": c.get("releases", []),
               "harvested": [names[0], names[-1]] if names else None, "from_code": c.get("guide")}
        guide = next(iter(k.catalog.links.get(item["id"], ())), None)
        if guide is not None and guide in k.api.documents:
            doc = k.api.document(guide)
            out.update(guide=guide, fix=doc["card"].get("fix"), url=k.api.page_url(doc["links"]["html"]))
        elif c.get("tier") == routes.CATALOG_MESSAGE_TIER:  # entry ids are checked: <project>/<16 hex>, as the route takes them
            out["url"] = k.api.site_page(routes.catalog_page_url("catalog_message", c["project"], item["id"].split("/", 1)[1]))
    if item.get("partial"):
        out["partial"] = True
    return {key: v for key, v in out.items() if v is not None}


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two results on one line matched overlapping text (by column: a long line's excerpts differ)."""
    a0, b0 = a["column"], b["column"]
    return a0 < b0 + (b["span"][1] - b["span"][0]) and b0 < a0 + (a["span"][1] - a["span"][0])


Reason = tuple[str, list[Any]]  # a reason in words, and as data (the shape of the matcher's `reasons`)
Check = tuple[int | None, int, list[Reason]]  # _version_check's (release index, score change, reasons)


def _add_reasons(item: dict[str, Any], reasons: list[Reason]) -> None:
    item["why"] += [text for text, _ in reasons]
    if "reasons" in item:
        item["reasons"] += [data for _, data in reasons]


def _version_check(project: Any, entry_id: str, version: str | None) -> Check:
    """(release index, score change, reasons) for a catalog entry when the log's release of its project is known:
    + RULES["release_has_bonus"] when that release has the message, - RULES["release_lacks_penalty"] when not.
    The entry is read only then."""
    if version is None:
        return None, 0, []
    try:
        at = project.release_index(version)
    except CatalogQueryError as exc:
        return None, 0, [(f"release not checked: {exc}", ["release_unknown", project.slug, version])]
    release = project.releases[at]
    entry = project.entry(entry_id)
    if entry.present(at):
        bonus = RULES["release_has_bonus"]
        return at, bonus, [(f"+{bonus}: {project.slug} {release} has this message", ["release_has", project.slug, release, bonus])]
    penalty = RULES["release_lacks_penalty"]
    return at, -penalty, [(f"-{penalty}: {project.slug} {release} does not have this message{_when(project, entry, at)}",
                           ["release_lacks", project.slug, release, -penalty])]


def _when(project: Any, entry: Any, at: int) -> str:
    """Why a release lacks a message: added later, removed before, or spelled otherwise in that release."""
    names, ranges = project.releases, entry.ranges
    said = []
    later = [a for a, _ in ranges if a > at]
    if later:
        said.append(f"added in {names[min(later)]}")
    earlier = [b for _, b in ranges if b < at]
    if earlier and max(earlier) + 1 < len(names):
        said.append(f"removed in {names[max(earlier) + 1]}")
    variants = [project.entry(v) for v in entry.data.get("variants") or []]
    other = next((v for v in variants if v is not None and v.present(at)), None)
    if other is not None:
        said.append(f"reworded: {names[at]} says {other.data['template']!r}")
    return f" ({'; '.join(said)})" if said else ""


def check_versions(k: Knowledge, versions: Any) -> dict[str, str]:
    """`versions` maps a project (slug, package or repository) to the release the log comes from."""
    if versions is None:
        return {}
    if not isinstance(versions, dict) or len(versions) > 50:
        raise ToolInputError("versions must map projects to releases, such as {\"vllm\": \"0.8.5\"} (at most 50)")
    out = {}
    for name, version in versions.items():
        try:
            check_version(version)
        except CatalogQueryError as exc:
            raise ToolInputError(f"versions[{str(name)[:60]!r}]: {exc}") from None
        try:
            slug = k.catalog.project(name).slug
        except CatalogQueryError:
            slug = str(name).strip().lower()
            known = set(k.catalog.projects) | {cid.split("/", 1)[0] for cid in k.api.documents}
            if slug not in known:  # a misspelt project would be ignored without a word
                import difflib

                near = difflib.get_close_matches(slug, sorted(known), n=3, cutoff=0.6)
                hint = f"did you mean {', '.join(near)}? " if near else ""
                raise ToolInputError(f"versions: no project is named {str(name)[:60]!r}; {hint}the projects are "
                                     f"{', '.join(sorted(known))}") from None
            # a project with records but no catalog: nothing to check the release against
        out[slug] = version
    return out


def _record_extras(k: Knowledge, cid: str) -> dict[str, Any]:
    doc = k.api.document(cid)
    record = doc["record"]
    extras: dict[str, Any] = {"url": k.api.page_url(doc["links"]["html"]), "api": doc["links"]["json"]}
    source = record.get("source")
    if isinstance(source, dict):
        extras["raise_site"] = {key: source[key] for key in ("repo", "path", "line", "commit") if key in source}
        if "source" in doc["links"]:
            extras["raise_site"]["permalink"] = doc["links"]["source"]
    if "fix" in doc["card"]:  # the solution to try first (by counted reports), as its answer card shows it
        extras["fix"] = doc["card"]["fix"]
    if record.get("versions"):
        extras["versions"] = [{k2: v for k2, v in ver.items() if not k2.startswith("behavior_change")} for ver in record["versions"]][:10]
    return extras


def drift_items(k: Knowledge, text: str, wanted: dict[str, str]) -> list[dict[str, Any]]:
    """The version-drift answers of a log (generator.bundle.drift): for each line where Python says a name is
    missing, the releases that have it and the command that installs one; none without a symbol index."""
    from .drift import drift_answers

    if k.symbols is None:
        return []
    return drift_answers(text, k.symbols, wanted)  # the indexes are read only when a line has a drift shape


def fit_sites(k: Knowledge, items: list[dict[str, Any]], fits: list[dict[str, Any]]) -> None:
    """Each catalog answer whose entry a traceback frame raises from (generator.catalog.query.traceback_fit): its
    raise site becomes the one at that frame, in the releases that have it there (`fits_frame`: the frame), in
    place of the newest, so that "raised at" names the file the user's code ran, not another backend's copy."""
    frames: dict[str, list[tuple[str, int]]] = {}
    for fit in fits:
        for frame in fit["frames"]:
            path, _, line = frame["site"].rpartition(":")
            for entry_id in frame["entries"]:
                frames.setdefault(entry_id, []).append((path, int(line)))
    if not frames:
        return
    for item in items:
        pairs = [(item["id"], item["catalog"])] if item["type"] == "catalog" else [(c.get("id"), c) for c in item.get("catalog", [])]
        for entry_id, summary in pairs:
            if entry_id not in frames:
                continue
            project = k.catalog.projects.get(summary.get("project") or entry_id.split("/", 1)[0])
            entry = project.entry(entry_id) if project is not None else None
            if entry is None:
                continue
            found = [(site, first, last, path, line) for path, line in frames[entry_id] for site in entry.sites
                     for first, last, at in site.spans() if at == line and (path == site.path or path.endswith("/" + site.path))]
            if found:  # the site as it is at that line: the releases that have the statement there
                site, first, last, path, line = found[0]
                summary["sites"] = [{"from": project.releases[first], "to": project.releases[last], "path": site.path,
                                     "line": line, "statement": site.statement}]
                summary["fits_frame"] = f"{path}:{line}"

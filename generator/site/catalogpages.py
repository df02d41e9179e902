"""The catalog (data/catalog) on the site and in the API.

What it publishes, every address from the routes table:
- API: the projects (`catalog_index`), per project its modules and entries (`catalog_project`), each entry's
  document with every site and the records that explain it as one line of its entries file (`catalog_entries`:
  the entries whose hash starts with the same two hex digits), and per release what changed since the release
  before (`catalog_changes`).
- Pages, per language: the catalog's home and the entry view are ordinary pages (`source_pages`); the project,
  module and release pages (about 3,500 per language at the full catalog) are written straight to HTML in a
  frame the site builder renders once per depth (`fill_pages`): the theme's header, navigation and scripts
  around our content, in a fraction of the time a Markdown build of 20 MB of messages takes. Module pages are
  what site search indexes: each entry is a heading with its own anchor and a line of facts; a release's page
  lists the user-facing messages it added, removed and reworded, each linked to its own page (each user-facing
  entry has one: generator/site/catalogmessages.py), and counts the others.

Catalog text is upstream text: every value of the catalog (names, releases, paths, templates, anything in its
files) reaches a page only through `frames.esc`, and a URL or a file name only through `frames.segment`; the
JSON files are written by the API's one encoder. Nothing of it becomes markup, and the build publishes a catalog
only once it has passed every check (`CatalogSite.load`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import quote

from .. import routes
from ..catalog.reader import Catalog, Entry, Project, bulk_load
from ..catalog.query import ReleaseChanges, entry_summary, entry_title, release_changes, site_json
from ..api.export import encode_json
from .catalogmodules import module_of, split_modules
from .frames import esc, message_url, module_key, module_url, project_url, release_url, segment
from ..labels import catalog_label
from .facts import RecordFacts, record_facts
from ..records.model import Record

RECORD_DIRS = {"llama.cpp": "llama-cpp"}  # where a catalog project's records live under data/errors, when not its slug
_WAS = "\x00was\x00"  # where a reworded entry's line says "was" in the page's language (no escaped text holds NUL)
_WORDS = re.compile(r"[a-z0-9]+")


def entry_key(entry: Entry) -> str:
    """The entry's anchor on module pages: the hash part of its id."""
    return segment(entry.id.split("/", 1)[-1])


def entry_shard(entry: Entry) -> str:
    """The name of the entry's entries file in the API: the first two characters (hex digits) of its hash."""
    return segment(entry.id.split("/", 1)[-1][:2])


def entry_query(entry: Entry) -> str:
    return "?id=" + quote(entry.id, safe="/")


def has_page(entry: Entry) -> bool:
    """Whether an entry has a page of its own (routes: catalog_message): the user-facing ones. Any other entry is
    shown by the entry view (catalog_entry, with its id)."""
    return entry.data.get("tier") == routes.CATALOG_MESSAGE_TIER


def suggested_id(project: Project, template: str) -> str:
    """A record id to start a guide with: the project's records folder and the template's first words."""
    words = [w for w in _WORDS.findall(template.replace("{}", " ").lower()) if len(w) > 1][:6]
    return f"{RECORD_DIRS.get(project.slug, project.slug)}/{'-'.join(words) or 'error'}"


def _newest(entry: Entry):
    return max(entry.sites, key=lambda s: (s.end, s.start)) if entry.sites else None


@dataclass
class CatalogSite:
    """The catalog with what the pages and files need, computed once per build."""

    catalog: Catalog
    records: dict[str, RecordFacts]  # what the pages say of the records that explain entries
    repo_url: str | None
    guides: dict[str, list[str]] = field(default_factory=dict)  # entry id -> ids of records that explain it
    modules: dict[str, dict[str, list[Entry]]] = field(default_factory=dict)  # project -> module -> entries
    changes: dict[str, list[ReleaseChanges]] = field(default_factory=dict)
    _entry_page_rel: dict[str, str] = field(default_factory=dict)  # page URL -> its link to the entry view
    _module: dict[str, str] = field(default_factory=dict)  # entry id -> its module

    @classmethod
    def load(cls, folder: Path, records: list[Record], repo_url: str | None) -> CatalogSite | None:
        """The catalog in `folder` once every check passed (checks.catalog.CatalogRefused otherwise), or None when
        the folder holds no part of a catalog, or no message (the site is then built without it)."""
        from ..checks.catalog import checked_catalog

        catalog = checked_catalog(Path(folder))
        if catalog is None:
            return None
        for slug in [s for s, p in catalog.projects.items() if not p.releases or not p.entries]:
            del catalog.projects[slug]  # nothing to show: no release read, or no message
        if not catalog.projects:
            return None
        with bulk_load():  # tens of thousands of objects made at once, kept for the whole build
            view = cls(catalog, record_facts(records), repo_url)
            links_file = Path(folder) / "links.json"
            links = json.loads(links_file.read_text(encoding="utf-8")) if links_file.is_file() else {}
            for record_id, entry_ids in sorted(links.items()):
                if record_id in view.records and isinstance(entry_ids, list):
                    for eid in entry_ids:
                        view.guides.setdefault(eid, []).append(record_id)
            for slug, project in catalog.projects.items():
                by_module = split_modules(project.entries, _newest)
                for module, members in by_module.items():
                    for entry in members:
                        view._module[entry.id] = module
                view.modules[slug] = dict(sorted(by_module.items()))
                view.changes[slug] = release_changes(project)
        return view

    def entry_module(self, entry: Entry) -> str:
        if entry.id in self._module:
            return self._module[entry.id]
        site = _newest(entry)
        return module_of(site.path) if site else "(top level)"

    def counts(self, entries: list[Entry]) -> tuple[int, int]:
        """How many of `entries` are user-facing, and how many a record explains."""
        return sum(e.data.get("tier") == "user" for e in entries), sum(e.id in self.guides for e in entries)

    # -- ranges in words -------------------------------------------------------------------------------------
    def ranges(self, project: Project, entry: Entry, lang: str) -> str:
        names = project.releases
        text = ", ".join(names[a] if a == b else catalog_label("to", lang, a=names[a], b=names[b]) for a, b in entry.ranges)
        gone = self.gone_since(project, entry)
        return text + "; " + catalog_label("gone_since", lang, release=gone) if gone else text

    def gone_since(self, project: Project, entry: Entry) -> str | None:
        last = max((b for _, b in entry.ranges), default=len(project.releases) - 1)
        return project.releases[last + 1] if last < len(project.releases) - 1 else None

    def new_record(self, project: Project, entry: Entry) -> dict[str, str]:
        """How to start a guide for an entry (the pages add the prefilled issue form, from the repository's address)."""
        rid = suggested_id(project, entry.data["template"])
        return {"id": rid, "command": f"errdex new {rid} --from-catalog {entry.id}"}

    # -- API -------------------------------------------------------------------------------------------------
    def api_files(self, base: str) -> dict[str, bytes]:
        files: dict[str, bytes] = {}
        projects = []
        for slug, project in sorted(self.catalog.projects.items()):
            files.update(self._project_files(project, base))
            user, guided = self.counts(project.entries)
            projects.append({
                "project": slug, "package": project.package, "repository": project.repository,
                "releases": project.releases, "entries": len(project.entries), "user": user, "guided": guided,
                "modules": len(self.modules[slug]),
                "links": {"json": routes.api_url("catalog_project", base=base, project=segment(slug)),
                          "html": base + project_url(slug, "en"), "html_zh": base + project_url(slug, "zh")},
            })
        files[routes.api_path("catalog_index")] = _encode({"projects": projects})
        return files

    def _entry_doc(self, project: Project, entry: Entry, base: str, entry_pages: dict[str, str]) -> dict:
        doc = entry_summary(project, entry)
        doc["sites"] = []
        for s in sorted(entry.sites, key=lambda s: (s.start, s.end, s.path, s.line)):
            site = site_json(project, s)
            link = project.source_link(s.end, s.path, s.line)
            if link:
                site["url"] = link
            doc["sites"].append(site)
        doc["module"] = self.entry_module(entry)
        doc["gone_since"] = self.gone_since(project, entry)
        doc["guides"] = [{"id": rid, "title": self.records[rid].title["en"], "title_zh": self.records[rid].title["zh"],
                          "html": base + routes.page_url("error", rid, lang="en"), "html_zh": base + routes.page_url("error", rid, lang="zh"),
                          "json": routes.api_url("record", rid, base)} for rid in self.guides.get(entry.id, [])]
        anchor = _anchor(entry)
        if has_page(entry):
            shown = {lang: base + message_url(project.slug, entry_key(entry), lang) for lang in ("en", "zh")}
        else:
            shown = {lang: entry_pages[lang] + entry_query(entry) for lang in ("en", "zh")}
        doc["links"] = {"html": shown["en"], "html_zh": shown["zh"],
                        **{name: base + module_url(project.slug, doc["module"], lang) + "#" + anchor for name, lang in (("module", "en"), ("module_zh", "zh"))}}
        if not doc["guides"]:
            doc["new_record"] = self.new_record(project, entry)
        return {k: v for k, v in doc.items() if v is not None}

    def _brief(self, project: Project, entry: Entry, at: int) -> dict:
        """An entry in a release's changes: where release `at` raises it (the newest site when it does not)."""
        sites = entry.sites_at(at)
        site, index = (sites[0], at) if sites else (_newest(entry), None)
        where = {"path": site.path, "line": site.line if index is None else site.line_at(index)} if site else None
        out = {"id": entry.id, "template": entry.data["template"], "exception": entry.data.get("exception"),
               "tier": entry.data.get("tier"), "site": where}
        return {k: v for k, v in out.items() if v is not None}

    def _project_files(self, project: Project, base: str) -> dict[str, bytes]:
        slug = project.slug
        files: dict[str, bytes] = {}
        entries = []
        shards: dict[str, list[bytes]] = {}  # an entries file: one line per entry, in id order
        entry_pages = {lang: base + routes.catalog_page_url("catalog_entry", lang=lang) for lang in ("en", "zh")}
        for entry in project.entries:  # in id order (the reader sorts them)
            d = entry.data
            site = _newest(entry)
            body = _encode(self._entry_doc(project, entry, base, entry_pages))  # one line: the encoder escapes every line break
            shards.setdefault(entry_shard(entry), []).append(body)
            entries.append({k: v for k, v in {
                "id": entry.id, "title": entry_title(d["template"]), "template": d["template"], "exception": d.get("exception"), "kind": d.get("kind"),
                "level": d.get("level"), "tier": d.get("tier"), "module": self.entry_module(entry),
                "releases": [[project.releases[a], project.releases[b]] for a, b in entry.ranges],
                "site": {"path": site.path, "line": site.line, "release": project.releases[site.end]} if site else None,
                "guides": self.guides.get(entry.id) or None,
                "sha256": hashlib.sha256(body).hexdigest(),
            }.items() if v is not None})
        for key, lines in shards.items():
            files[routes.api_path("catalog_entries", key, project=segment(slug))] = b"".join(lines)
        modules = [{"module": m, "key": module_key(m), "entries": len(es), **dict(zip(("user", "guided"), self.counts(es)))}
                   for m, es in self.modules[slug].items()]
        files[routes.api_path("catalog_project", project=segment(slug))] = _encode({
            "project": slug, "package": project.package, "repository": project.repository, "releases": project.releases,
            "modules": modules, "entries": entries})
        for ch in self.changes[slug]:
            after = project.releases[ch.after]
            files[routes.api_path("catalog_changes", segment(after), project=segment(slug))] = _encode({
                "project": slug, "from_version": project.releases[ch.before], "to_version": after,
                "counts": {"added": len(ch.added), "removed": len(ch.removed), "reworded": len(ch.reworded), "moved": len(ch.moved)},
                "added": [self._brief(project, e, ch.after) for e in ch.added],
                "removed": [self._brief(project, e, ch.before) for e in ch.removed],
                "reworded": [{"before": self._brief(project, a, ch.before), "after": self._brief(project, b, ch.after)} for a, b in ch.reworded],
            })
        return files

    # -- pages -----------------------------------------------------------------------------------------------
    def _framed(self) -> Iterator[tuple[str, Callable[[tuple[str, ...]], dict[str, tuple[str, str, str]]]]]:
        """Every framed page: its URL (relative to a language root) and what renders it in some languages."""
        for slug, project in sorted(self.catalog.projects.items()):
            yield project_url(slug), partial(self._project_pages, project)
            for module, entries in self.modules[slug].items():
                yield module_url(slug, module), partial(self._module_page, project, module, entries)
            for i, ch in enumerate(self.changes[slug]):
                yield release_url(slug, project.releases[ch.after]), partial(self._release_page, project, i)

    def page_urls(self) -> list[str]:
        """The framed pages' URLs (relative to a language root), without rendering them."""
        return [url for url, _ in self._framed()]

    def html_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        """URL (relative to the language root) -> (title, description, body HTML) of every framed page."""
        return self.html_pages_in((lang,))[lang]

    def html_pages_in(self, langs: tuple[str, ...]) -> dict[str, dict[str, tuple[str, str, str]]]:
        """`html_pages` of each language, made together: what a page says in every language (its entries' templates,
        sites and links) is escaped once, only the words are each language's."""
        out: dict[str, dict[str, tuple[str, str, str]]] = {lang: {} for lang in langs}
        for url, render in self._framed():
            for lang, page in render(langs).items():
                out[lang][url] = page
        return out

    def _link(self, here: str, there: str, text: str) -> str:
        return f'<a href="{esc(routes.relative(here, there))}">{esc(text)}</a>'

    def _project_pages(self, project: Project, langs: tuple[str, ...]) -> dict[str, tuple[str, str, str]]:
        return {lang: self._project_page(project, lang) for lang in langs}

    def _project_page(self, project: Project, lang: str) -> tuple[str, str, str]:
        slug, L = project.slug, lambda k, **v: catalog_label(k, lang, **v)
        here = project_url(slug)
        user, guided = self.counts(project.entries)
        intro = L("project_intro", n=f"{len(project.entries):,}", count=str(len(project.releases)), first=project.releases[0],
                  last=project.releases[-1], user=f"{user:,}", guided=str(guided))
        parts = [f"<p>{esc(intro)}</p>", f"<p>{self._link(here, routes.CATALOG_PAGES['catalog'], L('all_projects'))}</p>"]
        parts.append(f'<h2 id="modules">{L("modules")}</h2><table><thead><tr><th>{L("module")}</th><th>{L("messages")}</th>'
                     f'<th>{L("user_facing")}</th><th>{L("with_guide")}</th></tr></thead><tbody>')
        for module, entries in self.modules[slug].items():
            there = module_url(slug, module)
            user, guided = self.counts(entries)
            parts.append(f"<tr><td>{self._link(here, there, module)}</td><td>{len(entries)}</td><td>{user}</td><td>{guided}</td></tr>")
        parts.append("</tbody></table>")
        parts.append(f'<h2 id="releases">{L("releases")}</h2><table><thead><tr><th>{L("release")}</th><th>{L("added")}</th>'
                     f'<th>{L("removed")}</th><th>{L("reworded")}</th></tr></thead><tbody>')
        for ch in reversed(self.changes[slug]):
            there = release_url(slug, project.releases[ch.after])
            parts.append(f"<tr><td>{self._link(here, there, project.releases[ch.after])}</td><td>{len(ch.added)}</td>"
                         f"<td>{len(ch.removed)}</td><td>{len(ch.reworded)}</td></tr>")
        parts.append(f"<tr><td>{esc(project.releases[0])}</td><td colspan=\"3\">{L('first_release')}</td></tr></tbody></table>")
        title = L("project_title", project=slug)
        return title, intro, "\n".join(parts)

    def _entry_html(self, project: Project, entry: Entry, here: str, langs: tuple[str, ...]) -> dict[str, str]:
        """One entry in each language: its template as a heading (its own anchor, a search sub-result), then one line
        of facts; an entry with a page of its own leaves its raise site to that page."""
        d = entry.data
        own = has_page(entry)
        site = None if own else _newest(entry)
        known = [esc(x) for x in (d.get("exception") or d.get("kind"), d.get("level")) if x]
        tier = d["tier"] if d.get("tier") in ("user", "internal") else None
        where = None
        if site is not None:
            index = site.end
            line = site.line_at(index)
            where = esc(f"{site.path}:{line}")
            link = project.source_link(index, site.path, line)
            where = f'<a href="{esc(link)}">{where}</a>' if link else f"<code>{where}</code>"
            where = f"{where} ({esc(project.releases[index])})"
        guides = self.guides.get(entry.id, [])
        guided = ", ".join(self._link(here, routes.page_url("error", rid), self.records[rid].message[:120]) for rid in guides)
        if own:
            details = esc(routes.relative(here, message_url(project.slug, entry_key(entry))))
        else:
            entry_page = self._entry_page_rel.get(here)
            if entry_page is None:
                entry_page = self._entry_page_rel[here] = routes.relative(here, routes.catalog_page_url("catalog_entry"))
            details = esc(entry_page + entry_query(entry))
        code = f'<code>{esc(d["template"])}</code>'
        if own:  # the heading is the link to the entry's own page
            code = f'<a href="{details}">{code}</a>'
        head = f'<h3 id="{esc(_anchor(entry))}">{code}</h3><p class="errdex-cat-facts" data-pagefind-ignore>'
        out = {}
        for lang in langs:
            L = partial(catalog_label, lang=lang)
            facts = known + [esc(L(tier))] if tier else list(known)
            if where is not None:
                facts.append(where)
            facts.append(esc(self.ranges(project, entry, lang)))
            if guides or not own:
                facts.append(L("guide") + ": " + guided if guides else L("no_guide"))
            if not own:
                facts.append(f'<a href="{details}">{L("details")}</a>')
            out[lang] = head + " · ".join(facts) + "</p>\n"
        return out

    def _entry_line(self, project: Project, entry: Entry, here: str, was: Entry | None = None) -> str:
        """One entry on a release's page: its template, linked to its own page (a user-facing entry) or to its place
        on its module's page (where its facts are), after the wording it replaced (`was`, the word itself left as
        _WAS for the language)."""
        if has_page(entry):
            href = esc(routes.relative(here, message_url(project.slug, entry_key(entry))))
        else:
            href = esc(routes.relative(here, module_url(project.slug, self.entry_module(entry))) + "#" + _anchor(entry))
        before = f'{_WAS}: <code>{esc(was.data["template"])}</code> → ' if was is not None else ""
        return f'<li>{before}<a href="{href}"><code>{esc(entry.data["template"])}</code></a></li>'

    def _module_page(self, project: Project, module: str, entries: list[Entry], langs: tuple[str, ...]) -> dict[str, tuple[str, str, str]]:
        here = module_url(project.slug, module)
        order = sorted(entries, key=lambda e: (e.id not in self.guides, e.data.get("tier") != "user", e.data["template"].lower(), e.id))
        shown = [self._entry_html(project, e, here, langs) for e in order]
        out = {}
        for lang in langs:
            up = self._link(here, project_url(project.slug), catalog_label("project_title", lang, project=project.slug))
            body = f'<p>{up}</p><div data-pagefind-body data-pagefind-meta="kind:catalog">' + "".join(e[lang] for e in shown) + "</div>"
            title = catalog_label("module_title", lang, project=project.slug, module=module)
            out[lang] = (title, f"{len(entries)} · {title}", body)
        return out

    def _release_page(self, project: Project, i: int, langs: tuple[str, ...]) -> dict[str, tuple[str, str, str]]:
        changes = self.changes[project.slug]
        ch = changes[i]
        release, previous = project.releases[ch.after], project.releases[ch.before]
        here = release_url(project.slug, release)
        # the messages users meet (those with a page of their own) are listed; the ones in internal code counted,
        # with the API's changes file, which lists every one
        groups = {"added": [(None, e) for e in ch.added], "removed": [(None, e) for e in ch.removed], "reworded": ch.reworded}
        shown = {key: [self._entry_line(project, new, here, was=old) for old, new in pairs if has_page(new)] for key, pairs in groups.items()}
        internal = {key: len(pairs) - len(shown[key]) for key, pairs in groups.items()}
        changes_file = routes.api_url("catalog_changes", segment(release), project=segment(project.slug))
        out = {}
        for lang in langs:
            L = partial(catalog_label, lang=lang)
            nav = [self._link(here, project_url(project.slug), project.slug)]
            if i > 0:
                nav.append(L("previous_release") + ": " + self._link(here, release_url(project.slug, previous), previous))
            if i + 1 < len(changes):
                nxt = project.releases[changes[i + 1].after]
                nav.append(L("next_release") + ": " + self._link(here, release_url(project.slug, nxt), nxt))
            parts = [f"<p>{' · '.join(nav)}</p>"]
            api = esc("../" * here.count("/") + routes.to_site_root(lang) + changes_file)
            was = L("was")
            for key, items in shown.items():
                parts.append(f'<h2 id="{key}">{L(key)} ({len(items) + internal[key]})</h2>')
                lines = "".join(line.replace(_WAS, was) for line in items)
                if internal[key]:
                    lines += f'<li><a href="{api}">{esc(L("internal_more", n=str(internal[key])))}</a></li>'
                parts.append(f"<ul>{lines}</ul>" if lines else f"<p>{L('none')}</p>")
            parts.append(f'<h2 id="moved">{L("moved")}: {len(ch.moved)}</h2>')
            title = L("release_title", project=project.slug, release=release, previous=previous)
            counts = f"+{len(ch.added)} −{len(ch.removed)} ~{len(ch.reworded)}"
            out[lang] = (title, f"{title} ({counts})", "\n".join(parts))
        return out


def _anchor(entry: Entry) -> str:
    return "e-" + entry_key(entry)


def _encode(doc: object) -> bytes:
    return encode_json(doc)  # the API's one encoder: U+2028, U+2029 and U+0085 escaped too

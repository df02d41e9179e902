"""Each user-facing catalog entry's own page (routes: catalog_message), in each language: what a search engine sends
a person who pastes the message to. Written as lean pages (generator/site/frames.py LeanPage), outside the theme's
frame, so that 38,000 of them in two languages fit where the site is published. Catalog text is upstream text: every
value reaches the page only through `frames.esc`, as on the catalog's other pages (generator/site/catalogpages.py)."""

from __future__ import annotations

from functools import partial
from urllib.parse import quote

from .. import routes
from ..bundle.guidewords import GuideWords, guide_words
from ..catalog.query import entry_title
from ..catalog.reader import Entry, Project
from ..labels import catalog_label
from .catalogpages import CatalogSite, _anchor, entry_key, has_page
from .frames import esc, message_url, module_url, project_url


def message_urls(view: CatalogSite) -> list[str]:
    """The URLs (relative to a language root) of the entries' own pages, without rendering them."""
    return [message_url(slug, entry_key(e)) for slug, p in sorted(view.catalog.projects.items()) for e in p.entries if has_page(e)]


def message_pages(view: CatalogSite, langs: tuple[str, ...]) -> dict[str, dict[str, tuple[str, str, str]]]:
    """Each user-facing entry's own page in each language: URL (relative to the language root) -> (title,
    description, body HTML; the body holds its own heading)."""
    out: dict[str, dict[str, tuple[str, str, str]]] = {lang: {} for lang in langs}
    for slug, project in sorted(view.catalog.projects.items()):
        by_id = {e.id: e for e in project.entries}
        for entry in project.entries:
            if has_page(entry):
                url = message_url(slug, entry_key(entry))
                for lang, page in _message_page(view, project, entry, url, by_id, langs).items():
                    out[lang][url] = page
    return out


def _message_page(view: CatalogSite, project: Project, entry: Entry, here: str, by_id: dict[str, Entry],
                  langs: tuple[str, ...]) -> dict[str, tuple[str, str, str]]:
    """One entry as a page a search engine sends a person to: its title and message, what raises it and in which
    releases, what the code says around it (labelled as read from the code), the records that explain it or how
    to start one, every raise site per release range (the newest with its statement), and its other wordings (each
    linked to its own page, or to the entry view). Every catalog value goes through `esc`."""
    d, slug = entry.data, project.slug
    title = entry_title(d["template"])
    module = view.entry_module(entry)
    message = f'<pre class="errdex-cat-message"><code>{esc(d["template"])}</code></pre>'
    project_link = view._link(here, project_url(slug), slug)
    module_link = f'<a href="{esc(routes.relative(here, module_url(slug, module)) + "#" + _anchor(entry))}">{esc(module)}</a>'
    sites = []  # newest first, the newest with its statement (the entry view and the API have every one's)
    for s in sorted(entry.sites, key=lambda s: (s.start, s.end, s.path, s.line), reverse=True):
        where = esc(f"{s.path}:{s.line}")
        link = project.source_link(s.end, s.path, s.line)
        where = f'<a href="{esc(link)}">{where}</a>' if link else f"<code>{where}</code>"
        code = "" if sites else f"<pre><code>{esc(s.statement)}</code></pre>"
        sites.append((project.releases[s.start], project.releases[s.end], f"{where}</p>{code}"))
    variants = []
    for vid in d.get("variants") or []:
        other = by_id.get(vid)
        if other is not None and has_page(other):
            href = routes.relative(here, message_url(slug, entry_key(other)))
        else:
            href = routes.relative(here, routes.catalog_page_url("catalog_entry")) + "?id=" + quote(str(vid), safe="/")
        text = other.data["template"] if other is not None else str(vid)
        variants.append(f'<li><a href="{esc(href)}"><code>{esc(text)}</code></a></li>')
    records = view.guides.get(entry.id, [])
    guide = d.get("guide") if isinstance(d.get("guide"), dict) else None
    out = {}
    for lang in langs:
        L = partial(catalog_label, lang=lang)
        facts = [(L("project"), project_link)]
        if d.get("exception"):
            facts.append((L("exception"), esc(d["exception"])))
        facts.append((L("kind"), esc(" · ".join(x for x in (d.get("kind"), d.get("level")) if x))))  # user-facing, as every such page
        facts.append((L("raised_by"), esc(view.ranges(project, entry, lang))))
        facts.append((L("module"), module_link))
        parts = [f"<h1>{esc(title)}</h1>", message, _dl(facts, "errdex-cat-dl")]
        if guide:
            parts.append(_guide_html(guide_words(guide, slug, d.get("function"), lang)))
        if records:
            items = "".join(f'<li>{view._link(here, routes.page_url("error", rid), view.records[rid].title[lang])}</li>' for rid in records)
            parts.append(f'<h2 id="records">{esc(L("guide"))}</h2><ul>{items}</ul>')
        else:
            command = view.new_record(project, entry)["command"]
            parts.append(f'<h2 id="records">{esc(L("no_guide"))}</h2><p>{esc(L("start_guide"))}</p><pre><code>{esc(command)}</code></pre>')
        parts.append(f'<h2 id="sites">{esc(L("sites"))}</h2>')
        parts += [f"<p>{esc(a if a == b else L('to', a=a, b=b))}: {rest}" for a, b, rest in sites]
        if variants:
            parts.append(f'<h2 id="variants">{esc(L("variants"))}</h2><ul>{"".join(variants)}</ul>')
        template = d["template"] if len(d["template"]) <= 160 else d["template"][:159] + "…"
        out[lang] = (L("message_title", title=title, project=slug), L("message_description", project=slug, template=template), "\n".join(parts))
    return out


def _dl(rows: list[tuple[str, str]], cls: str) -> str:
    """A definition list of (term, HTML) rows; the terms are our labels, escaped here."""
    return f'<dl class="{cls}">' + "".join(f"<dt>{esc(term)}</dt><dd>{value}</dd>" for term, value in rows) + "</dl>"


def _guide_html(words: GuideWords) -> str:
    """An entry's guide as every surface words it (catalog.query.guide_words; the entry view's script, alike): its
    heading, then the guard as code, the comment above, the docstring line and the options it names."""
    rows = [(label, f"<code>{esc(text)}</code>" if code else esc(text)) for label, text, code in words.rows]
    options = "".join(f"<li><code>{esc(name)}</code>{esc(f' ({default})') if default else ''}{esc(f': {said}') if said else ''}</li>"
                      for name, default, said in words.options)
    rows += [(words.options_label, f"<ul>{options}</ul>")] if options else []
    return f'<h2 id="code">{esc(words.heading)}</h2>\n' + _dl(rows, "errdex-cat-dl errdex-cat-code")

/*
 * The catalog's entry view (catalog/entry/?id=<project>/<16 hex>): one entry of the message catalog, rendered
 * from its line of its API entries file (NDJSON: the entries whose hash starts with the same two hex digits, one
 * a line). The page (generator/site/frames.py) hands over, as data attributes of .errdex-cat-view: the words
 * (data-errdex-labels, from generator/labels.py CATALOG_LABELS), the entries file's address with {project} and
 * {key} (the hash's first two digits) to fill (data-errdex-api, from the routes table), the new-error issue form
 * (data-errdex-issue) and the page's language (data-errdex-lang). The entry is read, and its guide worded, by
 * errdex-catalog-entry.js (loaded first). Catalog text only ever becomes text nodes, never markup.
 */
(function () {
  "use strict";
  var view = document.querySelector(".errdex-cat-view");
  if (!view) return;
  var L = JSON.parse(view.getAttribute("data-errdex-labels") || "{}");
  var lang = view.getAttribute("data-errdex-lang") || "en";
  var ID = /^([a-z0-9][a-z0-9._-]{0,63})\/([0-9a-f]{16})$/;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function link(href, text) {
    var a = el("a", text);
    a.href = href;
    return a;
  }
  var entry = window.errdexCatalogEntry, fill = entry.fill;
  function say(text) {
    view.textContent = "";
    view.appendChild(el("p", text));
  }
  function ranges(doc) {
    var text = (doc.releases || []).map(function (r) { return r[0] === r[1] ? r[0] : fill(L.to, { a: r[0], b: r[1] }); }).join(", ");
    if (doc.gone_since) text += "; " + fill(L.gone_since, { release: doc.gone_since });
    return text;
  }
  function row(list, label, value) {
    list.appendChild(el("dt", label));
    var dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    list.appendChild(dd);
  }

  // The entry's guide: what the code says around the message at one release, labelled as read from the code,
  // never as a fix (errdex-catalog-entry.js words it as the paste page's cards do).
  function fromCode(doc) {
    view.appendChild(el("h3", entry.guideHead(doc, L)));
    var dl = entry.guideList(doc, L);
    dl.className = "errdex-cat-dl errdex-cat-code";
    view.appendChild(dl);
  }

  function render(doc, id) {
    view.textContent = "";
    view.appendChild(el("h2", doc.title || doc.template)); // a title cut from the message (generator.catalog.query.entry_title)
    var message = el("p");
    message.appendChild(el("code", doc.template));
    view.appendChild(message);
    var facts = el("dl", null, "errdex-cat-dl");
    row(facts, L.project, doc.project);
    if (doc.exception) row(facts, L.exception, doc.exception);
    row(facts, L.kind, [doc.kind, doc.level, L[doc.tier] || doc.tier].filter(Boolean).join(" · "));
    row(facts, L.raised_by, ranges(doc));
    if (doc.links && doc.links.module) row(facts, L.module, link(lang === "zh" ? doc.links.module_zh : doc.links.module, doc.module));
    view.appendChild(facts);
    if (doc.guide) fromCode(doc);

    if (doc.guides && doc.guides.length) {
      view.appendChild(el("h3", L.guide));
      var ul = el("ul");
      doc.guides.forEach(function (g) {
        var li = el("li");
        li.appendChild(link(lang === "zh" ? g.html_zh : g.html, (lang === "zh" && g.title_zh) || g.title));
        ul.appendChild(li);
      });
      view.appendChild(ul);
    } else {
      view.appendChild(el("h3", L.no_guide));
      view.appendChild(el("p", L.start_guide));
      var pre = el("pre");
      pre.appendChild(el("code", doc.new_record ? doc.new_record.command : ""));
      view.appendChild(pre);
      var issue = view.getAttribute("data-errdex-issue");
      if (issue) {
        var newest = (doc.sites || []).slice(-1)[0];
        var q = new URLSearchParams({ title: "New error: " + doc.template.slice(0, 120), message: doc.template,
                                      project: doc.project + " " + (doc.last || "") });
        if (newest && newest.url) q.set("source", newest.url);
        var p = el("p");
        p.appendChild(link(issue + "&" + q.toString(), L.propose));
        view.appendChild(p);
      }
    }

    view.appendChild(el("h3", L.sites));
    (doc.sites || []).slice().reverse().forEach(function (s) {
      var head = el("p");
      head.appendChild(document.createTextNode((s.from === s.to ? s.from : fill(L.to, { a: s.from, b: s.to })) + ": "));
      var where = s.path + ":" + s.line;
      head.appendChild(s.url ? link(s.url, where) : el("code", where));
      if (s.lines) head.appendChild(document.createTextNode(" (" + s.lines.map(function (p) { return p[0] + ": " + p[1]; }).join(", ") + ")"));
      view.appendChild(head);
      var pre = el("pre");
      pre.appendChild(el("code", s.statement));
      view.appendChild(pre);
    });

    if (doc.variants && doc.variants.length) {
      view.appendChild(el("h3", L.variants));
      var vl = el("ul");
      doc.variants.forEach(function (v) {
        var li = el("li");
        li.appendChild(link("?id=" + encodeURIComponent(v).replace("%2F", "/"), v));
        vl.appendChild(li);
      });
      view.appendChild(vl);
    }
    document.title = (doc.title || doc.template.slice(0, 80)) + " · " + document.title;
  }

  var id = new URLSearchParams(location.search).get("id") || "";
  var m = ID.exec(id);
  if (!m) { say(L.not_found); return; }
  var api = view.getAttribute("data-errdex-api").replace("{project}", m[1]).replace("{key}", m[2].slice(0, 2));
  entry.load(api, id).then(function (doc) {
    if (doc) render(doc, id); else say(L.not_found);
  }).catch(function () { say(L.not_found); });
})();

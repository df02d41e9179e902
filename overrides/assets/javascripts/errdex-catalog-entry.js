/*
 * One catalog entry as the pages read and show it, shared by the entry view (errdex-catalog.js) and the paste
 * page's cards (errdex-match.js), which load this script first:
 *   - errdexCatalogEntry.load(url, id): the entry's line of its API entries file (NDJSON, one entry a line), as
 *     an object, or null when the file or the line is missing;
 *   - errdexCatalogEntry.guideList(doc, labels): its guide (generator/harvest/guides.py: the guard, the comment
 *     above, its function's docstring line, the options it names) as a <dl>, worded by generator/labels.py's
 *     catalog labels; guideHead(doc, labels) the heading that says it was read from the code;
 *   - errdexCatalogEntry.fill(text, values): a label's {name} holes filled once (a value's own braces or `$`
 *     stay as they are).
 * Catalog text only ever becomes text nodes, never markup.
 */
(function () {
  "use strict";

  function fill(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, function (whole, k) { return values[k] !== undefined ? String(values[k]) : whole; });
  }

  function el(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  var files = {}; // entries file URL -> promise of its text ("" when it cannot be had)

  function load(url, id) {
    if (!files[url]) {
      files[url] = fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : ""; }, function () { return ""; });
    }
    return files[url].then(function (text) {
      var lines = text.split("\n");
      for (var i = 0; i < lines.length; i++) {
        if (lines[i].indexOf('"' + id + '"') < 0) continue;
        try {
          var doc = JSON.parse(lines[i]);
          if (doc.id === id) return doc;
        } catch (e) { return null; }
      }
      return null;
    });
  }

  function guideHead(doc, L) {
    return fill(L.from_code, { project: doc.project, release: doc.guide.release });
  }

  function guideList(doc, L) {
    var g = doc.guide, dl = el("dl");
    function row(label, node) {
      dl.appendChild(el("dt", label));
      var dd = el("dd");
      dd.appendChild(node);
      dl.appendChild(dd);
    }
    if (g.guard && L["guard_" + g.guard.kind]) row(L["guard_" + g.guard.kind], el("code", g.guard.source));
    if (g.comment) row(L.code_comment, document.createTextNode(g.comment));
    if (g.doc && doc["function"]) row(fill(L.code_doc, { "function": doc["function"] }), document.createTextNode(g.doc));
    if (g.options && g.options.length) {
      var ul = el("ul");
      g.options.forEach(function (o) {
        var li = el("li");
        li.appendChild(el("code", o.flag || (o["class"] ? o["class"] + "." + o.name : o.name)));
        if (o["default"]) li.appendChild(document.createTextNode(" (" + fill(L.code_default, { value: o["default"] }) + ")"));
        if (o.help) li.appendChild(document.createTextNode(": " + o.help));
        ul.appendChild(li);
      });
      row(L.code_options, ul);
    }
    return dl;
  }

  window.errdexCatalogEntry = { load: load, guideHead: guideHead, guideList: guideList, fill: fill };
})();

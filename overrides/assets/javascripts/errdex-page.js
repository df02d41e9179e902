/* errdex, every page: the language switcher keeps the section the reader is at (#anchor); both languages'
 * pages have the same section ids. */
(function () {
  "use strict";
  document.querySelectorAll("a[data-errdex-lang]").forEach(function (a) {
    a.addEventListener("click", function () {
      if (window.location.hash && !a.hash) a.hash = window.location.hash;
    });
  });
})();

/* errdex, the page for an address with nothing behind it (404.html): an address a page had before (routes.MOVED_PAGES,
 * in data-errdex-moved: [old, new] templates relative to a language root) goes on to where the page is now. The
 * site host serves one 404 page for every language, so each language root (data-errdex-langs) is tried. */
(function () {
  "use strict";
  var here = document.querySelector("[data-errdex-moved]");
  if (!here) return;
  var root = new URL(here.getAttribute("data-errdex-site-root"), document.baseURI);
  if (window.location.pathname.indexOf(root.pathname) !== 0) return;
  var rel = window.location.pathname.slice(root.pathname.length); // as sent: a segment that needs escaping is none of ours
  var moved = JSON.parse(here.getAttribute("data-errdex-moved"));
  var langs = JSON.parse(here.getAttribute("data-errdex-langs")).sort(function (a, b) { return b.length - a.length; });
  function escape(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
  for (var i = 0; i < langs.length; i++) {
    if (rel.indexOf(langs[i]) !== 0) continue;
    var rest = rel.slice(langs[i].length);
    for (var j = 0; j < moved.length; j++) {
      var names = [];
      var shape = new RegExp("^" + moved[j][0].split(/(\{[a-z]+\})/).map(function (part) {
        if (/^\{[a-z]+\}$/.test(part)) { names.push(part); return "([A-Za-z0-9_][A-Za-z0-9._-]*)"; }
        return escape(part);
      }).join("") + "$");
      var found = shape.exec(rest);
      if (!found) continue;
      var target = moved[j][1];
      names.forEach(function (name, k) { target = target.split(name).join(found[k + 1]); });
      // on this origin whatever the page names as its root: the script only ever moves within the site served
      window.location.replace(new URL(root.pathname + langs[i] + target, window.location.origin).href + window.location.search + window.location.hash);
      return;
    }
    return;
  }
})();

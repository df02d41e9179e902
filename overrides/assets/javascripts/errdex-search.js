/* errdex search: Pagefind behind Material's search box.
 *
 * The Pagefind bundle (pagefind/pagefind.js at the site root) is loaded on first use only, so pages that do
 * not search download nothing. pagefind.js picks the index for <html lang>, so each language searches only
 * its own pages. Result titles are set as text; excerpts are parsed inertly and only <mark> survives.
 *
 * Chinese (a page whose search box has data-segment): the index holds every Han character as a word (see
 * generator/searchtext.py, the one home of the rule and of the character classes in data-segment). A query is
 * spaced the same way and asked for as an exact phrase; when the phrase finds nothing, its words in any order.
 * Titles and excerpts come back spaced: a space between two CJK characters is removed before they are shown.
 */
(function () {
  "use strict";
  var root = document.querySelector("[data-errdex-search]");
  if (!root) return;
  var toggle = document.getElementById("__search");
  var input = root.querySelector("[data-errdex-search-input]");
  var form = root.querySelector("form");
  var result = root.querySelector("[data-errdex-search-result]");
  var meta = result.querySelector(".md-search-result__meta");
  var list = result.querySelector(".md-search-result__list");
  var idleText = meta.textContent;
  var pagefind = null;
  var loading = null;
  var active = -1;
  var MAX = 20;

  function msg(name) { return root.getAttribute("data-msg-" + name) || ""; }

  /* ---- Chinese: the same spacing as generator/searchtext.py, from the same character classes. */
  var segment = root.getAttribute("data-segment");
  segment = segment ? JSON.parse(segment) : null;
  function charClass(ranges) {
    return "[" + ranges.map(function (r) { return "\\u{" + r[0].toString(16) + "}-\\u{" + r[1].toString(16) + "}"; }).join("") + "]";
  }
  var HAN = segment ? new RegExp(charClass(segment.han), "gu") : null;
  var CJK = segment ? charClass(segment.han.concat(segment.punct)) : null;
  var JOIN = segment ? new RegExp("(" + CJK + ")((?:<\\/?mark>)*)\\s+((?:<\\/?mark>)*)(?=" + CJK + ")", "gu") : null;
  function spaced(text) {
    return HAN ? text.replace(HAN, " $& ").replace(/\s+/g, " ").trim() : text;
  }
  function unspaced(text) {
    if (!JOIN) return text;
    text = text.replace(/\u3000/g, " ");
    var before;
    do { before = text; text = text.replace(JOIN, "$1$2$3"); } while (text !== before);
    return text;
  }
  /* The Pagefind queries to try, in order: the query as it is, or for text with Han characters the exact phrase,
   * then its longest word as a phrase with the other words beside it. */
  function queries(query) {
    query = query.trim();
    if (!HAN || !query.match(HAN)) return [query];
    var words = query.split(/\s+/);
    var out = ['"' + spaced(query) + '"'];
    if (words.length > 1) {
      var longest = words.filter(function (w) { return w.match(HAN); }).sort(function (a, b) { return b.length - a.length; })[0];
      out.push(['"' + spaced(longest) + '"'].concat(words.filter(function (w) { return w !== longest; }).map(spaced)).join(" "));
    }
    return out;
  }
  window.errdexSearchText = { spaced: spaced, unspaced: unspaced, queries: queries };

  function load() {
    if (loading) return loading;
    var src = new URL(root.getAttribute("data-pagefind-src"), document.baseURI).href;
    var siteRoot = new URL(root.getAttribute("data-site-root"), document.baseURI).pathname;
    loading = import(src).then(function (pf) {
      return Promise.resolve(pf.options({ baseUrl: siteRoot, excerptLength: 24 })).then(function () {
        pf.init();
        pagefind = pf;
        return pf;
      });
    });
    return loading;
  }

  function open() {
    if (toggle && !toggle.checked) toggle.checked = true;
    load().catch(function () { meta.textContent = msg("failed"); });
  }

  function close() {
    if (toggle) toggle.checked = false;
    input.blur();
  }

  /* Excerpt HTML from the index -> nodes: text stays text, <mark> is the only element kept. */
  function excerptNodes(html) {
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    var out = document.createDocumentFragment();
    doc.body.firstChild.childNodes.forEach(function (node) {
      if (node.nodeType === 1 && node.nodeName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        out.appendChild(mark);
      } else {
        out.appendChild(document.createTextNode(node.textContent));
      }
    });
    return out;
  }

  function render(items, total) {
    list.textContent = "";
    active = -1;
    meta.textContent = total === 0 ? msg("none") : total === 1 ? msg("one") : msg("other").replace("#", String(total));
    items.forEach(function (data) {
      var li = document.createElement("li");
      li.className = "md-search-result__item";
      var a = document.createElement("a");
      a.className = "md-search-result__link";
      a.href = data.url;
      a.tabIndex = -1;
      var article = document.createElement("article");
      article.className = "md-search-result__article md-typeset";
      var h = document.createElement("h1");
      h.textContent = unspaced((data.meta && data.meta.title) || data.url);
      var p = document.createElement("p");
      p.appendChild(excerptNodes(unspaced(data.excerpt || "")));
      article.appendChild(h);
      article.appendChild(p);
      a.appendChild(article);
      li.appendChild(a);
      list.appendChild(li);
    });
  }

  var seq = 0;
  function search(query) {
    var mine = ++seq;
    query = query.trim();
    if (!query) { list.textContent = ""; meta.textContent = idleText; return; }
    if (!pagefind) meta.textContent = msg("loading");
    var forms = queries(query);
    function attempt(pf, i) {
      return (i === 0 ? pf.debouncedSearch(forms[0], {}, 120) : pf.search(forms[i])).then(function (res) {
        if (res && !res.results.length && i + 1 < forms.length && mine === seq) return attempt(pf, i + 1);
        return res;
      });
    }
    load().then(function (pf) {
      return attempt(pf, 0);
    }).then(function (res) {
      if (!res || mine !== seq) return null;
      return Promise.all(res.results.slice(0, MAX).map(function (r) { return r.data(); })).then(function (items) {
        if (mine === seq) render(items, res.results.length);
      });
    }).catch(function () { meta.textContent = msg("failed"); });
  }

  function move(step) {
    var links = list.querySelectorAll(".md-search-result__link");
    if (!links.length) return;
    active = Math.max(0, Math.min(links.length - 1, active + step));
    links.forEach(function (l, i) { l.classList.toggle("errdex-search--active", i === active); });
    links[active].focus();
  }

  input.addEventListener("focus", open);
  input.addEventListener("input", function () { search(input.value); });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var first = list.querySelector(".md-search-result__link");
    if (first) window.location.href = first.href;
  });
  form.addEventListener("reset", function () { setTimeout(function () { search(""); input.focus(); }, 0); });
  if (toggle) toggle.addEventListener("change", function () { if (toggle.checked) { input.focus(); } });

  document.addEventListener("keydown", function (e) {
    var typing = e.target && (e.target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName));
    var inSearch = root.contains(e.target);
    if ((e.key === "k" || e.key === "K") && (e.ctrlKey || e.metaKey)) {
      e.preventDefault(); input.focus(); input.select(); return;
    }
    if (!typing && !inSearch && (e.key === "/" || e.key === "s" || e.key === "f") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault(); input.focus(); input.select(); return;
    }
    if (toggle && toggle.checked && (inSearch || !typing)) {
      if (e.key === "Escape") { e.preventDefault(); close(); }
      else if (e.key === "ArrowDown") { e.preventDefault(); move(1); }
      else if (e.key === "ArrowUp") {
        e.preventDefault();
        if (active <= 0) { active = -1; input.focus(); } else { move(-1); }
      }
    }
  });

  /* Search boxes elsewhere on the page (home page) feed this one; `?q=` opens it with a query. */
  document.querySelectorAll("form[data-errdex-search-form]").forEach(function (f) {
    var box = f.querySelector("input");
    f.addEventListener("submit", function (e) {
      e.preventDefault();
      input.value = box.value;
      input.focus();
      search(input.value);
    });
  });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { input.value = q; input.focus(); search(q); }
})();

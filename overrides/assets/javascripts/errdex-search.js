/* errdex search: Pagefind behind Material's search box.
 *
 * The Pagefind bundle (pagefind/pagefind.js at the site root) is loaded on first use only, so pages that do
 * not search download nothing. pagefind.js picks the index for <html lang>, so each language searches only
 * its own pages. Result titles are set as text; excerpts are parsed inertly and only <mark> survives.
 *
 * Chinese (a page whose search box has data-segment): the index holds every Han character as a word (see
 * generator/site/searchtext.py, the one home of the rule and of the character classes in data-segment). A query is
 * spaced the same way and asked for as an exact phrase; when the phrase finds nothing, its words in any order.
 * Titles and excerpts come back spaced: a space between two CJK characters is removed before they are shown.
 *
 * A pasted error (a query that names an error: see `pasted`) is also run through the matcher, in a Web Worker
 * (errdex-match-worker.js, the paste page's) over the site's match.json, fetched on first use: the records it
 * recognises come first, each with its answer card's fix (match.json's `card`), then the full-text results, then
 * a link to the paste page (for a whole log) and one that proposes the error (the new-error issue form, prefilled)
 * when nothing was recognised. Full-text search asks for every word; a pasted log or long line (more than one line, or
 * more than 8 words) is asked for by the words of its message (`messageWords`: no values, no paths, at most 6), so
 * that it is a paste, not words that must all be there.
 * Among the full-text results, a page whose title holds the query comes first.
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
  var MAX = 10; // results whose data (a fragment each: a catalog page's can be 150 kB) is fetched and shown

  function msg(name) { return root.getAttribute("data-msg-" + name) || ""; }

  /* ---- Chinese: the same spacing as generator/site/searchtext.py, from the same character classes. */
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
    if (pasted(query) && (query.indexOf("\n") >= 0 || query.split(/\s+/).length > 8)) return [messageWords(query, 6), messageWords(query, 3)].filter(function (q, i, all) { return q && all.indexOf(q) === i; });
    if (!HAN || !query.match(HAN)) return [query];
    var words = query.split(/\s+/);
    var out = ['"' + spaced(query) + '"'];
    if (words.length > 1) {
      var longest = words.filter(function (w) { return w.match(HAN); }).sort(function (a, b) { return b.length - a.length; })[0];
      out.push(['"' + spaced(longest) + '"'].concat(words.filter(function (w) { return w !== longest; }).map(spaced)).join(" "));
    }
    return out;
  }
  // Pages whose title holds the whole query come first, in Pagefind's order otherwise (Pagefind ranks by the
  // words' weight over the whole page, so a long page that repeats the words can outrank the page named for them).
  function titleFirst(items, query) {
    var wanted = unspaced(query || "").toLowerCase();
    var holds = function (d) { return wanted && unspaced((d.meta && d.meta.title) || "").toLowerCase().indexOf(wanted) >= 0 ? 0 : 1; };
    return items.map(function (d, i) { return [holds(d), i, d]; }).sort(function (a, b) { return (a[0] - b[0]) || (a[1] - b[1]); })
      .map(function (x) { return x[2]; });
  }
  window.errdexSearchText = { spaced: spaced, unspaced: unspaced, queries: queries, titleFirst: titleFirst };

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

  /* ---- Pasted errors: the matcher first. */
  var lang = document.documentElement.lang;
  var pageRoot = new URL(root.getAttribute("data-page-root"), document.baseURI);
  var matchUrl = new URL(root.getAttribute("data-route-match"), new URL(root.getAttribute("data-site-root"), document.baseURI)).href;
  var workerUrl = new URL(root.getAttribute("data-worker"), document.baseURI).href;
  var MATCH_LIMIT_MS = 3000, SHOW_MATCHED = 3;
  var worker = null, workerReady = null, matchSeq = 0, waiting = null;
  function pasted(query) {
    return query.length >= 12 && /\n|error|exception|traceback|failed|panicked|assert|fatal|denied|not found|out of memory/i.test(query);
  }
  // Whether the matcher is asked too (it costs the match data, about 170 kB): a pasted error that it could
  // recognise: several lines, an exception or log prefix ("ValueError:", "ERROR", "error:"), or a line at least as
  // long as the shortest cut-off text it matches (the match rules' partial_min_chars). Words typed to look
  // something up ("CUDA out of memory") go to the page index alone.
  var PARTIAL_MIN = Number(root.getAttribute("data-partial-min")) || 30;
  function recognisable(query) {
    return pasted(query) && (query.indexOf("\n") >= 0 || query.length >= PARTIAL_MIN ||
      /(?:^|[\s:\]])[A-Za-z_][\w.]*(?:Error|Exception)\s*:|^\W*(?:error|fatal|panic)\b/i.test(query));
  }
  // The words a pasted error is searched by: of its last line that names an error (else its first line), the
  // message after an exception class or log prefix, its plain words (letters only, 3 or more), at most `most`.
  function messageWords(query, most) {
    var lines = query.split("\n").map(function (l) { return l.trim(); }).filter(Boolean);
    var named = lines.filter(function (l) { return /error|exception|failed|assert/i.test(l); });
    var line = named.length ? named[named.length - 1] : (lines[0] || "");
    line = line.replace(/^.*?\b[A-Za-z_.]*(?:Error|Exception)\s*:\s*/, "");
    var out = (line.match(/[A-Za-z][A-Za-z_]{2,}/g) || []).filter(function (w) { return !/_/.test(w) || w.length < 30; });
    return out.slice(0, most).join(" ");
  }
  function matcher() {
    if (workerReady) return workerReady;
    workerReady = fetch(matchUrl, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (text) {
      return new Promise(function (resolve, reject) {
        worker = new Worker(workerUrl);
        worker.onmessage = function (e) {
          if (e.data && e.data.type === "ready") resolve(worker);
          else if (e.data && e.data.type === "failed") reject(new Error(e.data.error));
        };
        worker.postMessage({ type: "load", text: text, skip: [] });
      });
    });
    workerReady.catch(function () { workerReady = null; });
    return workerReady;
  }
  function match(text) {
    return matcher().then(function (w) {
      return new Promise(function (resolve) {
        var mine = ++matchSeq;
        if (waiting) { clearTimeout(waiting.timer); waiting.resolve(null); } // a newer query supersedes it
        var timer = setTimeout(function () { waiting = null; w.terminate(); workerReady = null; resolve(null); }, MATCH_LIMIT_MS);
        waiting = { timer: timer, resolve: resolve };
        w.onmessage = function (e) {
          var d = e.data || {};
          if (d.type === "result" && d.seq === mine) { clearTimeout(timer); waiting = null; resolve(d); }
        };
        w.postMessage({ type: "match", text: text, seq: mine, budget: 1000 });
      });
    }).catch(function () { return null; });
  }
  function pageUrl(id) {
    return new URL(root.getAttribute("data-route-error-page").split("{id}").join(id), pageRoot).href;
  }
  function item(href, title, text, cls) {
    var li = document.createElement("li");
    li.className = "md-search-result__item" + (cls ? " " + cls : "");
    var a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = href;
    a.tabIndex = -1;
    var article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    var h = document.createElement("h1");
    h.textContent = title;
    article.appendChild(h);
    if (text instanceof Node) { var p = document.createElement("p"); p.appendChild(text); article.appendChild(p); }
    else if (text) { var q = document.createElement("p"); q.textContent = text; article.appendChild(q); }
    a.appendChild(article);
    li.appendChild(a);
    return li;
  }

  function open() {
    if (toggle && !toggle.checked) toggle.checked = true;
    lock(true);
    load().catch(function () { meta.textContent = msg("failed"); });
  }

  function close() {
    if (toggle) toggle.checked = false;
    lock(false);
    input.blur();
  }

  /* Excerpt HTML from the index -> nodes: text stays text, <mark> is the only element kept. */
  function excerptNodes(html) {
    html = html.replace(/¶/g, ""); // heading anchors' marks
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

  function render(items, total, matched, query) {
    list.textContent = "";
    active = -1;
    var recognised = matched && matched.results ? matched.results.slice(0, SHOW_MATCHED) : [];
    var count = total + recognised.filter(function (r) {
      return !items.some(function (d) { return new URL(d.url, document.baseURI).href === pageUrl(r.id); });
    }).length;
    meta.textContent = count === 0 ? msg("none") : count === 1 ? msg("one") : msg("other").replace("#", String(count));
    recognised.forEach(function (r) {
      var line = document.createDocumentFragment(), fix = r.card && r.card.fix;
      if (fix) { // the answer card's fix, first: its count of reports, then its text
        var said = !fix.reports ? msg("fix-unreported") : msg(fix.reports === 1 ? "fix-worked-one" : "fix-worked")
          .replace("{0}", String(fix.worked)).replace("{1}", String(fix.reports));
        var strong = document.createElement("strong");
        strong.textContent = lang === "zh" ? msg("fix") + "（" + said + "）：" : msg("fix") + " (" + said + "): ";
        line.appendChild(strong);
        var text = (lang === "zh" && fix.text_zh) || fix.text;
        line.appendChild(document.createTextNode(text.length > 220 ? text.slice(0, 219) + "…" : text));
      } else {
        line.appendChild(document.createTextNode(msg("matched") + ": "));
        var code = document.createElement("code");
        code.textContent = r.text.slice(r.span[0], r.span[1]);
        line.appendChild(code);
      }
      var title = (lang === "zh" && r.title_zh) || r.title;
      var li = item(pageUrl(r.id), r.partial ? title + " · " + msg("partial") : title, line, "errdex-search-matched");
      li.setAttribute("data-errdex-matched", r.id);
      list.appendChild(li);
    });
    var shown = recognised.map(function (r) { return pageUrl(r.id); });
    titleFirst(items, query).forEach(function (data) {
      if (shown.indexOf(new URL(data.url, document.baseURI).href) >= 0) return; // already first, as recognised
      // A catalog module page holds many messages, each a heading: show the one the query hit most.
      var subs = data.meta && data.meta.kind === "catalog" ? (data.sub_results || []) : [];
      var sub = subs.reduce(function (best, s) { return !best || (s.locations || []).length > (best.locations || []).length ? s : best; }, null);
      if (sub) {
        list.appendChild(item(sub.url, unspaced(sub.title || data.meta.title), excerptNodes(unspaced(sub.excerpt || "")), "errdex-search-catalog"));
        return;
      }
      list.appendChild(item(data.url, unspaced((data.meta && data.meta.title) || data.url), excerptNodes(unspaced(data.excerpt || ""))));
    });
    if (query && (pasted(query) || count === 0)) {
      var paste = new URL(root.getAttribute("data-route-paste"), pageRoot);
      paste.searchParams.set("paste", query.slice(0, 4000));
      list.appendChild(item(paste.href, msg("paste"), "", "errdex-search-paste"));
      var propose = root.getAttribute("data-propose");
      if (propose && !recognised.length) {
        var url = new URL(propose);
        url.searchParams.set("title", "New error: " + query.split("\n")[0].slice(0, 120));
        url.searchParams.set("message", query.slice(0, 4000));
        list.appendChild(item(url.href, msg("propose"), "", "errdex-search-propose"));
      }
    }
  }

  var seq = 0;
  function search(query) {
    var mine = ++seq;
    query = query.trim();
    if (!query) { list.textContent = ""; meta.textContent = idleText; return; }
    if (!pagefind) meta.textContent = msg("loading");
    var forms = queries(query);
    // Debounced here, not with Pagefind's debouncedSearch: that one loads the index piece of every prefix typed
    // on the way (C, CU, CUD ...), each about 30 kB.
    function attempt(pf, i) {
      var ready = i === 0 ? new Promise(function (resolve) { setTimeout(resolve, 120); }) : Promise.resolve();
      return ready.then(function () { return mine === seq ? pf.search(forms[i]) : null; }).then(function (res) {
        if (res && !res.results.length && i + 1 < forms.length && mine === seq) return attempt(pf, i + 1);
        return res && /^"/.test(forms[i]) ? ranked(pf, res, forms[i]) : res;
      });
    }
    // An exact phrase comes back unranked (every score alike): order its pages by the same words' weighted score
    // (a title weighs most: data-pagefind-weight), before any page's data is fetched.
    function ranked(pf, res, phrase) {
      return pf.search(phrase.replace(/"/g, "")).then(function (loose) {
        var score = new Map(((loose && loose.results) || []).map(function (r) { return [r.id, r.score]; }));
        var order = res.results.map(function (r, i) { return [score.get(r.id) || 0, i, r]; });
        order.sort(function (a, b) { return (b[0] - a[0]) || (a[1] - b[1]); });
        return { results: order.map(function (x) { return x[2]; }) };
      });
    }
    var matching = recognisable(query) ? match(query) : Promise.resolve(null);
    load().then(function (pf) {
      return attempt(pf, 0);
    }).then(function (res) {
      if (!res || mine !== seq) return null;
      return Promise.all([matching, Promise.all(res.results.slice(0, MAX).map(function (r) { return r.data(); }))]).then(function (both) {
        if (mine === seq) render(both[1], res.results.length, both[0], query);
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
  // Focus that leaves the search (Tab past its results) closes it: no overlay left open over the page.
  root.addEventListener("focusout", function (e) {
    if (toggle && toggle.checked && e.relatedTarget && !root.contains(e.relatedTarget)) close();
  });
  input.addEventListener("input", function () { search(input.value); });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var first = list.querySelector(".md-search-result__link");
    if (first) window.location.href = first.href;
  });
  form.addEventListener("reset", function () { setTimeout(function () { search(""); input.focus(); }, 0); });
  // On a phone the open search covers the screen: the page under it is held still (the theme's scroll lock), so its
  // opening circle does not widen the page and the page does not scroll under the results.
  var phone = window.matchMedia("(max-width: 59.984375em)");
  var heldAt = null;
  function lock(on) {
    if (on && phone.matches && heldAt === null) {
      heldAt = window.scrollY;
      document.body.style.top = -heldAt + "px";
      document.body.setAttribute("data-md-scrolllock", "");
    } else if (!on && heldAt !== null) {
      document.body.removeAttribute("data-md-scrolllock");
      document.body.style.top = "";
      window.scrollTo(0, heldAt);
      heldAt = null;
    }
  }
  if (toggle) toggle.addEventListener("change", function () { lock(toggle.checked); if (toggle.checked) { input.focus(); } });

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
  // A box (a textarea) keeps a pasted traceback's newlines: text of more than one line goes to the paste page,
  // whole; one line goes to this search. Enter submits, Shift+Enter starts a new line.
  document.querySelectorAll("form[data-errdex-search-form]").forEach(function (f) {
    var box = f.querySelector("textarea, input");
    f.addEventListener("submit", function (e) {
      e.preventDefault();
      var text = box.value.replace(/\r\n?/g, "\n").replace(/^\n+|\s+$/g, "");
      if (text.indexOf("\n") >= 0) {
        var paste = new URL(root.getAttribute("data-route-paste"), pageRoot);
        paste.searchParams.set("paste", text.slice(0, 100000));
        window.location.href = paste.href;
        return;
      }
      input.value = text;
      input.focus();
      search(input.value);
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); f.requestSubmit(); }
    });
  });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { input.value = q; input.focus(); search(q); }
})();

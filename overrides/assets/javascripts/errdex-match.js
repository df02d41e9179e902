/* errdex matcher, the page: paste a log or traceback, see the known errors it contains.
 *
 * Matching runs in a Web Worker (errdex-match-worker.js) from the site's own match.json, so nothing
 * leaves the browser and a huge paste cannot freeze the page. The page fetches match.json once and hands its
 * text to each worker it starts. Each request has a time budget inside the worker; a worker that does not
 * answer within HARD_LIMIT_MS is stuck in one pattern (a backtracking engine can take exponential time): the
 * worker says which pattern it is about to run, so the page terminates it, starts a new one without that
 * pattern, and matches the text again; the reader is told which pattern was skipped. Text that timed out
 * outside any pattern is not sent again. Results are built as DOM nodes with textContent: pasted text is never
 * parsed as HTML.
 *
 * Where things are comes from the markup (overrides/partials/errdex-match.html), which the build fills from
 * generator/routes.py: data-route-match (the pattern file, relative to data-site-root) and data-route-error-page
 * (an error page, `{id}` standing for the record id, relative to data-page-root, this language's root).
 *
 * State for tests and the benchmark, on the root element: data-state (loading | ready | working | done |
 * failed), data-input (length of the text the shown results are for), data-elapsed (worker milliseconds).
 */
(function () {
  "use strict";
  var root = document.querySelector("[data-errdex-matcher]");
  if (!root || !window.Worker) return;
  var area = root.querySelector("textarea");
  var status = root.querySelector("[data-errdex-matcher-status]");
  var list = root.querySelector("[data-errdex-matcher-results]");
  var notice = root.querySelector("[data-errdex-matcher-notice]");
  var siteRoot = new URL(root.getAttribute("data-site-root"), document.baseURI);
  var pageRoot = new URL(root.getAttribute("data-page-root"), document.baseURI);
  var workerUrl = new URL(root.getAttribute("data-worker"), document.baseURI).href;
  var indexUrl = new URL(root.getAttribute("data-route-match"), siteRoot).href;
  var errorPage = root.getAttribute("data-route-error-page");
  var lang = document.documentElement.lang;
  var BUDGET_MS = 1500;
  var HARD_LIMIT_MS = 4000;
  var SHOW = 20;

  function msg(name) { return root.getAttribute("data-msg-" + name) || ""; }
  function fmt(name, values) {
    return msg(name).replace(/\{(\d)\}/g, function (_, i) { return String(values[Number(i)]); });
  }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function setState(state) { root.setAttribute("data-state", state); }

  var worker = null, seq = 0, busy = false, pending = null, timer = null, sentLength = 0, sentText = null;
  var indexText = null; // match.json, fetched once per page
  var skipped = []; // ids of patterns that ran past HARD_LIMIT_MS; later workers leave them out
  var trying = null; // the pattern the worker said it is running
  var timedOut = null; // text that timed out outside any pattern: not sent again

  function start() {
    worker = new Worker(workerUrl);
    worker.onmessage = onMessage;
    worker.postMessage({ type: "load", text: indexText, skip: skipped });
  }

  function onMessage(event) {
    var data = event.data || {};
    if (data.type === "trying") {
      if (data.seq === seq) trying = data.id;
    } else if (data.type === "ready") {
      setState("ready");
      status.textContent = fmt("ready", [data.count]);
      if (area.value && area.value !== timedOut) request(area.value);
    } else if (data.type === "failed") {
      setState("failed");
      status.textContent = msg("failed");
    } else if (data.type === "result" && data.seq === seq) {
      clearTimeout(timer);
      busy = false;
      if (area.value.trim()) render(data);
      root.setAttribute("data-elapsed", data.elapsed.toFixed(1));
      root.setAttribute("data-input", String(sentLength));
      setState("done");
      if (pending !== null) { var text = pending; pending = null; request(text); }
    }
  }

  function request(text) {
    if (root.getAttribute("data-state") === "loading") return; // sent once the index is ready
    if (busy) { pending = text; return; }
    busy = true;
    seq += 1;
    sentLength = text.length;
    sentText = text;
    trying = null;
    timedOut = null;
    setState("working");
    worker.postMessage({ type: "match", text: text, seq: seq, budget: BUDGET_MS });
    timer = setTimeout(function () {
      // A pattern is taking too long: stop it the only way JavaScript allows, then start afresh without it.
      worker.terminate();
      busy = false;
      pending = null;
      list.textContent = "";
      if (trying !== null && skipped.indexOf(trying) < 0) {
        skipped.push(trying); // the new worker matches the same text again, without this pattern
        showSkipped();
      } else {
        timedOut = sentText;
        status.textContent = msg("timeout");
        root.setAttribute("data-input", String(sentLength));
      }
      setState("loading");
      start();
    }, HARD_LIMIT_MS);
  }

  function showSkipped() {
    if (notice) notice.textContent = skipped.length ? fmt("skipped", [skipped.join(", ")]) : "";
  }

  function pageUrl(id) { return new URL(errorPage.split("{id}").join(id), pageRoot).href; }

  // A reason is [rule, values...] (the weight among them); the page's data-msg-why-<rule> words it.
  function why(reason) {
    return fmt("why-" + String(reason[0]).replace(/_/g, "-"), reason.slice(1));
  }

  function render(data) {
    list.textContent = "";
    var results = data.results;
    results.slice(0, SHOW).forEach(function (r, i) {
      var item = el("li", "errdex-matcher__result");
      item.setAttribute("data-errdex-result", "");
      item.setAttribute("data-id", r.id);
      var head = el("p", "errdex-matcher__title");
      var link = el("a", null, (lang === "zh" && r.title_zh) || r.title);
      link.href = pageUrl(r.id);
      head.appendChild(link);
      head.appendChild(el("span", "errdex-matcher__score", " " + fmt("score", [r.score])));
      item.appendChild(head);
      item.appendChild(el("p", "errdex-matcher__where", fmt("where", [r.line, r.column]) +
        (r.occurrences > 1 ? " · " + fmt("times", [r.occurrences]) : "")));
      var line = el("pre", "errdex-matcher__line");
      var code = el("code");
      code.appendChild(document.createTextNode(r.text.slice(0, r.span[0])));
      code.appendChild(el("mark", null, r.text.slice(r.span[0], r.span[1])));
      code.appendChild(document.createTextNode(r.text.slice(r.span[1])));
      line.appendChild(code);
      item.appendChild(line);
      var values = r.values.filter(function (v) { return v !== null; });
      if (values.length) {
        var dl = el("p", "errdex-matcher__values", msg("values") + " ");
        values.forEach(function (v, k) {
          if (k) dl.appendChild(document.createTextNode(", "));
          dl.appendChild(el("code", null, v));
        });
        item.appendChild(dl);
        item.appendChild(el("p", "errdex-matcher__message", msg("message") + " " + r.message));
      }
      item.appendChild(el("p", "errdex-matcher__why", msg("why") + " " + r.reasons.map(why).filter(Boolean).join("; ")));
      list.appendChild(item);
    });
    var parts = [];
    var lines = data.lines === 1 ? msg("line") : fmt("lines", [data.lines]);
    if (!results.length) parts.push(fmt("none", [lines]));
    else parts.push(fmt(results.length === 1 ? "one" : "other", [results.length, lines]));
    if (results.length > SHOW) parts.push(fmt("shown", [SHOW]));
    if (data.cut) parts.push(msg("cut"));
    if (data.stopped) parts.push(msg("stopped"));
    showSkipped();
    status.textContent = parts.join(" ");
  }

  area.addEventListener("input", function () {
    if (!area.value.trim()) {
      list.textContent = "";
      status.textContent = msg("idle");
      root.setAttribute("data-input", "0");
      if (!busy && root.getAttribute("data-state") !== "loading") setState("done");
      return;
    }
    request(area.value);
  });
  status.textContent = msg("loading");
  var given = new URLSearchParams(window.location.search).get("paste"); // from the search box: "match it here"
  if (given) area.value = given;
  fetch(indexUrl, { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.text();
  }).then(function (text) {
    indexText = text;
    start();
  }, function () {
    setState("failed");
    status.textContent = msg("failed");
  });
})();

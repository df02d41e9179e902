/* errdex matcher, the page: paste a log or traceback, see the known errors it contains.
 *
 * Matching runs in a Web Worker (errdex-match-worker.js) from the site's own match.json, so nothing
 * leaves the browser and a huge paste cannot freeze the page. The page fetches match.json once and hands its
 * text to each worker it starts. Each request has a time budget inside the worker, and every pattern the worker
 * runs (a record's, a catalog entry's, the traceback frame pattern: all through one function there) is named to
 * the page before it runs. A worker that does not go on to another pattern or answer within HARD_LIMIT_MS is stuck
 * in the one it named (a backtracking engine can take exponential time): the page terminates it, starts a new
 * one that leaves out every pattern left out so far, and matches the text again. A pattern that is slow but ends,
 * the worker leaves out itself and names in its answer. The reader is told which patterns were left out and sees
 * the results of all the others; each restart leaves out one more pattern, so a paste costs at most one restart
 * per slow pattern. Text that timed out outside any pattern is not sent again. Results are built as DOM nodes
 * with textContent: pasted text is never parsed as HTML.
 *
 * Where things are comes from the markup (overrides/partials/errdex-match.html), which the build fills from
 * generator/routes.py: data-route-match (the pattern file, relative to data-site-root) and data-route-error-page
 * (an error page, `{id}` standing for the record id, relative to data-page-root, this language's root).
 *
 * The catalog (data-route-catalog-index, -shard): the worker also matches the paste against every message the
 * projects' code raises, fetching only the shards a paste needs; those results follow the records', each with
 * its raise site, the releases that raise it, the record that explains it or how to write one, and the
 * traceback's frames say which releases the paste fits. The version box (also `?version=vllm==0.11.0`) ranks
 * the entries the chosen release raises up and the others down, as `errdex match --catalog --version` does.
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
  function apiUrl(name) { // a data-route-<name> under the site root, made absolute with its {key}/{project} holes kept
    var route = root.getAttribute("data-route-" + name);
    return route ? new URL(route, siteRoot).href.split("%7Bkey%7D").join("{key}").split("%7Bproject%7D").join("{project}") : null;
  }
  var catalogIndexUrl = apiUrl("catalog-index");
  var catalogShardUrl = apiUrl("catalog-shard");
  var driftUrls = apiUrl("drift-index") ? { index: apiUrl("drift-index"), shard: apiUrl("drift-shard"), registry: apiUrl("drift-registry") } : null;
  var driftList = root.querySelector("[data-errdex-matcher-drift]");
  var entryPage = root.getAttribute("data-route-catalog-entry");
  var messagePage = root.getAttribute("data-route-catalog-message"); // the own page of an entry of messageTier
  var messageTier = root.getAttribute("data-catalog-message-tier");
  var entriesUrl = apiUrl("catalog-entries");
  var codeLabels = JSON.parse(root.getAttribute("data-code-labels") || "{}");
  var GUIDES = 3; // catalog cards with no record whose guide is fetched (its entries file: one request each)
  var issueUrl = root.getAttribute("data-issue");
  var catalogList = root.querySelector("[data-errdex-matcher-catalog]");
  var catalogHeading = root.querySelector("[data-errdex-matcher-catalog-heading]");
  var fitLine = root.querySelector("[data-errdex-matcher-fit]");
  var versionBox = root.querySelector("[data-errdex-version]");
  var projectSelect = root.querySelector("[data-errdex-version-project]");
  var releaseSelect = root.querySelector("[data-errdex-version-release]");
  var projects = null; // project -> {releases}, from the catalog index
  var catalogText = null;
  var lang = document.documentElement.lang;
  var BUDGET_MS = 1500;
  var HARD_LIMIT_MS = 4000; // in one pattern (from the "trying" that names it), or since the request or fetch
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
  var skipped = []; // ids of patterns (of every kind) that ran too long; later workers leave them out
  var trying = null; // the pattern the worker said it is running
  var timedOut = null; // text that timed out outside any pattern: not sent again

  function start() {
    worker = new Worker(workerUrl);
    worker.onmessage = onMessage;
    worker.postMessage({ type: "load", text: indexText, skip: skipped, catalog: catalogText, shard: catalogShardUrl, drift: driftUrls });
  }

  function onMessage(event) {
    var data = event.data || {};
    if (data.type === "trying") {
      if (data.seq === seq) { trying = data.id; arm(); } // the hard limit is per pattern: the one that overruns it is to blame
    } else if (data.type === "fetching") {
      if (data.seq === seq) clearTimeout(timer); // the network, not a pattern: no hard limit while it fetches
    } else if (data.type === "fetched") {
      if (data.seq === seq) arm();
    } else if (data.type === "ready") {
      if (data.projects && !projects) versionSetup(data.projects);
      setState("ready");
      status.textContent = data.entries ? fmt("ready-catalog", [data.count, data.entries]) : fmt("ready", [data.count]);
      if (area.value && area.value !== timedOut) request(area.value);
    } else if (data.type === "failed") {
      setState("failed");
      status.textContent = msg("failed");
    } else if (data.type === "result" && data.seq === seq) {
      clearTimeout(timer);
      busy = false;
      (Array.isArray(data.skipped) ? data.skipped : []).forEach(function (id) { // left out by the worker: slow, but it ended
        if (typeof id === "string" && skipped.indexOf(id) < 0) skipped.push(id);
      });
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
    worker.postMessage({ type: "match", text: text, seq: seq, budget: BUDGET_MS, version: chosenVersion(), show: SHOW });
    arm();
  }

  function arm() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      // A pattern is taking too long: stop it the only way JavaScript allows, then start afresh without it.
      worker.terminate();
      busy = false;
      pending = null;
      list.textContent = "";
      catalogList.textContent = "";
      fitLine.textContent = "";
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

  // A result as its answer card (match.json's `card` for a record, the worker's for a catalog entry): the title,
  // what and where it applies, the best fix with its count and its commands to copy, the page to read; then, folded,
  // where it is in the paste and why it ranks there. Every text goes in as textContent.
  function card(r, n) {
    var c = r.card || { title: r.title, project: "", releases: [] };
    var item = el("li", "errdex-card" + (r.type === "catalog" ? " errdex-card--catalog" : ""));
    item.setAttribute(r.type === "catalog" ? "data-errdex-catalog-result" : "data-errdex-result", "");
    item.setAttribute("data-id", r.id);
    item.value = n;
    var head = el("p", "errdex-card__title");
    var link = el("a", null, (lang === "zh" && c.title_zh) || c.title);
    link.href = r.type === "catalog" ? (c.guide ? pageUrl(c.guide) : entryUrl(r)) : pageUrl(r.id);
    head.appendChild(link);
    if (r.partial) {
      var badge = el("span", "errdex-card__badge", msg("partial"));
      badge.setAttribute("data-errdex-partial", "");
      head.appendChild(document.createTextNode(" "));
      head.appendChild(badge);
    }
    item.appendChild(head);
    var facts = [c.project].concat(c.exception ? [c.exception] : []);
    var applies = r.type === "catalog" ? releasesSaid(c) : checkedSaid(c.releases || []);
    if (applies) facts.push(applies);
    item.appendChild(el("p", "errdex-card__facts", facts.join(" · ")));
    item.appendChild(fixBlock(r, c));
    if (r.type === "catalog" && !c.guide && n - catalogList.start < GUIDES) codeGuide(r, item);
    var more = el("p", "errdex-card__more");
    var page = el("a", null, r.type === "catalog" && !c.guide ? msg("entry") : msg("read"));
    page.href = link.href;
    page.setAttribute(r.type !== "catalog" ? "data-errdex-page" : c.guide ? "data-errdex-guide" : "data-errdex-entry", "");
    more.appendChild(page);
    item.appendChild(more);
    item.appendChild(details(r));
    return item;
  }

  function fixBlock(r, c) {
    var box = el("div", "errdex-card__fix");
    box.setAttribute("data-errdex-fix", "");
    var fix = c.fix;
    if (fix) {
      var said = !fix.reports ? msg("fix-unreported") : fix.reports === 1 ? fmt("fix-worked-one", [fix.worked]) : fmt("fix-worked", [fix.worked, fix.reports]);
      var head = el("p", "errdex-card__fixhead");
      head.appendChild(el("strong", null, msg("fix")));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("span", "errdex-card__count", said));
      box.appendChild(head);
      box.appendChild(el("p", "errdex-card__fixtext", (lang === "zh" && fix.text_zh) || fix.text));
      (fix.commands || []).slice(0, 3).forEach(function (command) { box.appendChild(copyable(command)); });
      return box;
    }
    box.appendChild(el("p", "errdex-card__nofix", msg("no-fix")));
    if (r.type === "catalog") {
      box.appendChild(copyable("errdex new " + c.project + "/<slug> --from-catalog " + r.id, msg("no-guide")));
      if (issueUrl) box.appendChild(issueLink(r));
    }
    return box;
  }

  // What the code says around a catalog entry's message (generator/harvest/guides.py), read from its line of the
  // API's entries file and shown under its fix, labelled as read from the code (errdex-catalog-entry.js words it
  // as the entry view does). Nothing when the file or the guide is missing: the card stands without it.
  function codeGuide(r, item) {
    var m = /^([a-z0-9][a-z0-9._-]{0,63})\/([0-9a-f]{16})$/.exec(r.id), entry = window.errdexCatalogEntry;
    if (!m || !entriesUrl || !entry) return;
    entry.load(entriesUrl.replace("{project}", m[1]).replace("{key}", m[2].slice(0, 2)), r.id).then(function (doc) {
      if (!doc || !doc.guide || !item.isConnected) return;
      var box = el("div", "errdex-card__code");
      box.setAttribute("data-errdex-code", "");
      box.appendChild(el("p", "errdex-card__codehead", entry.guideHead(doc, codeLabels)));
      box.appendChild(entry.guideList(doc, codeLabels));
      item.insertBefore(box, item.querySelector(".errdex-card__more"));
    });
  }

  function copyable(command, label) {
    var line = el("p", "errdex-card__command");
    if (label) line.appendChild(document.createTextNode(label + " "));
    line.appendChild(el("code", null, command));
    var copy = el("button", "md-button errdex-card__copy", msg("copy"));
    copy.type = "button";
    copy.setAttribute("data-errdex-copy", command);
    copy.addEventListener("click", function () {
      if (navigator.clipboard) navigator.clipboard.writeText(command).then(function () { copy.textContent = msg("copied"); }, function () {});
    });
    line.appendChild(document.createTextNode(" "));
    line.appendChild(copy);
    return line;
  }

  function issueLink(r) {
    var c = r.catalog, issue = new URL(issueUrl), site = c.sites[0];
    issue.searchParams.set("title", "New error: " + r.text.slice(r.span[0], r.span[1]).slice(0, 120));
    issue.searchParams.set("message", r.text.slice(0, 4000));
    issue.searchParams.set("project", c.project + (site ? " " + site.to : ""));
    if (site) issue.searchParams.set("source", site.path + ":" + site.line + " (" + c.project + " " + site.to + ", catalog entry " + r.id + ")");
    var p = el("p");
    var a = el("a", null, msg("propose"));
    a.href = issue.href;
    a.setAttribute("data-errdex-issue", "");
    p.appendChild(a);
    return p;
  }

  // Where in the paste, the values, the message, where it is raised and in which releases, and why it ranks here.
  function details(r) {
    var box = el("details", "errdex-card__details");
    box.appendChild(el("summary", null, msg("details") + " " + fmt("where", [r.line, r.column]) + (r.occurrences > 1 ? " · " + fmt("times", [r.occurrences]) : "")));
    var line = el("pre", "errdex-matcher__line");
    var code = el("code");
    code.appendChild(document.createTextNode(r.text.slice(0, r.span[0])));
    code.appendChild(el("mark", null, r.text.slice(r.span[0], r.span[1])));
    code.appendChild(document.createTextNode(r.text.slice(r.span[1])));
    line.appendChild(code);
    box.appendChild(line);
    var values = r.values.filter(function (v) { return v !== null; });
    if (values.length) {
      var dl = el("p", "errdex-matcher__values", msg("values") + " ");
      values.forEach(function (v, k) {
        if (k) dl.appendChild(document.createTextNode(", "));
        dl.appendChild(el("code", null, v));
      });
      box.appendChild(dl);
    }
    box.appendChild(el("p", "errdex-matcher__message", msg("message") + " " + r.message));
    var wordings = r.type === "catalog" ? [r.catalog] : (r.catalog || []).slice(0, 3);
    wordings.forEach(function (c) { // where each wording is raised (the chosen release's first), and in which releases
      c.sites.slice(0, 1).forEach(function (s) { box.appendChild(el("p", "errdex-matcher__site", siteText(s, c))); });
      box.appendChild(el("p", "errdex-matcher__releases", rangesText(c)));
    });
    if (r.type === "catalog") {
      r.reasons.forEach(function (w) { // a release the log comes from that lacks the message: say since or until when
        if (w[0] !== "release_lacks") return;
        var c = r.catalog, when = c.next ? fmt("added-in", [c.next]) : c.gone ? fmt("removed-in", [c.gone]) : "";
        box.appendChild(el("p", "errdex-matcher__absent", fmt("not-in", [w[1], w[2], when])));
      });
      var entry = el("a", "errdex-matcher__entry", msg("entry"));
      entry.href = entryUrl(r);
      box.appendChild(el("p")).appendChild(entry);
    }
    box.appendChild(el("p", "errdex-matcher__why", msg("why") + " " + fmt("score", [r.score]) + "; " + r.reasons.map(why).filter(Boolean).join("; ")));
    return box;
  }

  // Where a catalog entry is shown: its own page when its tier has them (routes.CATALOG_MESSAGE_TIER), else the
  // entry view, by its id.
  function entryUrl(r) {
    var id = /^([a-z0-9][a-z0-9.-]{0,63})\/([0-9a-f]{16})$/.exec(r.id);
    if (id && messagePage && messageTier && r.catalog && r.catalog.tier === messageTier) {
      return new URL(messagePage.replace("{project}", id[1]).replace("{key}", id[2]), pageRoot).href;
    }
    var entry = new URL(entryPage, pageRoot);
    entry.searchParams.set("id", r.id);
    return entry.href;
  }

  // A record's checked versions by status ("raised in vllm 0.8.5, 0.9.2; fixed in vllm 0.10.0"), as
  // generator/cli/matchcatalog._checked words them.
  function checkedSaid(versions) {
    var groups = [], by = {};
    versions.forEach(function (v) {
      if (typeof v[0] !== "string") return;
      var status = ["active", "changed", "fixed"].indexOf(v[1]) >= 0 ? v[1] : "unknown";
      if (!by[status]) { by[status] = []; groups.push(status); }
      by[status].push(v[0]);
    });
    return groups.map(function (status) {
      var names = by[status], first = names[0].split(" ")[0];
      var shortened = names.map(function (n, i) { return i && n.split(" ")[0] === first && n.indexOf(" ") > 0 ? n.slice(n.indexOf(" ") + 1) : n; });
      return fmt("status-" + status, [shortened.join(", ")]);
    }).join("; ");
  }

  // Which harvested releases raise an entry's message (generator/cli/matchcatalog.releases_said).
  function releasesSaid(c) {
    var ranges = c.releases || [], h = c.harvested || [null, null];
    if (ranges.length === 1 && ranges[0][1] === h[1]) {
      return ranges[0][0] === h[0] ? fmt("raised-every", [h[0]]) : fmt("raised-since", [ranges[0][0], h[1]]);
    }
    return fmt("raised-in", [ranges.map(function (x) { return x[0] === x[1] ? x[0] : fmt("range", x); }).join(", ")]);
  }

  // Version drift: per line that says the installed release lacks a name, what the symbol index says of it
  // (generator/bundle/drift.py's answer: its text in this page's language, and the command that installs a fit).
  function renderDrift(found) {
    if (!driftList) return;
    driftList.textContent = "";
    driftList.hidden = !found.length;
    found.forEach(function (item) {
      var li = el("li", "errdex-drift");
      li.setAttribute("data-errdex-drift", item.shape);
      li.appendChild(el("p", "errdex-drift__line", fmt("drift-line", [item.line])));
      if (item.note) li.appendChild(el("p", "errdex-drift__note", item.note[lang] || item.note.en));
      item.candidates.forEach(function (c) {
        var answer = el("div", "errdex-drift__answer");
        answer.setAttribute("data-errdex-drift-verdict", c.verdict);
        var head = el("p", "errdex-drift__symbol");
        head.appendChild(el("code", null, c.symbol));
        head.appendChild(document.createTextNode(" · " + c.project));
        answer.appendChild(head);
        answer.appendChild(el("p", null, c.text[lang] || c.text.en)); // the CLI's words, which end with the command
        if (c.install) answer.appendChild(copyable(c.install, ""));
        li.appendChild(answer);
      });
      driftList.appendChild(li);
    });
  }

  function render(data) {
    renderDrift(Array.isArray(data.drift) ? data.drift : []);
    list.textContent = "";
    var results = data.results;
    var records = results.filter(function (r) { return r.type !== "catalog"; });
    var entries = results.filter(function (r) { return r.type === "catalog"; });
    records.slice(0, SHOW).forEach(function (r, i) { list.appendChild(card(r, i + 1)); });
    renderCatalog(entries.slice(0, SHOW), data.traceback || [], Math.min(records.length, SHOW));
    var parts = [];
    var lines = data.lines === 1 ? msg("line") : fmt("lines", [data.lines]);
    var counts = data.counts || { records: records.length, catalog: entries.length };
    var total = counts.records + counts.catalog;
    var drifts = Array.isArray(data.drift) ? data.drift.length : 0;
    if (drifts) parts.push(drifts === 1 ? msg("drift-one") : fmt("drift-other", [drifts]));
    if (!total) parts.push(fmt("none", [lines]));
    else parts.push(fmt(total === 1 ? "one" : "other", [total, lines]));
    if (counts.records > SHOW || counts.catalog > SHOW) parts.push(fmt("shown", [SHOW]));
    if (data.cut) parts.push(msg("cut"));
    if (data.stopped) parts.push(msg("stopped"));
    showSkipped();
    if (data.catalogFailed) notice.textContent = msg("catalog-failed");
    status.textContent = parts.join(" ");
  }

  // -- the catalog: its results, the traceback's fit, the version box ----------------------------------------

  function versionSetup(known) {
    projects = known;
    if (!versionBox) return;
    Object.keys(known).sort().forEach(function (slug) { projectSelect.appendChild(option(slug, slug)); });
    var asked = new URLSearchParams(window.location.search).get("version") || "";
    var parts = asked.split("==");
    if (parts.length === 2 && known[parts[0].trim()]) {
      projectSelect.value = parts[0].trim();
      fillReleases();
      var names = known[projectSelect.value].releases, v = parts[1].trim();
      var i = names.indexOf(v) >= 0 ? names.indexOf(v) : names.indexOf(/^[vV]/.test(v) ? v.slice(1) : "v" + v);
      if (i >= 0) releaseSelect.value = names[i];
      else notice.textContent = fmt("version-unknown", [asked]);
    } else {
      fillReleases();
      if (asked) notice.textContent = fmt("version-unknown", [asked]);
    }
    versionBox.hidden = false;
    projectSelect.addEventListener("change", function () { fillReleases(); versionChanged(); });
    releaseSelect.addEventListener("change", versionChanged);
  }

  function option(value, text) {
    var o = el("option", null, text);
    o.value = value;
    return o;
  }

  function fillReleases() {
    releaseSelect.textContent = "";
    releaseSelect.appendChild(option("", msg("version-any")));
    var slug = projectSelect.value;
    releaseSelect.disabled = !slug;
    if (slug) projects[slug].releases.slice().reverse().forEach(function (v) { releaseSelect.appendChild(option(v, v)); });
  }

  function chosenVersion() {
    var out = {};
    if (versionBox && projectSelect.value && releaseSelect.value) out[projectSelect.value] = releaseSelect.value;
    return out;
  }

  function versionChanged() {
    var url = new URL(window.location.href), v = chosenVersion(), slug = Object.keys(v)[0];
    if (slug) url.searchParams.set("version", slug + "==" + v[slug]); else url.searchParams.delete("version");
    history.replaceState(null, "", url.href);
    if (area.value.trim()) request(area.value);
  }

  // "vllm 0.25.0 to 0.33.0, 0.40.0; gone since 0.41.0" from an entry's ranges and its project's newest release
  // Where a message is raised: its file and line in the release chosen in the version box when that release has
  // it (c.at), else in the newest release of the site; a statement that moved has a line per stretch of releases.
  function siteText(s, c) {
    var when = s.lines ? (c.at || s.to) : (s.from === s.to ? s.from : fmt("range", [s.from, s.to]));
    var where = [s.path + ":" + s.line, when];
    return c.fits_frame ? fmt("raised-at-frame", where) : fmt("raised-at", where); // the traceback's own frame, when it has one there
  }

  function rangesText(c) {
    var ranges = c.releases.map(function (r) { return r[0] === r[1] ? r[0] : fmt("range", r); }).join(", ");
    var text = fmt("raised-by", [c.project, ranges]);
    var last = c.releases[c.releases.length - 1];
    if (last && last[1] !== c.newest) {
      var names = projects ? projects[c.project].releases : [];
      var after = names[names.indexOf(last[1]) + 1];
      if (after) text += "; " + fmt("gone-since", [after]);
    }
    return text;
  }

  // The catalog's results, numbered on from the records' (the heading is no result), and the traceback's fit.
  function renderCatalog(entries, fits, before) {
    catalogList.textContent = "";
    catalogList.hidden = !entries.length;
    catalogHeading.hidden = !entries.length;
    catalogList.start = before + 1;
    fitLine.textContent = fits.map(function (f) {
      var where = f.frames.slice(0, 3).map(function (x) { return x.site; }).join(", ");
      if (!f.releases.length) return fmt("fit-none", [f.project, where]);
      return fmt("fit", [f.project, f.releases.map(function (r) { return r[0] === r[1] ? r[0] : fmt("range", r); }).join(", "), where]);
    }).join(" ");
    entries.forEach(function (r, i) { catalogList.appendChild(card(r, before + i + 1)); });
  }

  area.addEventListener("input", function () {
    if (!area.value.trim()) {
      list.textContent = "";
      catalogList.textContent = "";
      catalogHeading.hidden = true;
      fitLine.textContent = "";
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
  function text(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    });
  }
  // The catalog is an addition: without it (no catalog in this build, or a failed fetch) the records still match.
  var catalogFetch = catalogIndexUrl ? text(catalogIndexUrl).then(null, function () { return null; }) : Promise.resolve(null);
  Promise.all([text(indexUrl), catalogFetch]).then(function (both) {
    indexText = both[0];
    catalogText = both[1];
    start();
  }, function () {
    setState("failed");
    status.textContent = msg("failed");
  });
})();

/* errdex matcher, the worker: finds known errors in pasted text, off the main thread.
 *
 * The page hands it the text of the pattern file, match.json (fetched once per page), and the ids of patterns
 * to leave out. Each pattern there carries `js_source` and `js_flags` (the record's pattern
 * rewritten for JavaScript with the same meaning; see generator/match/portable.py), `literals` (every match
 * contains one of them), and what ranking needs: `specificity`, `anchored`, `exception_name`. How they weigh is
 * match.json's `rules` (generator/match/rules.py): no weight is written here. The same steps as `errdex match`
 * (generator/match/engine.py), so both rank alike (tests/fixtures/match-conformance.json holds the cases both pass):
 *   - index every literal by its rarest 4-character piece (rarest among all the literals, so that common
 *     words like "Failed" do not make huge buckets); on each line, look up each 4-character window, then
 *     check that the whole literal is there; only then compile (once) and run the pattern;
 *   - one result per record: its first line, the matched span, the captured values, a score and its reasons.
 * A line longer than WINDOW is matched in overlapping windows; the text is cut at MAX_TEXT characters; the
 * work stops after the request's budget and says so. Every pattern the worker runs, whatever its kind (a record's,
 * a catalog entry's, the catalog index's traceback frame pattern, FRAME_ID), runs through `execute`, which leaves
 * out the ids the page asked to skip, runs nothing once the budget is spent, and, before it runs a pattern other
 * than the last one it ran, tells the page which (a "trying" message): a pattern that backtracks for ever cannot
 * be interrupted, so the page terminates the worker, and this is how it knows which pattern to leave out of the
 * next one. A pattern that is slow but ends (over 1/SLOW_SHARE of the budget in one request) is left out by
 * `execute` itself, its results dropped and its time given back to the others; the answer names it (`skipped`).
 *
 * A line cut off inside a message is a partial match (generator/match/rules.py): it holds at least
 * rules.partial_min_chars characters of the message's first long run of fixed text (`partialText`): the run whole,
 * or a prefix of it the line ends with (`partialAt`). It scores the characters held, ranks below every whole match,
 * and is left out where a whole match of the same pattern, or one overlapping it on its line, was found.
 *
 * With the catalog's match index (errdex-match-catalog.js), each line is also looked up in the catalog; the
 * probe pieces its words need, then the shards holding the candidates, are fetched (the page is told:
 * "fetching", then "fetched"), their patterns run the same way, and all is ranked as
 * generator/bundle/answers.match_items does: a catalog entry whose match overlaps a record's on the same line is
 * attached to the record; an entry that stands alone is an answer only when the evidence holds (`evidence`:
 * rules.generic, rules.evidence_min_fixed, rules.evidence_min_share); with a release chosen for a project, its
 * entries gain rules.release_has_bonus or lose rules.release_lacks_penalty.
 */
"use strict";
importScripts("errdex-match-catalog.js", "errdex-drift.js");

var KEY = 4;
var WINDOW = 65536;
var OVERLAP = 4096;
var MAX_TEXT = 8 * 1024 * 1024;
var MAX_VALUE = 500;
var EXCERPT = 160;
var SLOW_SHARE = 3; // a pattern that takes more than this share of a request's budget is left out

var patterns = [];
var cards = new Map(); // record id -> its answer card (match.json's `card`), for the catalog entries it explains
var rules = null; // match.json's ranking rules
var exactIndex = new Map(); // gram of a 4-char key -> [[pattern, literal, offset of the key in the literal]]
var foldedIndex = new Map(); // lower-cased keys, for (?i) patterns
var always = []; // patterns without a usable literal: tried on every line
var anyFolded = false;

var catalogLines = []; // lines (or windows) of the current request, for the catalog
var catalogPatterns = new Map(); // entry id -> its pattern, once its shard is here
var seq = null; // the request being matched
var announced = null; // the last pattern the page was told about
var skip = new Set(); // ids the page asked to leave out, of every kind: records, catalog entries, FRAME_ID
var deadline = Infinity; // when the current request's budget runs out (performance.now())
var over = false; // the budget ran out: no more patterns run for this request
var request = 0; // the current request, counted: a pattern's time (p.spent) is per request
var slowMs = Infinity; // the current request's budget / SLOW_SHARE

function load(text) {
  return Promise.resolve(text).then(function (body) {
    var doc = JSON.parse(body);
    rules = doc && doc.rules;
    var names = ["exception_bonus", "anchored_bonus", "repeat_bonus_cap", "retired_penalty", "lines_kept",
      "release_has_bonus", "release_lacks_penalty", "partial_min_chars", "evidence_min_fixed", "evidence_min_share"];
    if (!rules || !names.every(function (k) { return typeof rules[k] === "number"; }) || !Array.isArray(rules.generic) ||
        !Array.isArray(rules.requote)) {
      throw new Error("match.json has no ranking rules");
    }
    var list = (doc && Array.isArray(doc.patterns)) ? doc.patterns : [];
    var pending = [];
    list.forEach(function (e) {
      if (!e || typeof e.id !== "string" || typeof e.js_source !== "string" || typeof e.js_flags !== "string") return;
      if (!/^[iu]*$/.test(e.js_flags)) return;
      var folded = e.js_flags.indexOf("i") >= 0;
      var p = {
        index: patterns.length, id: e.id, title: e.title || e.id, title_zh: e.title_zh || e.title || e.id, message: e.message || "",
        source: e.js_source, flags: e.js_flags, folded: folded, re: null,
        spec: typeof e.specificity === "number" ? e.specificity : 0,
        exc: typeof e.exception_class === "string" ? e.exception_class : "",
        excName: typeof e.exception_name === "string" ? e.exception_name : "",
        superseded: typeof e.superseded_by === "string" ? e.superseded_by : "",
        anchored: e.anchored === true
      };
      p.partial = folded ? "" : partialText(p.message);
      if (e.card && typeof e.card === "object") cards.set(e.id, p.card = e.card);
      patterns.push(p);
      var lits = Array.isArray(e.literals) ? e.literals.filter(function (l) { return typeof l === "string" && l.length >= KEY; }) : [];
      if (!lits.length) { always.push(p); return; }
      if (folded) anyFolded = true;
      lits.forEach(function (lit) { pending.push([p, lit]); });
      if (p.partial) pending.push([p, p.partial.slice(0, rules.partial_min_chars)]); // a cut-off line holds no more of it
    });
    var counts = new Map();
    pending.forEach(function (item) {
      var lit = item[1], seen = new Set();
      for (var i = 0; i + KEY <= lit.length; i++) {
        var g = lit.substr(i, KEY);
        if (!seen.has(g)) { seen.add(g); counts.set(g, (counts.get(g) || 0) + 1); }
      }
    });
    pending.forEach(function (item) {
      var lit = item[1], best = 0, bestCount = Infinity;
      for (var i = 0; i + KEY <= lit.length; i++) {
        var c = counts.get(lit.substr(i, KEY));
        if (c < bestCount) { bestCount = c; best = i; }
      }
      var index = item[0].folded ? foldedIndex : exactIndex;
      var key = gram(lit, best);
      var bucket = index.get(key);
      if (!bucket) index.set(key, bucket = []);
      bucket.push([item[0], lit, best]);
    });
    return patterns.length;
  });
}

// A 4-character window as a number (Map lookups by number are much cheaper than by a fresh substring);
// collisions only cost a startsWith check.
function gram(text, i) {
  var h = Math.imul(text.charCodeAt(i), 0x01000193) ^ text.charCodeAt(i + 1);
  h = Math.imul(h, 0x01000193) ^ text.charCodeAt(i + 2);
  return Math.imul(h, 0x01000193) ^ text.charCodeAt(i + 3);
}

function compiled(p) { // called by execute only
  if (p.re === null) {
    try { p.re = new RegExp(p.source, p.flags); } catch (err) { p.re = false; }
  }
  return p.re;
}

function overBudget() {
  if (!over && performance.now() > deadline) over = true;
  return over;
}

// The one place a pattern runs, whatever its kind: `p` is {id, source, flags, re}. Null when it is left out (the
// page's skip list, or slow in this worker), when the budget is spent (`over` says so), when it does not compile,
// or when it does not match `text` from `from` on.
function execute(p, text, from) {
  if (skip.has(p.id)) return null;
  var t = performance.now();
  if (over || t > deadline) { over = true; return null; }
  var re = compiled(p);
  if (!re) return null;
  if (p !== announced) { announced = p; self.postMessage({ type: "trying", id: p.id, seq: seq }); }
  re.lastIndex = from;
  var m = re.exec(text);
  if (p.request !== request) { p.request = request; p.spent = 0; }
  p.spent += performance.now() - t;
  if (p.spent > slowMs) { leaveOut(p); return null; }
  return m;
}

// A pattern too slow to finish the request with the others: left out from now on (as if the page had asked),
// and the time it took is not counted against the others' budget.
function leaveOut(p) {
  skip.add(p.id);
  deadline += p.spent;
}

function candidates(text, lower) {
  var found = new Set(always);
  for (var i = 0; i + KEY <= text.length; i++) {
    var bucket = exactIndex.get(gram(text, i));
    if (bucket) {
      for (var k = 0; k < bucket.length; k++) {
        var e = bucket[k], at = i - e[2];
        if (at >= 0 && !found.has(e[0]) && text.startsWith(e[1], at)) found.add(e[0]);
      }
    }
    if (lower !== null) {
      var fb = foldedIndex.get(gram(lower, i));
      if (fb) {
        for (var j = 0; j < fb.length; j++) {
          var f = fb[j], at2 = i - f[2];
          if (at2 >= 0 && !found.has(f[0]) && lower.startsWith(f[1], at2)) found.add(f[0]);
        }
      }
    }
  }
  return found;
}

/* The string values of a JSON-object log line, decoded (keys sorted, depth first), as generator/match/engine.py's
 * _json_strings; null for any other line. Values are taken from the first of them the pattern matches. */
function jsonStrings(text) {
  var t = text.replace(/^\s+/, "");
  if (t.charAt(0) !== "{") return null;
  var doc;
  try { doc = JSON.parse(t); } catch (err) { return null; }
  var out = [];
  (function walk(v) {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.keys(v).sort().forEach(function (k) { walk(v[k]); });
  })(doc);
  return out;
}

function jsonGroups(text, p) {
  var strings = jsonStrings(text);
  if (!strings) return null;
  for (var i = 0; i < strings.length; i++) {
    var m = execute(p, strings[i], 0);
    if (m) return m.slice(1);
  }
  return null;
}

// A line that holds one of rules.requote's sequences is also read with them replaced (generator/match/rules.REQUOTE);
// what only that reading holds is a hit too, marked requoted.
function requoted(text) {
  var out = text;
  rules.requote.forEach(function (pair) { out = out.split(pair[0]).join(pair[1]); });
  return out;
}

function matchLine(text, lineNo, col, limit, hits) {
  matchOne(text, lineNo, col, limit, hits, false);
  if (limit !== null) return; // a window of an overlong line: as it is only
  var other = requoted(text);
  if (other !== text) matchOne(other, lineNo, col, limit, hits, true);
}

function matchOne(text, lineNo, col, limit, hits, variant) {
  var lower = anyFolded ? text.toLowerCase() : null;
  if (lower !== null && lower.length !== text.length) lower = null; // case mapping changed lengths: skip the folded index here
  var found = candidates(text, lower);
  if (lower === null && anyFolded) foldedIndex.forEach(function (b) { b.forEach(function (e) { found.add(e[0]); }); });
  var ordered = Array.from(found).sort(function (a, b) { return a.index - b.index; });
  var before = hits.length;
  runPatterns(ordered, text, lineNo, col, limit, hits);
  for (var i = before; i < hits.length; i++) hits[i].requoted = variant;
  if (catalog !== null) catalogLines.push({ text: text, line: lineNo, col: col, limit: limit, candidates: null, requoted: variant });
}

// The fixed text a cut-off line is recognised by: the message's first run between {} holes of at least
// rules.partial_min_chars characters, "" without one (generator/match/rules.partial_text).
function partialText(message) {
  var runs = String(message).split("{}");
  for (var i = 0; i < runs.length; i++) if (runs[i].length >= rules.partial_min_chars) return runs[i];
  return "";
}

// Where a line holds `run` as a cut-off line does: [start, end, characters held], or null
// (generator/match/rules.partial_at, step for step).
function partialAt(text, run) {
  var least = rules.partial_min_chars;
  if (!run || run.length < least) return null;
  var end = text.replace(/[ \t\n\r\f\v]+$/, "").length;
  var whole = text.indexOf(run);
  if (whole >= 0) return [whole, Math.max(end, whole + run.length), run.length];
  var head = run.slice(0, least), upto = text.slice(0, end);
  var at = upto.indexOf(head, Math.max(0, end - run.length + 1));
  while (at >= 0 && at <= end - least) {
    if (run.startsWith(upto.slice(at))) return [at, end, end - at];
    at = upto.indexOf(head, at + 1);
  }
  return null;
}

// Why a catalog entry found on a line is not an answer, as data, or null when the evidence holds
// (generator/match/rules.evidence, step for step).
var CLASS_CHARS = 200; // generator/match/rules.CLASS_CHARS
var CLASS_BEFORE = /([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Warning|Interrupt|Exit))\s*:\s*$/;
function words(text) { return text.toLowerCase().replace(/[^a-z]+/g, " ").trim(); }
var genericSeen = new Map(); // template -> generic(template), once per template
function generic(template) {
  if (genericSeen.has(template)) return genericSeen.get(template);
  var fixed = words(String(template).split("{}").join(" "));
  var out = !fixed || rules.generic.some(function (g) { return (" " + g + " ").indexOf(" " + fixed + " ") >= 0; });
  genericSeen.set(template, out);
  return out;
}
// Whether a catalog entry's hit is borne out by its line (generator/match/engine.Matcher._evident).
function evident(p, text, span, fixed) {
  return evidence(text, span, p.message, p.exc, fixed) === null;
}
function shortName(exc) { return exc ? exc.split(".").pop().split(":").pop() : ""; }
// How much of a template's fixed text `text` holds from `start` on, in order (generator/match/rules.template_held).
function templateHeld(text, start, template) {
  var runs = String(template).split("{}").filter(function (r) { return r; });
  var first = -1;
  for (var k = 0; k < runs.length && first < 0; k++) if (text.startsWith(runs[k], start)) first = k;
  if (first < 0) return 0;
  var held = 0, at = start;
  for (var i = first; i < runs.length; i++) {
    var found = text.indexOf(runs[i], at);
    if (found < 0) break;
    held += runs[i].length;
    at = found + runs[i].length;
  }
  return held;
}

function evidence(text, span, template, exception, fixed) {
  var named = CLASS_BEFORE.exec(text.slice(Math.max(0, span[0] - CLASS_CHARS), span[0]));
  var own = shortName(exception);
  if (named && own && shortName(named[1]) !== own) return ["other_exception", named[1]];
  if (generic(template)) return ["generic"];
  fixed = Math.max(fixed, templateHeld(text, span[0], template)); // a pattern on a stable part of a longer message
  var rest = text.slice(span[0]).replace(/[ \t\n\r\f\v]+$/, "").length || 1;
  var share = Math.floor(fixed * 100 / rest);
  if (fixed < rules.evidence_min_fixed && share < rules.evidence_min_share) return ["too_little", fixed, share];
  return null;
}

function runPatterns(ordered, text, lineNo, col, limit, hits) {
  for (var n = 0; n < ordered.length; n++) {
    var p = ordered[n];
    var m = execute(p, text, 0);
    if (!m || (limit !== null && m.index >= limit)) {
      if (!m && limit === null && p.partial && !skip.has(p.id)) partialHit(p, text, lineNo, col, hits);
      continue;
    }
    var s = m.index, e = m.index + m[0].length;
    if (p.entry && !evident(p, text, [s, e], p.spec)) continue;
    var groups = jsonGroups(text, p) || m.slice(1);
    var lo = text.length > 4 * EXCERPT ? Math.max(0, s - EXCERPT) : 0;
    var hi = text.length > 4 * EXCERPT ? Math.min(text.length, Math.max(e, s + 1) + EXCERPT) : text.length;
    hits.push({
      p: p, line: lineNo, column: col + s + 1, text: text.slice(lo, hi), span: [s - lo, Math.min(e, hi) - lo],
      values: groups.map(function (v) { return v === undefined ? null : v.slice(0, MAX_VALUE); }),
      exc: !!p.excName && text.indexOf(p.excName) >= 0
    });
  }
}

// A partial hit of `p` on a line it does not match whole, at the line's real end only (not in a window of an
// overlong line): generator/match/engine.Matcher._partial.
function partialHit(p, text, lineNo, col, hits) {
  var found = partialAt(text, p.partial);
  if (!found || (p.entry && !evident(p, text, found, found[2]))) return;
  var s = found[0], e = found[1];
  var lo = text.length > 4 * EXCERPT ? Math.max(0, s - EXCERPT) : 0;
  var hi = text.length > 4 * EXCERPT ? Math.min(text.length, e + EXCERPT) : text.length;
  hits.push({ p: p, line: lineNo, column: col + s + 1, text: text.slice(lo, hi), span: [s - lo, Math.min(e, hi) - lo],
              values: [], exc: !!p.excName && text.indexOf(p.excName) >= 0, partial: found[2] });
}

// The hits less the partial ones a whole match shadows (generator/match/engine._without_shadowed_partials).
function withoutShadowedPartials(hits) {
  if (!hits.some(function (h) { return h.partial; })) return hits;
  var whole = new Set(), spans = new Map();
  hits.forEach(function (h) {
    if (h.partial) return;
    whole.add(h.p);
    if (!spans.has(h.line)) spans.set(h.line, []);
    spans.get(h.line).push([h.column, h.column + Math.max(h.span[1] - h.span[0], 1)]);
  });
  return hits.filter(function (h) {
    if (!h.partial) return true;
    if (whole.has(h.p)) return false;
    var a = h.column, b = h.column + Math.max(h.span[1] - h.span[0], 1);
    return !(spans.get(h.line) || []).some(function (x) { return a < x[1] && x[0] < b; });
  });
}

function fill(message, values) {
  var parts = message.split("{}");
  var out = parts[0];
  for (var i = 1; i < parts.length; i++) {
    var v = values[i - 1];
    out += (v === null || v === undefined ? "{}" : v) + parts[i];
  }
  return out;
}

// The hits less those of a requoted reading where the line as it is has the same pattern, in line order
// (generator/match/hits.without_requoted_repeats).
function withoutRequotedRepeats(hits) {
  if (!hits.some(function (h) { return h.requoted; })) return hits;
  var plain = new Set();
  hits.forEach(function (h) { if (!h.requoted) plain.add(h.p.index + ":" + h.line); });
  var kept = hits.filter(function (h) { return !(h.requoted && plain.has(h.p.index + ":" + h.line)); });
  return kept.map(function (h, i) { return [h, i]; }).sort(function (a, b) { return (a[0].line - b[0].line) || (a[1] - b[1]); })
    .map(function (x) { return x[0]; });
}

function rank(hits) {
  var byPattern = new Map();
  withoutShadowedPartials(withoutRequotedRepeats(hits)).forEach(function (h) {
    var r = byPattern.get(h.p);
    if (!r) { byPattern.set(h.p, { p: h.p, first: h, occurrences: 1, lines: [h.line] }); return; }
    r.occurrences++;
    if (r.lines.length < rules.lines_kept) r.lines.push(h.line);
    if (h.exc && !r.first.exc) r.first = h;
  });
  var results = Array.from(byPattern.values());
  // The reasons are data, as in generator/match/engine.py: [rule, values...], the weight last.
  results.forEach(function (r) {
    var why = [];
    r.score = r.first.partial || r.p.spec;
    why.push(r.first.partial ? ["partial", r.first.partial] : ["specificity", r.p.spec]);
    if (r.first.requoted) why.push(["requoted"]);
    if (r.first.exc) { r.score += rules.exception_bonus; why.push(["exception", r.p.exc, rules.exception_bonus]); }
    if (r.p.anchored && !r.first.partial) { r.score += rules.anchored_bonus; why.push(["anchored", rules.anchored_bonus]); }
    if (r.occurrences > 1) {
      var b = Math.min(r.occurrences - 1, rules.repeat_bonus_cap);
      r.score += b;
      why.push(["repeated", r.occurrences, b]);
    }
    if (r.p.superseded) { r.score -= rules.retired_penalty; why.push(["retired", r.p.superseded, rules.retired_penalty]); }
    r.why = why;
  });
  results.sort(function (a, b) {
    return ((a.first.partial ? 1 : 0) - (b.first.partial ? 1 : 0)) || (b.score - a.score) || (a.first.line - b.first.line) ||
      (a.p.id < b.p.id ? -1 : a.p.id > b.p.id ? 1 : 0);
  });
  var byLine = new Map();
  return results.map(function (r, i) {
    if (byLine.has(r.first.line)) r.why.push(["same_line", byLine.get(r.first.line)]);
    else byLine.set(r.first.line, i + 1);
    var h = r.first;
    var out = {
      id: r.p.id, title: r.p.title, title_zh: r.p.title_zh, line: h.line, column: h.column, text: h.text, span: h.span, values: h.values,
      message: fill(r.p.message, h.values), occurrences: r.occurrences, lines: r.lines, score: r.score, reasons: r.why,
      superseded_by: r.p.superseded || null, type: r.p.entry ? "catalog" : "record", p: r.p, card: r.p.card || null
    };
    if (h.partial) out.partial = h.partial;
    if (h.requoted) out.requoted = true;
    return out;
  });
}

function run(text, budget, version) {
  var t0 = performance.now();
  deadline = t0 + budget;
  over = false;
  request += 1;
  slowMs = budget / SLOW_SHARE;
  var cut = text.length > MAX_TEXT;
  if (cut) text = text.slice(0, MAX_TEXT);
  var hits = [];
  catalogLines = [];
  var lineNo = 0, pos = 0;
  while (pos <= text.length) {
    var nl = text.indexOf("\n", pos);
    var end = nl < 0 ? text.length : nl;
    var line = text.slice(pos, end);
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    lineNo++;
    if (line.length <= WINDOW) {
      matchLine(line, lineNo, 0, null, hits);
    } else {
      for (var off = 0; off < line.length; off += WINDOW - OVERLAP) {
        var last = off + WINDOW >= line.length;
        matchLine(line.slice(off, off + WINDOW), lineNo, off, last ? null : WINDOW - OVERLAP, hits);
        if (last) break;
      }
    }
    if (over || ((lineNo & 63) === 0 && overBudget())) break;
    if (nl < 0 || nl + 1 === text.length) break; // a final newline ends the last line; it starts none
    pos = nl + 1;
  }
  var waited = 0;
  function done(fits) {
    var kept = hits.filter(function (h) { return !skip.has(h.p.id); }); // none from a pattern left out midway
    return { results: fitSites(combine(rank(kept), version || {})), traceback: fits, lines: lineNo, cut: cut, stopped: over,
             skipped: Array.from(skip).sort(), elapsed: performance.now() - t0 - waited, waited: waited };
  }
  if (catalog === null) return Promise.resolve(done([]));
  var found = frames(text);
  function fetching(keys) { // the network's time is not the patterns'
    if (!keys.length) return Promise.resolve(new Map());
    var t = performance.now();
    self.postMessage({ type: "fetching", seq: seq });
    return shards(keys).then(function (docs) {
      var dt = performance.now() - t;
      deadline += dt;
      waited += dt;
      self.postMessage({ type: "fetched", seq: seq });
      return docs;
    });
  }
  return fetching(pieceKeys(catalogLines.map(function (l) { return l.text; }))).then(function (pieces) {
    pieces.forEach(function (doc, key) { pieceLoad(key, doc); });
    catalogLines = catalogLines.filter(function (l) { l.candidates = catalogCandidates(l.text); return l.candidates.length; });
    var keys = catalogLines.reduce(function (all, l) { return all.concat(l.candidates.map(function (c) { return c[0]; })); }, []);
    return fetching(keys.concat(siteShardKeys(found)));
  }).then(function (docs) {
    // Pattern by pattern, each over its lines in order (a result keeps its first hit): the page is told of each
    // pattern once, not once a line.
    var lines = new Map();
    catalogLines.forEach(function (l) {
      l.candidates.forEach(function (c) {
        var p = catalogPattern(docs.get(c[0])[c[3]][c[2]]);
        if (!p) return;
        if (!lines.has(p)) lines.set(p, []);
        var list = lines.get(p);
        if (list[list.length - 1] !== l) list.push(l);
      });
    });
    Array.from(lines.keys()).sort(function (a, b) { return a.index - b.index; }).forEach(function (p) {
      lines.get(p).forEach(function (l) {
        var before = hits.length;
        runPatterns([p], l.text, l.line, l.col, l.limit, hits);
        for (var i = before; i < hits.length; i++) hits[i].requoted = l.requoted;
      });
    });
    return done(tracebackFit(found, docs));
  }, function () { // a shard could not be fetched: the records' answer, and say so
    var out = done([]);
    out.catalogFailed = true;
    return out;
  });
}

// A catalog entry (from its shard) as a pattern the worker runs; its project is the first part of its id.
function catalogPattern(e) {
  if (!e || typeof e.js !== "string") return null;
  var p = catalogPatterns.get(e.id);
  if (p) return p;
  p = {
    index: 1e9 + catalogPatterns.size, id: e.id, title: e.title || e.template, title_zh: e.title || e.template, message: e.template,
    source: e.js, flags: e.flags || "u", folded: false, re: null, spec: e.specificity, exc: e.exception || "",
    excName: typeof e.exception_name === "string" ? e.exception_name : (e.exception || ""), superseded: "", anchored: e.anchored === true,
    entry: e, project: e.id.slice(0, e.id.indexOf("/")), partial: (e.flags || "u").indexOf("i") >= 0 ? "" : partialText(e.template)
  };
  catalogPatterns.set(e.id, p);
  return p;
}

// A catalog entry's answer card (generator/bundle/answers._card): its title cut from the message, project,
// exception, releases (and the oldest and newest harvested), and the fix of the record that explains it.
function entryCard(p, summary) {
  var names = catalog.projects[p.project].releases;
  var card = { title: p.entry.title || p.entry.template, project: p.project, releases: summary.releases,
               harvested: names.length ? [names[0], names[names.length - 1]] : null };
  if (p.entry.exception) card.exception = p.entry.exception;
  var guide = (p.entry.records || []).filter(function (id) { return cards.has(id); })[0];
  if (guide) { card.guide = guide; if (cards.get(guide).fix) card.fix = cards.get(guide).fix; }
  return card;
}

function overlap(a, b) {
  return a.column < b.column + (b.span[1] - b.span[0]) && b.column < a.column + (a.span[1] - a.span[0]);
}

// Records and catalog entries in one ranking, as generator/bundle/answers.match_items: `version` maps a project to
// the release the log comes from.
function combine(results, version) {
  var items = [], byLine = new Map(), entries = [];
  results.forEach(function (r) {
    r.reasons = r.reasons.filter(function (w) { return w[0] !== "same_line"; });
    if (r.type === "record") {
      items.push(r);
      if (!byLine.has(r.line)) byLine.set(r.line, []);
      byLine.get(r.line).push(r);
    } else entries.push(r);
  });
  entries.forEach(function (item) {
    var p = item.p, asked = version[p.project], at = null, change = 0, why = [];
    if (typeof asked === "string") {
      at = releaseIndex(p.project, asked);
      if (at < 0) { at = null; why.push(["release_unknown", p.project, asked]); }
      else {
        var release = catalog.projects[p.project].releases[at];
        var has = p.entry.releases.some(function (r) { return r[0] <= at && at <= r[1]; });
        change = has ? rules.release_has_bonus : -rules.release_lacks_penalty;
        why.push([has ? "release_has" : "release_lacks", p.project, release, change]);
      }
    }
    var summary = entrySummary(p, at);
    var same = (byLine.get(item.line) || []).filter(function (rec) { return overlap(rec, item); });
    if (same.length) {
      same.forEach(function (rec) {
        if (!rec.catalog) { rec.catalog = []; rec.checks = []; }
        rec.catalog.push(summary);
        rec.checks.push({ change: change, why: why });
      });
      return;
    }
    item.catalog = summary;
    item.card = entryCard(p, summary);
    item.score += change;
    item.reasons = item.reasons.concat(why);
    items.push(item);
  });
  items.forEach(function (rec) {
    // One release check per record, over every wording its text matched (generator/bundle/answers.match_items):
    // the release has the message when it has any of them; the wordings it raises are listed first.
    if (!rec.checks) return;
    var best = rec.checks.reduce(function (b, c) { return c.change > b.change ? c : b; });
    if (best.why.length) { rec.score += best.change; rec.reasons = rec.reasons.concat(best.why); }
    var order = rec.checks.map(function (c, i) { return i; });
    order.sort(function (i, j) { return (rec.checks[j].change - rec.checks[i].change) || (i - j); });
    rec.catalog = order.map(function (i) { return rec.catalog[i]; });
    delete rec.checks;
  });
  items.sort(function (a, b) { // partial matches last (generator/bundle/answers.match_items)
    return ((a.partial ? 1 : 0) - (b.partial ? 1 : 0)) || (b.score - a.score) || (a.line - b.line) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
  var first = new Map();
  items.forEach(function (item, i) {
    delete item.p;
    item.rank = i + 1;
    if (first.has(item.line)) item.reasons.push(["same_line", first.get(item.line)]);
    else first.set(item.line, i + 1);
  });
  return items;
}

var ready = null;
self.onmessage = function (event) {
  var msg = event.data || {};
  if (msg.type === "load") {
    skip = new Set((Array.isArray(msg.skip) ? msg.skip : []).filter(function (id) { return typeof id === "string"; }));
    ready = load(String(msg.text)).then(function (count) {
      var entries = 0;
      if (typeof msg.catalog === "string") {
        try { entries = catalogLoad(msg.catalog, String(msg.shard)); } catch (err) { catalog = null; }
      }
      // drift answers come with the catalog (its symbol indexes): a build without one has no drift data to fetch
      if (catalog && msg.drift) driftSetup(String(msg.drift.index), String(msg.drift.shard), String(msg.drift.registry));
      self.postMessage({ type: "ready", count: count, entries: entries, projects: catalog ? catalog.projects : null });
    }, function (err) {
      self.postMessage({ type: "failed", error: String(err && err.message || err) });
    });
  } else if (msg.type === "match" && ready) {
    ready.then(function () {
      seq = msg.seq;
      announced = null;
      return run(String(msg.text || ""), typeof msg.budget === "number" ? msg.budget : 1000, msg.version).then(function (out) {
        out.type = "result";
        out.seq = msg.seq;
        if (typeof msg.show === "number") { // the page shows the first `show` of each kind: send those, and the counts
          var recs = out.results.filter(function (r) { return r.type !== "catalog"; });
          var cats = out.results.filter(function (r) { return r.type === "catalog"; });
          out.counts = { records: recs.length, catalog: cats.length };
          out.results = recs.slice(0, msg.show).concat(cats.slice(0, msg.show));
        }
        if (!drift) { self.postMessage(out); return null; }
        // version drift (errdex-drift.js), with a budget of its own: its data is fetched (the page's limit waits),
        // its few patterns run through `execute`
        var hooks = {
          fetching: function () { self.postMessage({ type: "fetching", seq: msg.seq }); },
          fetched: function () { self.postMessage({ type: "fetched", seq: msg.seq }); }
        };
        hooks.fetching();
        return driftMeta().then(function () {
          hooks.fetched();
          over = false;
          deadline = performance.now() + (typeof msg.budget === "number" ? msg.budget : 1000);
          return driftAnswers(String(msg.text || "").slice(0, MAX_TEXT), msg.version || {}, hooks);
        }).catch(function () { return []; }).then(function (found) {
          out.drift = found;
          self.postMessage(out);
        });
      });
    });
  }
};

/* errdex matcher, the worker: finds known errors in pasted text, off the main thread.
 *
 * The page hands it the text of the pattern file, match.json (fetched once per page), and the ids of patterns
 * to leave out. Each pattern there carries `js_source` and `js_flags` (the record's pattern
 * rewritten for JavaScript with the same meaning; see generator/portable.py), `literals` (every match
 * contains one of them), and what ranking needs: `specificity`, `anchored`, `exception_name`. How they weigh is
 * match.json's `rules` (generator/matchrules.py): no weight is written here. The same steps as `errdex match`
 * (generator/match.py), so both rank alike (tests/fixtures/match-conformance.json holds the cases both pass):
 *   - index every literal by its rarest 4-character piece (rarest among all the literals, so that common
 *     words like "Failed" do not make huge buckets); on each line, look up each 4-character window, then
 *     check that the whole literal is there; only then compile (once) and run the pattern;
 *   - one result per record: its first line, the matched span, the captured values, a score and its reasons.
 * A line longer than WINDOW is matched in overlapping windows; the text is cut at MAX_TEXT characters; the
 * work stops after BUDGET_MS and says how far it got. Before it runs a pattern other than the last one it ran,
 * it tells the page which (a "trying" message): a pattern that backtracks for ever cannot be interrupted, so
 * the page terminates the worker, and this is how it knows which pattern to leave out of the next one.
 */
"use strict";

var KEY = 4;
var WINDOW = 65536;
var OVERLAP = 4096;
var MAX_TEXT = 8 * 1024 * 1024;
var MAX_VALUE = 500;
var EXCERPT = 160;

var patterns = [];
var rules = null; // match.json's ranking rules
var exactIndex = new Map(); // gram of a 4-char key -> [[pattern, literal, offset of the key in the literal]]
var foldedIndex = new Map(); // lower-cased keys, for (?i) patterns
var always = []; // patterns without a usable literal: tried on every line
var anyFolded = false;

var seq = null; // the request being matched
var announced = null; // the last pattern the page was told about
var skipped = []; // ids left out, as the page asked

function load(text, skip) {
  return Promise.resolve(text).then(function (body) {
    var doc = JSON.parse(body);
    rules = doc && doc.rules;
    var names = ["exception_bonus", "anchored_bonus", "repeat_bonus_cap", "retired_penalty", "lines_kept"];
    if (!rules || !names.every(function (k) { return typeof rules[k] === "number"; })) throw new Error("match.json has no ranking rules");
    var list = (doc && Array.isArray(doc.patterns)) ? doc.patterns : [];
    var pending = [];
    list.forEach(function (e) {
      if (!e || typeof e.id !== "string" || typeof e.js_source !== "string" || typeof e.js_flags !== "string") return;
      if (skip.indexOf(e.id) >= 0) { skipped.push(e.id); return; }
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
      patterns.push(p);
      var lits = Array.isArray(e.literals) ? e.literals.filter(function (l) { return typeof l === "string" && l.length >= KEY; }) : [];
      if (!lits.length) { always.push(p); return; }
      if (folded) anyFolded = true;
      lits.forEach(function (lit) { pending.push([p, lit]); });
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

function compiled(p) {
  if (p.re === null) {
    try { p.re = new RegExp(p.source, p.flags); } catch (err) { p.re = false; }
  }
  return p.re;
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

/* The string values of a JSON-object log line, decoded (keys sorted, depth first), as generator/match.py's
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

function jsonGroups(text, re) {
  var strings = jsonStrings(text);
  if (!strings) return null;
  for (var i = 0; i < strings.length; i++) {
    re.lastIndex = 0;
    var m = re.exec(strings[i]);
    if (m) return m.slice(1);
  }
  return null;
}

function matchLine(text, lineNo, col, limit, hits) {
  var lower = anyFolded ? text.toLowerCase() : null;
  if (lower !== null && lower.length !== text.length) lower = null; // case mapping changed lengths: skip the folded index here
  var found = candidates(text, lower);
  if (lower === null && anyFolded) foldedIndex.forEach(function (b) { b.forEach(function (e) { found.add(e[0]); }); });
  var ordered = Array.from(found).sort(function (a, b) { return a.index - b.index; });
  for (var n = 0; n < ordered.length; n++) {
    var p = ordered[n];
    var re = compiled(p);
    if (!re) continue;
    if (p !== announced) { announced = p; self.postMessage({ type: "trying", id: p.id, seq: seq }); }
    re.lastIndex = 0;
    var m = re.exec(text);
    if (!m || (limit !== null && m.index >= limit)) continue;
    var s = m.index, e = m.index + m[0].length;
    var groups = jsonGroups(text, re) || m.slice(1);
    var lo = text.length > 4 * EXCERPT ? Math.max(0, s - EXCERPT) : 0;
    var hi = text.length > 4 * EXCERPT ? Math.min(text.length, Math.max(e, s + 1) + EXCERPT) : text.length;
    hits.push({
      p: p, line: lineNo, column: col + s + 1, text: text.slice(lo, hi), span: [s - lo, Math.min(e, hi) - lo],
      values: groups.map(function (v) { return v === undefined ? null : v.slice(0, MAX_VALUE); }),
      exc: !!p.excName && text.indexOf(p.excName) >= 0
    });
  }
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

function rank(hits) {
  var byPattern = new Map();
  hits.forEach(function (h) {
    var r = byPattern.get(h.p);
    if (!r) { byPattern.set(h.p, { p: h.p, first: h, occurrences: 1, lines: [h.line] }); return; }
    r.occurrences++;
    if (r.lines.length < rules.lines_kept) r.lines.push(h.line);
    if (h.exc && !r.first.exc) r.first = h;
  });
  var results = Array.from(byPattern.values());
  // The reasons are data, as in generator/match.py: [rule, values...], the weight last.
  results.forEach(function (r) {
    var why = [];
    r.score = r.p.spec;
    why.push(["specificity", r.p.spec]);
    if (r.first.exc) { r.score += rules.exception_bonus; why.push(["exception", r.p.exc, rules.exception_bonus]); }
    if (r.p.anchored) { r.score += rules.anchored_bonus; why.push(["anchored", rules.anchored_bonus]); }
    if (r.occurrences > 1) {
      var b = Math.min(r.occurrences - 1, rules.repeat_bonus_cap);
      r.score += b;
      why.push(["repeated", r.occurrences, b]);
    }
    if (r.p.superseded) { r.score -= rules.retired_penalty; why.push(["retired", r.p.superseded, rules.retired_penalty]); }
    r.why = why;
  });
  results.sort(function (a, b) {
    return (b.score - a.score) || (a.first.line - b.first.line) || (a.p.id < b.p.id ? -1 : a.p.id > b.p.id ? 1 : 0);
  });
  var byLine = new Map();
  return results.map(function (r, i) {
    if (byLine.has(r.first.line)) r.why.push(["same_line", byLine.get(r.first.line)]);
    else byLine.set(r.first.line, i + 1);
    var h = r.first;
    return {
      id: r.p.id, title: r.p.title, title_zh: r.p.title_zh, line: h.line, column: h.column, text: h.text, span: h.span, values: h.values,
      message: fill(r.p.message, h.values), occurrences: r.occurrences, lines: r.lines, score: r.score, reasons: r.why,
      superseded_by: r.p.superseded || null
    };
  });
}

function run(text, budget) {
  var t0 = performance.now();
  var cut = text.length > MAX_TEXT;
  if (cut) text = text.slice(0, MAX_TEXT);
  var hits = [];
  var lineNo = 0, pos = 0, stopped = false;
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
    if ((lineNo & 63) === 0 && performance.now() - t0 > budget) { stopped = pos; break; }
    if (nl < 0 || nl + 1 === text.length) break; // a final newline ends the last line; it starts none
    pos = nl + 1;
  }
  return { results: rank(hits), lines: lineNo, cut: cut, stopped: stopped !== false, skipped: skipped, elapsed: performance.now() - t0 };
}

var ready = null;
self.onmessage = function (event) {
  var msg = event.data || {};
  if (msg.type === "load") {
    ready = load(String(msg.text), Array.isArray(msg.skip) ? msg.skip : []).then(function (count) {
      self.postMessage({ type: "ready", count: count });
    }, function (err) {
      self.postMessage({ type: "failed", error: String(err && err.message || err) });
    });
  } else if (msg.type === "match" && ready) {
    ready.then(function () {
      seq = msg.seq;
      announced = null;
      var out = run(String(msg.text || ""), typeof msg.budget === "number" ? msg.budget : 1000);
      out.type = "result";
      out.seq = msg.seq;
      self.postMessage(out);
    });
  }
};

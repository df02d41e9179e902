/* errdex matcher, the catalog part of the worker (loaded by errdex-match-worker.js with importScripts).
 *
 * The catalog's match index (generator.api.catalogmatch) files each entry under key tokens with a probe (a
 * part of its literal, or of the head of the text a cut-off line is recognised by); a paste's lines are split
 * into tokens on [^A-Za-z0-9_]+, and an entry is a candidate on a line only when the line holds one of its
 * probes. The page reads a small index first (the releases, the frame pattern and the probes checked on every
 * line, found by their rarest 4-character piece); the probes of the other tokens are in pieces, fetched for the
 * tokens a paste holds that the index's token filter holds (a token's shard is crc32(token) % message_shards, its
 * piece that % pieces). Only then are
 * the shards holding the candidates fetched (their patterns, templates, releases and sites), and the patterns run,
 * by the worker's own loop, ranked with the records (match.json's rules). Traceback frames are read with the
 * index's frame pattern and looked up in the site shards, as generator/catalog/query.traceback_fit does. Every
 * pattern here, the frame pattern included (its id is FRAME_ID), runs through the worker's `execute`, as the
 * records' do: the page can leave any of them out.
 */
"use strict";

var catalog = null; // {projects, tokens: Map token -> [[shard, probe, position, token]], always, grams, shardUrl, ...}
var shardCache = new Map(); // shard or piece key -> Promise of its document
var TOKEN = /[A-Za-z0-9_]+/g;
var FRAME_ID = "catalog:frame"; // the frame pattern's id for the page's skip list: no record or entry id has a ":"

// A JSON document of the API, as the build stores it: a route ending in `.gz` (generator/routes.py API) is a gzip
// stream, inflated here; a server that already inflated it (Content-Encoding: gzip) hands over the JSON itself,
// which is read as it is (gzip's first two bytes, 1f 8b, never begin a JSON text). Rejects on HTTP errors.
function fetchData(url) {
  return fetch(url, { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.arrayBuffer();
  }).then(function (buf) {
    var bytes = new Uint8Array(buf);
    if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return JSON.parse(new TextDecoder().decode(bytes));
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).json();
  });
}

function tokenFilter(f) {
  if (!f || typeof f.data !== "string" || !(f.bits > 0) || !(f.hashes > 0)) return null;
  var raw = atob(f.data), data = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
  return data.length * 8 === f.bits ? { bits: f.bits, hashes: f.hashes, data: data } : null;
}

function catalogLoad(text, shardUrl) {
  var doc = JSON.parse(text);
  if (!doc || !Array.isArray(doc.always) || !doc.projects || typeof doc.pieces !== "number") throw new Error("not a catalog match index");
  var always = [];
  doc.always.forEach(function (a) {
    a[2].forEach(function (probe, i) { always.push(["m" + a[0], probe, i, a[1]]); });
  });
  // Probes checked on every line: indexed by their rarest 4-character piece, as the worker indexes the records'
  // literals (`gram`), so that a line costs one lookup per character, not one search per probe.
  var counts = new Map(), grams = new Map();
  always.forEach(function (a) {
    var seen = new Set();
    for (var i = 0; i + KEY <= a[1].length; i++) {
      var g = gram(a[1], i);
      if (!seen.has(g)) { seen.add(g); counts.set(g, (counts.get(g) || 0) + 1); }
    }
  });
  var short = [];
  always.forEach(function (a) {
    if (a[1].length < KEY) { short.push(a); return; }
    var best = 0, bestCount = Infinity;
    for (var i = 0; i + KEY <= a[1].length; i++) {
      var c = counts.get(gram(a[1], i));
      if (c < bestCount) { bestCount = c; best = i; }
    }
    var g = gram(a[1], best);
    if (!grams.has(g)) grams.set(g, []);
    grams.get(g).push([a, best]);
  });
  catalog = {
    projects: doc.projects, tokens: new Map(), always: short, grams: grams, shardUrl: shardUrl,
    frame: { id: FRAME_ID, source: String(doc.frame), flags: "g", re: null },
    maxFrames: doc.max_frames, siteShards: doc.site_shards, entries: doc.entries, siteShardsWritten: new Set(doc.site_shards_written),
    messageShards: doc.message_shards, pieces: doc.pieces, piecesWritten: new Set(doc.pieces_written),
    piecesHere: new Set(), tokenPiece: new Map(), filter: tokenFilter(doc.token_filter)
  };
  return doc.entries;
}

// The probe pieces the tokens of `texts` need that are not here yet (keys "p<k>").
function pieceKeys(texts) {
  var out = new Set();
  texts.forEach(function (text) {
    TOKEN.lastIndex = 0;
    var m;
    while ((m = TOKEN.exec(text)) !== null) {
      var k = catalog.tokenPiece.get(m[0]);
      if (k === undefined) { // -1: the token filter does not hold it, no piece files it
        k = filterHolds(m[0]) ? crc32(m[0]) % catalog.messageShards % catalog.pieces : -1;
        catalog.tokenPiece.set(m[0], k);
      }
      if (k >= 0 && !catalog.piecesHere.has(k) && catalog.piecesWritten.has(k)) out.add("p" + k);
    }
  });
  return Array.from(out).sort();
}

// Whether the index's token filter (generator.api.catalogmatch.token_filter, a Bloom filter of the tokens the
// pieces file) may hold a token: bits (crc32(token) + j * crc32("#" + token)) % bits, j < hashes, all set.
function filterHolds(token) {
  var f = catalog.filter;
  if (!f) return true; // an index without one: every word's piece is fetched
  var h1 = crc32(token), h2 = crc32("#" + token);
  for (var j = 0; j < f.hashes; j++) {
    var b = (h1 + j * h2) % f.bits;
    if (!((f.data[b >> 3] >> (b & 7)) & 1)) return false;
  }
  return true;
}

// A fetched piece's probes, filed by token: {shard: {token: [probe, ...]}}.
function pieceLoad(key, doc) {
  catalog.piecesHere.add(Number(key.slice(1)));
  Object.keys(doc).forEach(function (n) {
    Object.keys(doc[n]).forEach(function (token) {
      catalog.tokens.set(token, doc[n][token].map(function (probe, i) { return ["m" + n, probe, i, token]; }));
    });
  });
}

// The candidates of one line (or window of a long line): the index's entries whose probe the text holds.
function catalogCandidates(text) {
  var found = [];
  var seen = new Set();
  TOKEN.lastIndex = 0;
  var m;
  while ((m = TOKEN.exec(text)) !== null) {
    if (seen.has(m[0])) continue;
    seen.add(m[0]);
    var bucket = catalog.tokens.get(m[0]);
    if (!bucket) continue;
    for (var k = 0; k < bucket.length; k++) if (text.indexOf(bucket[k][1]) >= 0) found.push(bucket[k]);
  }
  for (var j = 0; j < catalog.always.length; j++) if (text.indexOf(catalog.always[j][1]) >= 0) found.push(catalog.always[j]);
  if (catalog.grams.size) {
    var taken = new Set();
    for (var i = 0; i + KEY <= text.length; i++) {
      var bucket2 = catalog.grams.get(gram(text, i));
      if (!bucket2) continue;
      for (var n = 0; n < bucket2.length; n++) {
        var a = bucket2[n][0], at = i - bucket2[n][1];
        if (at >= 0 && !taken.has(a) && text.startsWith(a[1], at)) { taken.add(a); found.push(a); }
      }
    }
  }
  return found;
}

function shard(key) {
  var p = shardCache.get(key);
  if (!p) {
    p = fetchData(catalog.shardUrl.split("{key}").join(key));
    p.catch(function () { shardCache.delete(key); });
    shardCache.set(key, p);
  }
  return p;
}

function shards(keys) {
  var list = Array.from(new Set(keys)).sort();
  return Promise.all(list.map(shard)).then(function (docs) {
    var out = new Map();
    list.forEach(function (k, i) { out.set(k, docs[i]); });
    return out;
  });
}

// CRC-32 of the UTF-8 bytes, as Python's zlib.crc32: the site shard of a "<file name>:<line>" key.
var CRC = (function () {
  var t = [];
  for (var n = 0; n < 256; n++) {
    var c = n;
    for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t.push(c >>> 0);
  }
  return t;
})();
function crc32(text) {
  var bytes = new TextEncoder().encode(text), c = 0xffffffff;
  for (var i = 0; i < bytes.length; i++) c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function basename(path) { return path.slice(path.lastIndexOf("/") + 1); }

// Blanks collapsed, ends trimmed (generator/catalog/query: _BLANKS, statement_head).
function squeeze(s) { return s.replace(/[ \t]+/g, " ").replace(/^[ \t\r]+|[ \t\r]+$/g, ""); }

// The frames of a traceback: [path, line, source line or null] for the first max_frames `File "...py", line N`;
// the source line is the next line, unless that is another frame or blank (generator/catalog/query._frames).
function frames(text) {
  var out = [], at = 0, m;
  while (out.length < catalog.maxFrames && (m = execute(catalog.frame, text, at)) !== null) {
    at = m.index + Math.max(m[0].length, 1); // past the match, as finditer goes on (an empty match too)
    if (typeof m[1] !== "string" || typeof m[2] !== "string") continue; // a frame pattern without both groups
    var start = text.indexOf("\n", m.index + m[0].length), source = null;
    if (start >= 0) {
      var end = text.indexOf("\n", start + 1);
      var line = text.slice(start + 1, end >= 0 ? end : text.length);
      if (line.indexOf('File "') < 0 && squeeze(line)) source = squeeze(line);
    }
    out.push([m[1].split("\\").join("/"), Number(m[2]), source]);
  }
  return out;
}

function siteShardKeys(found) {
  var out = [];
  found.forEach(function (f) {
    var n = crc32(basename(f[0]) + ":" + f[1]) % catalog.siteShards;
    if (catalog.siteShardsWritten.has(n)) out.push("t" + n);
  });
  return out;
}

function spans(indices) {
  var out = [];
  Array.from(indices).sort(function (a, b) { return a - b; }).forEach(function (i) {
    var last = out[out.length - 1];
    if (last && last[1] === i - 1) last[1] = i; else out.push([i, i]);
  });
  return out;
}

// The releases a traceback fits, per project (generator/catalog/query.traceback_fit, step for step); the site
// of each entry at a frame is kept in frameSites for the cards (fitSites).
var frameSites = new Map();
function tracebackFit(found, docs) {
  var fits = new Map();
  frameSites = new Map();
  found.forEach(function (f) {
    var path = f[0], line = f[1], source = f[2], key = basename(path) + ":" + line;
    var doc = docs.get("t" + (crc32(key) % catalog.siteShards)) || {};
    var byProject = new Map(), ids = new Map();
    var here = (doc[key] || []).filter(function (s) { // [entry id, path, from, to, statement head]
      return (path === s[1] || path.endsWith("/" + s[1])) && (source === null || source.endsWith(s[4]));
    });
    here.forEach(function (s) {
      var slug = s[0].split("/")[0];
      if (!byProject.has(slug)) { byProject.set(slug, new Set()); ids.set(slug, []); }
      for (var i = s[2]; i <= s[3]; i++) byProject.get(slug).add(i);
      ids.get(slug).push(s[0]);
    });
    byProject.forEach(function (releases, slug) {
      var fit = fits.get(slug);
      if (!fit) fits.set(slug, fit = { project: slug, releases: null, frames: [] });
      fit.releases = fit.releases === null ? releases : new Set(Array.from(fit.releases).filter(function (i) { return releases.has(i); }));
      var site = path.split("/site-packages/").pop().split("/dist-packages/").pop() + ":" + line;
      fit.frames.push({ site: site, entries: Array.from(new Set(ids.get(slug))).sort() });
      here.forEach(function (s) { // each entry's site at this frame, for its card (fitSites)
        if (s[0].split("/")[0] === slug && !frameSites.has(s[0])) {
          frameSites.set(s[0], { site: site, row: [s[2], s[3], s[1], line] });
        }
      });
    });
  });
  return Array.from(fits.keys()).sort().map(function (slug) {
    var fit = fits.get(slug), names = catalog.projects[slug].releases;
    fit.releases = spans(fit.releases).map(function (s) { return [names[s[0]], names[s[1]]]; });
    return fit;
  });
}

// Each catalog answer whose entry a traceback frame raises from: its site becomes the one at that frame
// (`fits_frame`), in place of the newest (generator/bundle/answers.fit_sites).
function fitSites(items) {
  items.forEach(function (item) {
    var pairs = item.type === "catalog" ? [[item.id, item.catalog]] : (item.catalog || []).map(function (c) { return [c.id, c]; });
    pairs.forEach(function (pair) {
      var at = frameSites.get(pair[0]), summary = pair[1];
      if (!at || !summary) return;
      var names = catalog.projects[summary.project].releases;
      summary.sites = [siteJson(at.row, null, names)];
      summary.fits_frame = at.site;
    });
  });
  return items;
}

// The index of a release in a project's order, tolerant of a leading "v" either way (as generator.catalog.query).
function releaseIndex(slug, version) {
  var names = catalog.projects[slug] ? catalog.projects[slug].releases : [];
  var other = /^[vV]/.test(version) ? version.slice(1) : "v" + version;
  var i = names.indexOf(version);
  return i >= 0 ? i : names.indexOf(other);
}

// An entry as the page shows it: releases as names, the raise site at release `at` when it has the message,
// else the newest site (generator.catalog.query.entry_summary).
function entrySummary(p, at) {
  var e = p.entry, names = catalog.projects[p.project].releases;
  var present = at !== null && e.releases.some(function (r) { return r[0] <= at && at <= r[1]; });
  var sites = present ? e.sites.filter(function (s) { return s[0] <= at && at <= s[1]; })
    : e.sites.slice().sort(function (a, b) { return b[1] - a[1]; }).slice(0, 1);
  return {
    id: e.id, project: p.project, template: e.template, exception: e.exception || null, tier: e.tier || null,
    sites: sites.map(function (s) { return siteJson(s, present ? at : null, names); }),
    releases: e.releases.map(function (r) { return [names[r[0]], names[r[1]]]; }),
    newest: names[names.length - 1], records: e.records || [], at: present ? names[at] : null,
    added: e.releases.length ? names[e.releases[0][0]] : null,
    // for a release without the message: the release that added it next, or that removed it last
    next: at === null ? null : nextRange(e.releases, at, names), gone: at === null ? null : lastRemoval(e.releases, at, names)
  };
}

// A site as generator.catalog.query.site_json gives it: at release `at`, the line the statement has there.
function siteJson(s, at, names) {
  var out = { from: names[s[0]], to: names[s[1]], path: s[2], line: s[3] };
  if (s[4]) {
    if (at !== null) s[4].forEach(function (x) { if (x[0] <= at && at <= x[1]) out.line = x[2]; });
    out.lines = s[4].map(function (x) { return [names[x[0]], x[2]]; });
  }
  return out;
}

function nextRange(ranges, at, names) {
  for (var i = 0; i < ranges.length; i++) if (ranges[i][0] > at) return names[ranges[i][0]];
  return null;
}

function lastRemoval(ranges, at, names) {
  var out = null;
  for (var i = 0; i < ranges.length; i++) if (ranges[i][1] < at) out = names[ranges[i][1] + 1];
  return out;
}
